package dev.toolcall.bench;

import static dev.toolcall.ToolCallState.COMPLETED;
import static dev.toolcall.ToolCallState.PENDING;
import static dev.toolcall.ToolCallState.PERMISSION_APPROVED;
import static dev.toolcall.ToolCallState.PERMISSION_PENDING;
import static dev.toolcall.ToolCallState.RUNNING;

import dev.toolcall.Change;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCallIdentity;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.ToolArguments;

/**
 * Not a usable state machine: the floor of the data model that issue 4 prescribes, with no concurrency at all. It
 * makes exactly the objects a {@code ToolCall} lifecycle makes (an identity, an immutable snapshot per version linked
 * to the one before, the outcome, a {@link TransitionResult} per change, a {@link ToolCallEvent} per version handed to
 * one no-op listener through an array, with the listener's throw caught), checks each edge against the matrix, but
 * keeps the current snapshot in a plain field: no compare-and-set, no ordered hand-off, no subscriber monitor. The
 * gap between this and {@code TOOLCALL_FIXED_TIME} is what the concurrency guarantees cost; the gap between this and
 * {@code RAW_CAS} is what the records cost.
 */
final class ModelFloorLifecycle implements LifecycleAdapter {

  private static final long TICK = 42L;

  private final EventListener[] listeners = {new EventListener() {}};

  /** One machine: a plain field, changed by one thread only. */
  private static final class Machine {
    ToolCallSnapshot current;
  }

  @Override
  public Object lifecycle() {
    ToolCallIdentity identity = new ToolCallIdentity("call_0", "read_file", "default", null,
        ToolCallLifecycle.FIXED_CLOCK.instant(), TICK);
    Machine m = new Machine();
    m.current = ToolCallSnapshot.initial(identity, ToolArguments.empty());
    publish(m.current);
    if (step(m, PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED, null).lost()
        || step(m, PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE, null).lost()
        || step(m, PERMISSION_APPROVED, RUNNING, Reason.STARTED, null).lost()
        || step(m, RUNNING, COMPLETED, Reason.SUCCEEDED, new Outcome.Completed("ok")).lost()) {
      throw LifecycleAdapter.broken("model floor", m.current);
    }
    return m.current;
  }

  private TransitionResult<ToolCallSnapshot> step(Machine m, ToolCallState expected, ToolCallState target,
      Change change, Outcome outcome) {
    ToolCallState.TABLE.check(expected, target);
    ToolCallSnapshot cur = m.current;
    if (cur.state() != expected) {
      return new TransitionResult<>(false, cur);
    }
    ToolCallSnapshot next = cur.next(target, change, outcome, TICK);
    m.current = next;
    publish(next);
    return new TransitionResult<>(true, next);
  }

  private void publish(ToolCallSnapshot s) {
    ToolCallEvent event = ToolCallEvent.of(s);
    for (EventListener l : listeners) {
      try {
        l.onEvent(event);
      } catch (RuntimeException e) {
        throw new AssertionError(e);
      }
    }
  }
}
