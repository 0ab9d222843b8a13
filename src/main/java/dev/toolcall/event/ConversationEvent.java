package dev.toolcall.event;

import dev.toolcall.Reason;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import java.time.Instant;
import java.util.Objects;

/**
 * An event of one conversation: a typed view of the {@link ConversationSnapshot} that a change produced. One version,
 * one event: version 0 is the conversation's creation ({@link #isCreation()}), every later version a state change.
 *
 * <p>{@link #sourceId()} and {@link #sessionId()} are both the conversation id (a conversation is a session, and its
 * tool calls carry the same session id). Per conversation, every subscriber sees these events in version order, each
 * exactly once.
 *
 * @param snapshot the snapshot this event reports
 */
public record ConversationEvent(ConversationSnapshot snapshot) implements Event {

  /** Checks the snapshot. */
  public ConversationEvent {
    Objects.requireNonNull(snapshot, "snapshot");
  }

  /** The conversation id. */
  public String conversationId() {
    return snapshot.conversationId();
  }

  @Override
  public String sourceId() {
    return snapshot.conversationId();
  }

  @Override
  public String sessionId() {
    return snapshot.conversationId();
  }

  @Override
  public long version() {
    return snapshot.version();
  }

  @Override
  public Instant timestamp() {
    return snapshot.timestamp();
  }

  /** Whether this reports the creation (version 0, idle) rather than a state change. */
  public boolean isCreation() {
    return snapshot.version() == 0;
  }

  /** The state left, or null for the creation. */
  public ConversationState from() {
    return snapshot.previousState();
  }

  /** The state entered (the current one for the creation). */
  public ConversationState to() {
    return snapshot.state();
  }

  /** Why. */
  public Reason reason() {
    return snapshot.reason();
  }

  @Override
  public String toString() {
    return "ConversationEvent[" + snapshot.conversationId() + " v" + snapshot.version() + " "
        + (isCreation() ? "created " + to() : from() + " -> " + to()) + " by " + reason().code() + "]";
  }
}
