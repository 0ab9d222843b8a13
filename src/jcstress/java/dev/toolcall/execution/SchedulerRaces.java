package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * jcstress races of the scheduler. Run with {@code mvn -P jcstress package && java -jar target/jcstress.jar -t
 * SchedulerRaces}.
 */
public final class SchedulerRaces {
  private SchedulerRaces() {}

  static final AtomicLong IDS = new AtomicLong();
  static final ConcurrentHashMap<String, AtomicInteger> ENTRIES = new ConcurrentHashMap<>();

  static final Tool TOOL = Tool.of(ToolDefinition.builder("t").requiresApproval(true).build(), inv -> {
    ENTRIES.computeIfAbsent(inv.callId(), k -> new AtomicInteger()).incrementAndGet();
    return ToolResult.of("ran");
  });

  static final Validator VALIDATOR = new Validator() {
    @Override
    public Validation validate(String toolName, String raw) {
      return toolName.equals("t") ? new Valid(TOOL, ToolArguments.ofText(raw))
          : new Invalid(FailureKind.UNKNOWN_TOOL, "unknown", null, ToolArguments.ofText(raw));
    }

    @Override
    public Validation revalidate(Tool tool, ToolArguments arguments) {
      return new Valid(tool, arguments);
    }
  };

  /** Approvals that a test actor releases: call id -> the approval future the authorizer returned. */
  static final ConcurrentHashMap<String, CompletableFuture<ToolCallSnapshot>> APPROVALS = new ConcurrentHashMap<>();

  static final ToolScheduler DIRECT = ToolScheduler.builder().validator(VALIDATOR)
      .authorizer((call, def) -> {
        call.transition(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
        CompletableFuture<ToolCallSnapshot> f = new CompletableFuture<>();
        APPROVALS.put(call.callId(), f);
        return f;
      })
      .executor(Runnable::run).executionOrder(ExecutionOrder.PARALLEL).maxParallel(Integer.MAX_VALUE)
      .defaultTimeout(Duration.ofHours(1)).build();

  /**
   * The window of known call ids is larger than one jcstress epoch (40 strides x 256 states in the quick mode): an
   * actor may run a whole epoch ahead of the other, and an id must still be known when the other schedules it. The
   * default window (4,096 calls) bounds repeats, not this race.
   */
  static final ToolScheduler ALLOWING = ToolScheduler.builder().validator(VALIDATOR).authorizer(Authorizer.ALLOW_ALL)
      .executor(Runnable::run).executionOrder(ExecutionOrder.PARALLEL).maxParallel(Integer.MAX_VALUE)
      .defaultTimeout(Duration.ofHours(1)).knownCallsWindow(1 << 16).build();

  /**
   * Start (approval arrives, the scheduler moves the call to RUNNING and enters the tool on the same thread)
   * against cancel. Result: r1 = how the call ended (1 cancelled while approved, 2 cancelled while running,
   * 3 completed), r2 = times the tool was entered. A call cancelled before it started must never enter the tool;
   * a completed call entered it exactly once.
   */
  @JCStressTest
  @Outcome(id = "1, 0", expect = Expect.ACCEPTABLE, desc = "cancel won before the start: the tool never ran")
  @Outcome(id = "2, 0", expect = Expect.ACCEPTABLE, desc = "cancel won after RUNNING, before the tool was entered")
  @Outcome(id = "2, 1", expect = Expect.ACCEPTABLE_INTERESTING, desc = "cancel won while the tool ran")
  @Outcome(id = "3, 1", expect = Expect.ACCEPTABLE, desc = "the tool finished before the cancel")
  @Outcome(expect = Expect.FORBIDDEN, desc = "anything else: a tool run after a winning cancel, or twice")
  @State
  public static class CancelVsStart {
    final String id = "cvs-" + IDS.incrementAndGet();
    final ToolCall call;
    final CompletableFuture<ToolCallSnapshot> approval;

    public CancelVsStart() {
      Batch b = DIRECT.schedule("s", List.of(CallRequest.of(id, "t", "{}")));
      call = b.calls().get(0);
      call.transition(ToolCallState.PERMISSION_PENDING, ToolCallState.PERMISSION_APPROVED, Reason.APPROVED_ONCE);
      approval = APPROVALS.remove(id);
    }

    @Actor
    public void start() {
      approval.complete(call.snapshot());
    }

    @Actor
    public void cancel() {
      call.cancel("user");
    }

    @Arbiter
    public void arbiter(II_Result r) {
      ToolCallSnapshot s = call.snapshot();
      if (s.state() == ToolCallState.COMPLETED) {
        r.r1 = 3;
      } else if (s.state() == ToolCallState.CANCELLED) {
        r.r1 = s.previousState() == ToolCallState.PERMISSION_APPROVED ? 1
            : s.previousState() == ToolCallState.RUNNING ? 2 : 9;
      } else {
        r.r1 = 8;
      }
      AtomicInteger n = ENTRIES.remove(id);
      r.r2 = n == null ? 0 : n.get();
    }
  }

  /**
   * The same call id scheduled by two threads at once: the tool runs exactly once. The later schedule either gets the
   * same call (it had not ended) or, when it had ended, a call of its own refused as a reused id
   * ({@code DUPLICATE_CALL}, not run: the scheduler keeps ids of ended calls, not the calls). Result: times the tool
   * was entered, plus 100 when one batch got the refusal and the other the completed call, plus 10 when the two
   * batches disagree otherwise.
   */
  @JCStressTest
  @Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "ran once, both batches saw the same call")
  @Outcome(id = "101", expect = Expect.ACCEPTABLE_INTERESTING,
      desc = "ran once; the call had ended when the other schedule came, which was refused as a reused id")
  @Outcome(expect = Expect.FORBIDDEN, desc = "ran twice, never, or the batches disagree")
  @State
  public static class DoubleSchedule {
    final String id = "dbl-" + IDS.incrementAndGet();
    volatile Batch a;
    volatile Batch b;

