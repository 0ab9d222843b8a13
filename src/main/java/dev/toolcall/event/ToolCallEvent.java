package dev.toolcall.event;

import dev.toolcall.Change;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.time.Instant;
import java.util.Objects;

/**
 * An event of one tool call: a typed view of the {@link ToolCallSnapshot} that a change produced. One version, one
 * event: {@link CallCreated} for version 0, {@link StateChanged} for every state transition (its
 * {@link StateChanged#change()} says why: a {@link dev.toolcall.Reason}, or a {@link Change.PermissionAsked} when a
 * permission request opened), and {@link ArgumentsModified}, {@link OutputAppended}, {@link RetryScheduled} for
 * changes that keep the state.
 */
public sealed interface ToolCallEvent extends Event
    permits ToolCallEvent.CallCreated, ToolCallEvent.StateChanged, ToolCallEvent.ArgumentsModified,
    ToolCallEvent.OutputAppended, ToolCallEvent.RetryScheduled {

  /** The snapshot this event reports. */
  ToolCallSnapshot snapshot();

  /** The call id. */
  default String callId() {
    return snapshot().callId();
  }

  /** The tool name. */
  default String toolName() {
    return snapshot().toolName();
  }

  @Override
  default String sourceId() {
    return snapshot().callId();
  }

  @Override
  default String sessionId() {
    return snapshot().identity().sessionId();
  }

  @Override
  default long version() {
    return snapshot().version();
  }

  @Override
  default Instant timestamp() {
    return snapshot().timestamp();
  }

  /** The state after this event. */
  default ToolCallState state() {
    return snapshot().state();
  }

  /** The event that reports {@code snapshot}. */
  static ToolCallEvent of(ToolCallSnapshot snapshot) {
    Change c = snapshot.change();
    if (snapshot.isStateChange()) {
      return new StateChanged(snapshot);
    }
    if (c instanceof Change.Created) {
      return new CallCreated(snapshot);
    }
    if (c instanceof Change.ArgumentsModified) {
      return new ArgumentsModified(snapshot);
    }
    if (c instanceof Change.OutputAppended) {
      return new OutputAppended(snapshot);
    }
    if (c instanceof Change.RetryScheduled) {
      return new RetryScheduled(snapshot);
    }
    throw new IllegalArgumentException("no event for change " + c + " that keeps state " + snapshot.state());
  }

  /**
   * A call was created (version 0, {@link ToolCallState#PENDING}).
   *
   * @param snapshot the first snapshot
   */
  record CallCreated(ToolCallSnapshot snapshot) implements ToolCallEvent {
    /** Checks the snapshot. */
    public CallCreated {
      Objects.requireNonNull(snapshot, "snapshot");
    }
  }

  /**
   * A call moved from one state to another.
   *
   * @param snapshot the snapshot after the move
   */
  record StateChanged(ToolCallSnapshot snapshot) implements ToolCallEvent {
    /** Checks the snapshot. */
    public StateChanged {
      Objects.requireNonNull(snapshot, "snapshot");
    }

    /** The state left. */
    public ToolCallState from() {
      return snapshot.previousState();
    }

    /** The state entered. */
    public ToolCallState to() {
      return snapshot.state();
    }

    /** Why. */
    public Change change() {
      return snapshot.change();
    }

    @Override
    public String toString() {
      return "StateChanged[" + snapshot.callId() + " v" + snapshot.version() + " " + from() + " -> " + to() + " by "
          + change() + "]";
    }
  }

  /**
   * A call's arguments were replaced; the state is unchanged.
   *
   * @param snapshot the snapshot with the new arguments
   */
  record ArgumentsModified(ToolCallSnapshot snapshot) implements ToolCallEvent {
    /** Checks the snapshot. */
    public ArgumentsModified {
      Objects.requireNonNull(snapshot, "snapshot");
    }

    /** The change, with the arguments before and who changed them. */
    public Change.ArgumentsModified change() {
      return (Change.ArgumentsModified) snapshot.change();
    }
  }

  /**
   * A running tool wrote output.
   *
   * @param snapshot the snapshot recording the chunk
   */
  record OutputAppended(ToolCallSnapshot snapshot) implements ToolCallEvent {
    /** Checks the snapshot. */
    public OutputAppended {
      Objects.requireNonNull(snapshot, "snapshot");
    }

    /** The chunk, its sequence number and the writes dropped before it. */
    public Change.OutputAppended change() {
      return (Change.OutputAppended) snapshot.change();
    }
  }

  /**
   * A transient failure will be retried after a backoff; the call stays running.
   *
   * @param snapshot the snapshot recording the retry
   */
  record RetryScheduled(ToolCallSnapshot snapshot) implements ToolCallEvent {
    /** Checks the snapshot. */
    public RetryScheduled {
      Objects.requireNonNull(snapshot, "snapshot");
    }

    /** The next attempt, the delay and the failure. */
    public Change.RetryScheduled change() {
      return (Change.RetryScheduled) snapshot.change();
    }
  }
}
