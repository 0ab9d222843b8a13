package dev.toolcall.execution;

import dev.toolcall.DeadlineTimer;
import dev.toolcall.Outcome;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolArguments;
import dev.toolcall.tool.ToolInvocation;
import dev.toolcall.tool.ToolResult;
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
    try {
      if (tool instanceof Tool.BlockingTool b) {
        result = b.body().run(this);
      } else {
        stage = tool.execute(this); // null is a null result
      }
    } catch (Throwable e) { // a VirtualMachineError too: the call ends FAILED, logged at ERROR, never rethrown
      error = e;
    } finally {
      synchronized (this) {
        bodyThread = null;
        if (abandoned) {
          sched.counters.stillRunning.decrementAndGet();
        }
      }
      Thread.interrupted(); // an interrupt meant for the tool must not leak into the executor's next task
    }
    if (stage != null) {
      stage.whenComplete((r, t) -> run.onAttemptDone(this, r, t));
    } else {
      run.onAttemptDone(this, result, error);
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
      run.output().write(chunk);
    }
  }
}