    @Actor
    public void first() {
      a = ALLOWING.schedule("s", List.of(CallRequest.of(id, "t", "{}")));
    }

    @Actor
    public void second() {
      b = ALLOWING.schedule("s", List.of(CallRequest.of(id, "t", "{}")));
    }

    @Arbiter
    public void arbiter(I_Result r) {
      ToolCallSnapshot sa = a.join().get(0).snapshot();
      ToolCallSnapshot sb = b.join().get(0).snapshot();
      AtomicInteger n = ENTRIES.remove(id);
      r.r1 = (n == null ? 0 : n.get()) + (sa == sb ? 0 : refusedReuse(sa, sb) || refusedReuse(sb, sa) ? 100 : 10);
    }

    /** Whether {@code refused} is a reused id's refusal and {@code ran} the completed call. */
    static boolean refusedReuse(ToolCallSnapshot refused, ToolCallSnapshot ran) {
      return refused.outcome() instanceof dev.toolcall.Outcome.Failed f
          && f.kind() == dev.toolcall.FailureKind.DUPLICATE_CALL
          && ran.state() == dev.toolcall.ToolCallState.COMPLETED;
    }
  }

  /**
   * Issue 30: a call of an open batch has one end-of-call callback, its entry's, which the call's run takes over
   * when it starts ({@code OpenBatchImpl.Authorized.attach}). The arguments complete (the run is made and starts:
   * attach, then authorize) against a cancel (the call's end: the callback runs). Whichever wins, the call's end is
   * reported to the batch exactly once and counted towards whenAuthorized. Result: r1 = the batch's open calls after
   * the seal (0: reported once; 1: never; -1: twice), r2 = 1 when whenAuthorized and whenDone have both completed.
   */
  @JCStressTest
  @Outcome(id = "0, 1", expect = Expect.ACCEPTABLE, desc = "the end reported once, both stages completed")
  @Outcome(expect = Expect.FORBIDDEN, desc = "the end lost or reported twice, or a stage left pending")
  @State
  public static class OpenBatchStartVsCancel {
    final String id = "obsc-" + IDS.incrementAndGet();
    final OpenBatch ob = DIRECT.openBatch("s");
    final ToolCall call;

    public OpenBatchStartVsCancel() {
      call = ob.announce(id, "t");
      ob.appendArguments(call, "{}");
    }

    @Actor
    public void complete() {
      ob.complete(call);
    }

    @Actor
    public void cancel() {
      call.cancel("user");
    }

    @Arbiter
    public void arbiter(II_Result r) {
      Batch b = ob.seal();
      APPROVALS.remove(id);
      r.r1 = ((OpenBatchImpl) ob).batch.open;
      r.r2 = ob.whenAuthorized().toCompletableFuture().isDone() && b.whenDone().toCompletableFuture().isDone() ? 1 : 0;
    }
  }
}
