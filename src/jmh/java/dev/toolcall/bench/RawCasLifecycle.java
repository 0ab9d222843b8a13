package dev.toolcall.bench;

import static dev.toolcall.ToolCallState.COMPLETED;
import static dev.toolcall.ToolCallState.PENDING;
import static dev.toolcall.ToolCallState.PERMISSION_APPROVED;
import static dev.toolcall.ToolCallState.PERMISSION_PENDING;
import static dev.toolcall.ToolCallState.RUNNING;

import dev.toolcall.ToolCallState;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The floor: one {@link AtomicReference} of the state enum per call, each step a matrix check against a bitmask
 * (derived once from {@link ToolCallState#TABLE}) and one compare-and-set. No snapshot, no history, no events, no
 * time: nothing a real call needs beyond the state itself.
 */
final class RawCasLifecycle implements LifecycleAdapter {

  /** Bit {@code to.ordinal()} of {@code ALLOWED[from.ordinal()]} is set for every edge of the matrix. */
  private static final int[] ALLOWED = new int[ToolCallState.values().length];

  static {
    for (ToolCallState from : ToolCallState.values()) {
      for (ToolCallState to : ToolCallState.TABLE.successors(from)) {
        ALLOWED[from.ordinal()] |= 1 << to.ordinal();
      }
    }
  }

  static boolean transition(AtomicReference<ToolCallState> ref, ToolCallState from, ToolCallState to) {
    if ((ALLOWED[from.ordinal()] & (1 << to.ordinal())) == 0) {
      throw new IllegalArgumentException("no edge " + from + " -> " + to);
    }
    return ref.compareAndSet(from, to);
  }

  static ToolCallState run() {
    AtomicReference<ToolCallState> ref = new AtomicReference<>(PENDING);
    if (!transition(ref, PENDING, PERMISSION_PENDING)
        || !transition(ref, PERMISSION_PENDING, PERMISSION_APPROVED)
        || !transition(ref, PERMISSION_APPROVED, RUNNING)
        || !transition(ref, RUNNING, COMPLETED)) {
      throw LifecycleAdapter.broken("raw CAS", ref.get());
    }
    return ref.get();
  }

  @Override
  public Object lifecycle() {
    return run();
  }
}
