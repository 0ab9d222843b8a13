package dev.toolcall;

import dev.toolcall.fsm.AbstractStateCell;

/**
 * A call's durable write through its store, one per call (its monitor serialises the call's writes), and where the
 * call finds its store: no field of its own for it. A write another runtime beat reads the call back and adopts what
 * it stored (the caller then sees a lost race, as in memory); a store that cannot read back makes it a
 * {@link StaleCallException}. A call built to be stored with its first change ({@link ToolCall.Builder#storeWithFirstChange()})
 * is not in the store until then: its first write is a {@link CallStore#create} of the version that change makes
 * (whose history holds version 0), a change of its arguments before it rides along, and nothing of it is handed off
 * before; {@link ToolCall#store()} stores it as it stands. When the store holds that id already (from before a
 * restart, or written elsewhere), the call ends FAILED {@link FailureKind#DUPLICATE_CALL} here, stored nowhere.
 */
final class StoreWrite implements AbstractStateCell.Durable<ToolCallSnapshot> {
  final CallStore store;
  private final Ticker ticker;
  /** Whether the store does not hold the call yet; set false once, under this monitor, by the write that stores it. */
  private volatile boolean unstored;

  StoreWrite(CallStore store, Ticker ticker, boolean unstored) {
    this.store = store;
    this.ticker = ticker;
    this.unstored = unstored;
  }

  boolean stored() {
    return !unstored;
  }

  @Override
  public ToolCallSnapshot write(ToolCallSnapshot expected, ToolCallSnapshot next) {
    return unstored ? created(expected, next) : StoreAdoption.write(store, expected, next);
  }

  @Override
  public ToolCallSnapshot flush(ToolCallSnapshot current) {
    return unstored ? created(current, current) : null;
  }

  @Override
  public boolean defers(ToolCallSnapshot expected, ToolCallSnapshot next) {
    return unstored && next.state() == expected.state();
  }

  @Override
  public boolean holds() {
    return unstored;
  }

  /** Creates the call at {@code version}; null when stored, else the refusal to adopt over {@code current}. */
  private ToolCallSnapshot created(ToolCallSnapshot current, ToolCallSnapshot version) {
    boolean won = store.create(version);
    unstored = false; // stored, or the id is another call's: nothing of this one is ever written
    if (won) {
      return null;
    }
    ToolCallSnapshot running = current.next(ToolCallState.RUNNING, Reason.VALIDATING, null, ticker.read());
    return running.next(ToolCallState.FAILED, Reason.FAILED, new Outcome.Failed(FailureKind.DUPLICATE_CALL,
        "Tool call id '" + current.identity().label() + "' was already used in this session (by a call stored"
            + " before); each call needs its own id. This call was not run."), ticker.read());
  }
}

