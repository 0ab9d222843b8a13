package dev.toolcall.jcstress.permission;

import dev.toolcall.DeadlineTimer;
import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome.Outcomes;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * jcstress races of the permission service: one request, two actors. Deadlines run on a hand-moved ticker and a
 * scheduler that keeps the task for an actor to run, so "timeout" is an actor too. Run with
 * {@code mvn -P jcstress package && java -jar target/jcstress.jar -t PermissionRaces}.
 *
 * <p>Result encoding: r1 = the call's state after both actors as an ordinal of {@link ToolCallState}; r2 = 1 if the
 * first actor's decision won; r3 = for the second actor, 1 if it won. The arbiter also folds in whether the
 * authorize stage completed with the state the call left PERMISSION_PENDING with (if not, r1 = -1) and whether the
 * queue emptied (if not, r1 = -2).
 */
public final class PermissionRaces {
  private PermissionRaces() {}

  static final ToolDefinition SHELL = ToolDefinition.builder("shell").build();
  static final AtomicLong IDS = new AtomicLong();

  static final int APPROVED = ToolCallState.PERMISSION_APPROVED.ordinal();
  static final int DENIED = ToolCallState.PERMISSION_DENIED.ordinal();
  static final int PENDING = ToolCallState.PERMISSION_PENDING.ordinal();
  static final int CANCELLED = ToolCallState.CANCELLED.ordinal();

  /** A ticker the timeout actor moves, and a scheduler that hands the deadline task to it. */
  public static class Base {
    final AtomicLong now = new AtomicLong();
    final Ticker ticker = now::get;
    final AtomicReference<Runnable> deadlineTask = new AtomicReference<>();
    final PermissionService svc = PermissionService.builder().ticker(ticker)
        .defaultTimeout(Duration.ofSeconds(1))
        .timer(new DeadlineTimer() {
          @Override
          public Handle schedule(Runnable task, Duration delay) {
            deadlineTask.set(task);
            return () -> {};
          }

          @Override
          public void close() {}
        }).build();
    final ToolCall call = ToolCall.builder("c" + IDS.incrementAndGet(), "shell").ticker(ticker)
        .arguments(ToolArguments.ofText("ls")).build();
    final CompletableFuture<ToolCallSnapshot> stage = svc.authorize(call, SHELL).toCompletableFuture();
    final PermissionRequest request = svc.pending().get(0);

    DecisionResult approve() {
      return svc.decide(request.requestId(), Decision.approveOnce(request));
    }

    void timeout() {
      now.addAndGet(Duration.ofSeconds(1).toNanos());
      deadlineTask.get().run();
    }

    /** The call's state, or -1 if the stage disagrees with it, or -2 if the queue kept a resolved request. */
    int settle() {
      return settle(false);
    }

    /** As {@link #settle()}; with {@code orTerminal} the stage may also hold the terminal snapshot (a cancel
     * after the approval may complete it first). */
    int settle(boolean orTerminal) {
      ToolCallSnapshot s = call.snapshot();
      if (s.state() == ToolCallState.PERMISSION_PENDING) {
        return stage.isDone() || svc.pending().size() != 1 ? -1 : PENDING;
      }
      ToolCallSnapshot left = s;
      while (left.previousState() != ToolCallState.PERMISSION_PENDING) {
        left = left.previous();
      }
      if (!stage.isDone() || (stage.join() != left && !(orTerminal && stage.join() == s))) {
        return -1;
      }
      return svc.pending().isEmpty() ? s.state().ordinal() : -2;
    }
  }

  /** Approve against the deadline firing: exactly one wins; a timeout is recorded as TIMEOUT. */
  @JCStressTest
  @Outcomes({
      @org.openjdk.jcstress.annotations.Outcome(id = "2, 1, 0", expect = Expect.ACCEPTABLE,
          desc = "approval won; the timeout found nothing to deny"),
      @org.openjdk.jcstress.annotations.Outcome(id = "3, 0, 1", expect = Expect.ACCEPTABLE,
          desc = "timeout won; the approval was told it lost"),
      @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
  })
  @State
  public static class ApproveVsTimeout extends Base {
    DecisionResult a;

