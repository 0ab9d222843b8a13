package dev.toolcall;

/**
 * The durable write of one {@link ToolCall}'s changes through its {@link CallStore}. A call built to be stored with its
 * first change ({@link ToolCall.Builder#storeWithFirstChange()}) is not in the store until then: its first write is a
 * {@link CallStore#create} of the version that change makes (whose path holds version 0), so a call that starts or
 * asks at once costs one write fewer; {@link #flush} stores it as it stands when it has to wait instead. When the
 * store holds that id already (from before a restart, or written elsewhere), the call ends FAILED
 * {@link FailureKind#DUPLICATE_CALL} here, stored nowhere, with a message for the model.
 *
 * <p>Called only under the call's write lock, which orders every write of one call; {@code unstored} is read without
 * it by {@link #stored()} (volatile).
 */
final class CallWriter {

  private final CallStore store;
  private final Ticker ticker;
  /** Whether the store does not hold the call yet; set false once, by the write that stores it. */
  private volatile boolean unstored;

  CallWriter(CallStore store, Ticker ticker, boolean unstored) {
    this.store = store;
    this.ticker = ticker;
    this.unstored = unstored;
  }

  /** Whether the store holds the call (or it is being written to it now). */
  boolean stored() {
    return !unstored;
  }

  /** {@code Durable#write}: null when written, else the newer version to adopt. */
  ToolCallSnapshot write(ToolCallSnapshot expected, ToolCallSnapshot next) {
    if (unstored) {
      return created(expected, next);
    }
    return StoreAdoption.write(store, expected, next);
  }

  /** {@code Durable#flush}: stores the call as it stands if it is not stored yet. */
  ToolCallSnapshot flush(ToolCallSnapshot current) {
    return unstored ? created(current, current) : null;
  }

  /** Creates the call at {@code version}; null when stored, else the refusal to adopt over {@code current}. */
  private ToolCallSnapshot created(ToolCallSnapshot current, ToolCallSnapshot version) {
    if (store.create(version)) {
      unstored = false;
      return null;
    }
    unstored = false; // the id is another call's: nothing of this one is ever written
    ToolCallIdentity id = current.identity();
    ToolCallSnapshot running = current.next(ToolCallState.RUNNING, Reason.VALIDATING, null, ticker.read());
    return running.next(ToolCallState.FAILED, Reason.FAILED, new Outcome.Failed(FailureKind.DUPLICATE_CALL,
        "Tool call id '" + id.label() + "' was already used in this session (by a call stored before); each call"
            + " needs its own id. This call was not run."), ticker.read());
  }
}
