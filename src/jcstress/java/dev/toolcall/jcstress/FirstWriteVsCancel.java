package dev.toolcall.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.toolcall.CallStore;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A call stored with its first change ({@code ToolCall.Builder.storeWithFirstChange()}): one thread starts it while
 * another asks it to be stored as it stands and then cancels it. Whatever the interleaving, the store ends holding the
 * call's final version, the call ends CANCELLED, and every version is handed to the listener once, in order, and only
 * once the store holds it (or a later one).
 *
 * <p>Result: r1 = events handed off out of order, twice, or before their version was stored (must be 0); r2 = 1 when
 * the store holds the call's final version; r3 = 1 when the call ended CANCELLED.
 *
 * <p>Run: {@code mvn -P jcstress package && java -jar target/jcstress.jar -t FirstWriteVsCancel -m quick}.
 */
@JCStressTest
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "one history, stored before it was seen, ended cancelled")
@Outcome(expect = FORBIDDEN, desc = "an event before its version was stored, one lost or repeated, or a store behind")
@State
public class FirstWriteVsCancel {

  private final Store store = new Store();
  private final Witness witness = new Witness(store);
  private final ToolCall call;

  public FirstWriteVsCancel() {
    EventBus bus = EventBus.create();
    bus.subscribe(witness);
    call = ToolCall.builder("c", "tool").ticker(() -> 0L).eventBus(bus).store(store).storeWithFirstChange().build();
  }

  @Actor
  public void start() {
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.STARTED);
  }

  @Actor
  public void storeThenCancel() {
    call.store();
    call.cancel("stop");
  }

  @Arbiter
  public void arbiter(III_Result r) {
    ToolCallSnapshot end = call.snapshot();
    r.r1 = witness.bad + (witness.next == end.version() + 1 ? 0 : 1);
    ToolCallSnapshot row = store.row;
    r.r2 = row != null && row.version() == end.version() && row.state() == end.state() ? 1 : 0;
    r.r3 = end.state() == ToolCallState.CANCELLED ? 1 : 0;
  }

  /** One call's row: create and compare-and-set under the store's lock. */
  static final class Store implements CallStore {
    ToolCallSnapshot row;

    @Override
    public synchronized boolean create(ToolCallSnapshot first) {
      if (row != null) {
        return false;
      }
      row = first;
      return true;
    }

    @Override
    public synchronized boolean compareAndSet(ToolCallSnapshot expected, ToolCallSnapshot next) {
      if (row == null || row.version() != expected.version()) {
        return false;
      }
      row = next;
      return true;
    }

    synchronized int version() {
      return row == null ? -1 : row.version();
    }
  }

  /** Counts events handed off out of order, twice, or before the store held their version; inline, one at a time. */
  static final class Witness implements EventListener {
    final Store store;
    int next;
    int bad;

    Witness(Store store) {
      this.store = store;
    }

    @Override
    public void onEvent(Event e) {
      if (e.version() != next || store.version() < e.version()) {
        bad++;
      }
      next = (int) e.version() + 1;
    }
  }
}