    @Actor
    public void approver() {
      a = approve();
    }

    @Actor
    public void deadline() {
      timeout();
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r1 = settle();
      r.r2 = a.won() ? 1 : 0;
      ToolCallSnapshot s = call.snapshot();
      r.r3 = s.outcome() instanceof Outcome.Denied d && d.source() == DenialSource.TIMEOUT ? 1 : 0;
    }
  }

  /** Approve against a cancel of the call from outside: the request resolves once, never approved after cancel. */
  @JCStressTest
  @Outcomes({
      @org.openjdk.jcstress.annotations.Outcome(id = "7, 1, 1", expect = Expect.ACCEPTABLE,
          desc = "approval won, then the cancel ended the approved call (it never runs)"),
      @org.openjdk.jcstress.annotations.Outcome(id = "7, 0, 1", expect = Expect.ACCEPTABLE,
          desc = "cancel won; the approval was told it lost"),
      @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
  })
  @State
  public static class ApproveVsCancel extends Base {
    DecisionResult a;
    boolean c;

    @Actor
    public void approver() {
      a = approve();
    }

    @Actor
    public void canceller() {
      c = call.cancel("cancelled").won();
    }

    @Arbiter
    public void arbiter(III_Result r) {
      int settled = settle(true);
      // the stage holds the snapshot that left PERMISSION_PENDING; the call itself ends CANCELLED either way
      r.r1 = settled < 0 ? settled : call.state().ordinal();
      r.r2 = a.won() ? 1 : 0;
      r.r3 = c ? 1 : 0;
    }
  }

  /** Approve against deny: exactly one decision wins. */
  @JCStressTest
  @Outcomes({
      @org.openjdk.jcstress.annotations.Outcome(id = "2, 1, 0", expect = Expect.ACCEPTABLE, desc = "approve won"),
      @org.openjdk.jcstress.annotations.Outcome(id = "3, 0, 1", expect = Expect.ACCEPTABLE, desc = "deny won"),
      @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
  })
  @State
  public static class ApproveVsDeny extends Base {
    DecisionResult a;
    DecisionResult d;

    @Actor
    public void approver() {
      a = approve();
    }

    @Actor
    public void denier() {
      d = svc.decide(request.requestId(), Decision.deny(request, "no"));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r1 = settle();
      r.r2 = a.won() ? 1 : 0;
      r.r3 = d.won() ? 1 : 0;
    }
  }

  /**
   * Modify-and-ask against approve on the same version: either the approval wins with the arguments shown, or the
   * edit wins and the approval is refused as stale (the call keeps waiting with the new arguments).
   */
  @JCStressTest
  @Outcomes({
      @org.openjdk.jcstress.annotations.Outcome(id = "2, 1, 0", expect = Expect.ACCEPTABLE,
          desc = "approval won with the original arguments; the edit lost"),
      @org.openjdk.jcstress.annotations.Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE,
          desc = "edit won; the approval was refused as stale; still waiting"),
      @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
  })
  @State
  public static class ModifyVsApprove extends Base {
    DecisionResult a;
    DecisionResult m;

    @Actor
    public void approver() {
      a = approve();
    }

    @Actor
    public void editor() {
      m = svc.decide(request.requestId(), Decision.modifyAndAsk(request, ToolArguments.ofText("ls -la")));
    }

    @Arbiter
    public void arbiter(III_Result r) {
      int settled = settle();
      boolean consistent = a.won()
          ? call.snapshot().arguments().raw().equals("ls") && m instanceof DecisionResult.Lost
          : a instanceof DecisionResult.Stale && call.snapshot().arguments().raw().equals("ls -la");
      r.r1 = consistent ? settled : -3;
      r.r2 = a.won() ? 1 : 0;
      r.r3 = m.won() ? 1 : 0;
    }
  }
}
