package dev.toolcall.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two running calls on one bus with one inline listener; two threads complete one call each. The listener is never
 * invoked concurrently with itself (the subscription's lock), and each completion reaches it once.
 *
 * <p>Result: r1 = invocations that found another one in progress (must be 0), r2 = completion events seen.
 *
 * <p>Run: {@code mvn -P jcstress package && java -jar target/jcstress.jar -t SharedListenerAcrossCalls -m quick}.
 */
@JCStressTest
@Outcome(id = "0, 2", expect = ACCEPTABLE, desc = "one at a time, both completions delivered")
@Outcome(expect = FORBIDDEN, desc = "overlapping invocations, or a completion lost or delivered twice")
@State
public class SharedListenerAcrossCalls {

  private final EventBus bus = EventBus.create();
  private final OneAtATime listener = new OneAtATime();
  private final ToolCall a;
  private final ToolCall b;

  public SharedListenerAcrossCalls() {
    a = ToolCall.builder("a", "tool").ticker(() -> 0L).eventBus(bus).build();
    b = ToolCall.builder("b", "tool").ticker(() -> 0L).eventBus(bus).build();
    a.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.STARTED);
    b.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.STARTED);
    bus.subscribe(listener);
  }

  @Actor
  public void completeA() {
    a.complete("a");
  }

  @Actor
  public void completeB() {
    b.complete("b");
  }

  @Arbiter
  public void arbiter(II_Result r) {
    r.r1 = listener.overlaps;
    r.r2 = listener.seen;
  }

  /** Plain fields on purpose: only the subscription's lock orders them. */
  static final class OneAtATime implements EventListener {
    int inside;
    int overlaps;
    int seen;

    @Override
    public void onEvent(Event event) {
      if (inside++ != 0) {
        overlaps++;
      }
      seen++;
      inside--;
    }
  }
}
