package dev.toolcall.jcstress;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome.Outcomes;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two-actor races of the foundation, each with an arbiter and a catch-all FORBIDDEN outcome. Run with
 * {@code mvn -P jcstress package && java -jar target/jcstress.jar -t ToolCallRaces}.
 */
public final class ToolCallRaces {
  private ToolCallRaces() {}

  static ToolCall running() {
    ToolCall c = ToolCall.builder("c", "t").build();
    c.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    return c;
  }

  /**
   * complete vs cancel: exactly one wins, the loser learns the winner's outcome, and the final state agrees.
   * r1 = 1 if complete won, r2 = 1 if cancel won, r3 = final state ordinal.
   */
  @JCStressTest
  @Outcomes({
      @org.openjdk.jcstress.annotations.Outcome(id = "1, 0, 5", expect = Expect.ACCEPTABLE, desc = "complete won"),
      @org.openjdk.jcstress.annotations.Outcome(id = "0, 1, 7", expect = Expect.ACCEPTABLE, desc = "cancel won"),
      @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "two winners, none, or a lie")})
  @State
  public static class CompleteVsCancel {
    final ToolCall call = running();
    int completeWon;
    int cancelWon;

    @Actor
    public void complete() {
      var r = call.complete("ok");
      completeWon = r.won() ? 1 : (r.snapshot().outcome() instanceof Outcome.Cancelled ? 0 : 9);
    }

    @Actor
    public void cancel() {
      var r = call.cancel("user");
      cancelWon = r.won() ? 1 : (r.snapshot().outcome() instanceof Outcome.Completed ? 0 : 9);
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r1 = completeWon;
      r.r2 = cancelWon;
      r.r3 = call.state().ordinal();
    }
  }

  /** fail vs cancel: as above, for a failure. */
  @JCStressTest
  @Outcomes({
      @org.openjdk.jcstress.annotations.Outcome(id = "1, 0, 6", expect = Expect.ACCEPTABLE, desc = "fail won"),
      @org.openjdk.jcstress.annotations.Outcome(id = "0, 1, 7", expect = Expect.ACCEPTABLE, desc = "cancel won"),
      @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "two winners, none, or a lie")})
  @State
  public static class FailVsCancel {
    final ToolCall call = running();
    int failWon;
    int cancelWon;

    @Actor
    public void fail() {
      var r = call.fail(FailureKind.TOOL_ERROR, "boom");
      failWon = r.won() ? 1 : (r.snapshot().outcome() instanceof Outcome.Cancelled ? 0 : 9);
    }

    @Actor
    public void cancel() {
      var r = call.cancel("user");
      cancelWon = r.won() ? 1 : (r.snapshot().outcome() instanceof Outcome.Failed ? 0 : 9);
    }

    @Arbiter
    public void arbiter(III_Result r) {
      r.r1 = failWon;
      r.r2 = cancelWon;
      r.r3 = call.state().ordinal();
    }
  }

  /**
   * publish vs subscription close: after close() returned, the listener must not be invoked. r1 = events the
   * listener saw after close returned (must be 0), r2 = 1 if the listener saw the event at all.
   */
  @JCStressTest
  @Outcomes({
      @org.openjdk.jcstress.annotations.Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "closed first"),
      @org.openjdk.jcstress.annotations.Outcome(id = "0, 1", expect = Expect.ACCEPTABLE,
          desc = "delivered before close returned"),
      @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "delivered after close returned")})
  @State
  public static class PublishVsClose {
    final EventBus bus = EventBus.create();
    final ToolCall call = ToolCall.builder("c", "t").eventBus(bus).build();
    volatile boolean closeReturned;
    volatile int seenAfterClose;
    volatile int seen;
    final Subscription sub = bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        seen = 1;
        if (closeReturned) {
          seenAfterClose++;
        }
      }
    });

    @Actor
    public void publish() {
      call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    }

    @Actor
    public void close() {
      sub.close();
      closeReturned = true;
    }

    @Arbiter
    public void arbiter(II_Result r) {
      r.r1 = seenAfterClose;
      r.r2 = seen;
    }
  }
}
