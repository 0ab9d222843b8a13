package dev.toolcall.execution;

import dev.toolcall.ToolCallIdentity;
import dev.toolcall.ToolCallSnapshot;
import java.util.List;
import org.slf4j.MDC;
import dev.toolcall.DeadlineTimer;
import dev.toolcall.Outcome;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolInvocation;
import dev.toolcall.ToolResult;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/** One attempt of a call: its invocation, the thread in the tool body (if any), and its timeout. */
final class Attempt implements ToolInvocation {
  private final ToolScheduler sched;

  final CallRun run;
  final Tool tool;
  final ToolArguments args;
  final int number;
  final AtomicBoolean finished = new AtomicBoolean();
  volatile DeadlineTimer.Handle timeout = DeadlineTimer.Handle.NONE;
  Thread bodyThread; // guarded by this
  boolean abandoned; // guarded by this

  Attempt(CallRun run, Tool tool, ToolArguments args, int number) {
    this.sched = run.sched;
    this.run = run;
    this.tool = tool;
    this.args = args;
    this.number = number;
  }

  /** The SLF4J MDC keys set on the tool's thread while its body runs. */
  static final String MDC_CALL_ID = "toolcall.call_id";
  static final String MDC_SESSION_ID = "toolcall.session_id";
  static final String MDC_TOOL = "toolcall.tool";
  private static final ExecutionScope.Scope[] NO_SCOPES = new ExecutionScope.Scope[0];

  private ExecutionScope.Scope[] enter() {
    List<ExecutionScope> is = sched.instrumentations;
    if (is.isEmpty()) {
      return NO_SCOPES;
    }
    ExecutionScope.Scope[] out = new ExecutionScope.Scope[is.size()];
    ToolCallSnapshot s = run.call.snapshot();
    for (int i = 0; i < out.length; i++) {
      try {
        out[i] = Objects.requireNonNull(is.get(i).enterTool(s), "enterTool returned null");
      } catch (RuntimeException | Error e) { // user code: the tool runs without the scope
        ToolScheduler.log.warn("instrumentation {} failed to enter call {}", is.get(i), s.callId(), e);
        out[i] = ExecutionScope.Scope.NONE;
      }
    }
    return out;
  }

  private static void exit(ExecutionScope.Scope[] scopes) {
    for (int i = scopes.length - 1; i >= 0; i--) {
      try {
        scopes[i].close();
      } catch (RuntimeException | Error e) { // user code
        ToolScheduler.log.warn("instrumentation scope failed to close", e);
      }
    }
  }

  boolean finish() {
    return finished.compareAndSet(false, true);
  }

  void run() {
    if (run.call.isTerminal()) {
      timeout.cancel();
      return;
    }
    synchronized (this) {
      bodyThread = Thread.currentThread();
    }
    CompletionStage<ToolResult> stage = null; // an asynchronous tool's
    ToolResult result = null; // a blocking tool's
    Throwable error = null;
    ToolCallIdentity id = run.call.identity();
    MDC.put(MDC_CALL_ID, id.callId());
    MDC.put(MDC_SESSION_ID, id.sessionId());
    MDC.put(MDC_TOOL, id.toolName());
    ExecutionScope.Scope[] scopes = enter();
    try {
      if (tool instanceof Tool.BlockingTool b) {
        result = b.body().run(this);
      } else {
        stage = tool.execute(this); // null is a null result
      }
    } catch (Throwable e) { // a VirtualMachineError too: the call ends FAILED, logged at ERROR, never rethrown
      error = e;
    } finally {
      exit(scopes);
      MDC.remove(MDC_CALL_ID);
      MDC.remove(MDC_SESSION_ID);
      MDC.remove(MDC_TOOL);
      synchronized (this) {
        bodyThread = null;
        if (abandoned) {
          sched.counters.stillRunning.decrementAndGet();
        }
      }
      Thread.interrupted(); // an interrupt meant for the tool must not leak into the executor's next task
    }
    if (stage != null) {
      stage.whenComplete((r, t) -> AttemptEnd.done(run, this, r, t));
    } else {
      AttemptEnd.done(run, this, result, error);
    }
  }

  synchronized void interruptIfInBody() {
    if (bodyThread != null && !abandoned) {
      abandoned = true;
      sched.counters.abandoned.increment();
      sched.counters.stillRunning.incrementAndGet();
      bodyThread.interrupt();
    }
  }

  @Override
  public ToolArguments arguments() {
    return args;
  }

  @Override
  public String callId() {
    return run.call.callId();
  }

  @Override
  public String sessionId() {
    return run.call.sessionId();
  }

  @Override
  public String toolName() {
    return run.call.toolName();
  }

  @Override
  public int attempt() {
    return number;
  }

  @Override
  public boolean isCancelled() {
    return run.call.isTerminal();
  }

  @Override
  public void onCancel(Runnable action) {
    Objects.requireNonNull(action, "action");
    run.call.whenTerminal().thenAccept(s -> {
      if (!(s.outcome() instanceof Outcome.Completed)) {
        action.run();
      }
    });
  }

  @Override
  public void output(String chunk) {
    if (!finished.get()) {
      RunOutput.of(run).write(chunk);
    }
  }
}
