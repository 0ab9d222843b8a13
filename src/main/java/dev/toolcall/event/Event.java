package dev.toolcall.event;

import java.time.Instant;

/**
 * Something that happened to a tool call, to a conversation, or to the runtime's tool set. Events are immutable records of this
 * sealed hierarchy; each carries the id of what it happened to, its version there, and when.
 *
 * <p>Per source (one call or one conversation), every subscriber sees events in version order, each exactly once.
 * Events of different sources are not ordered with each other.
 */
public sealed interface Event permits ToolCallEvent, ConversationEvent, ToolSetEvent {

  /** The id of what this happened to: a call id, a conversation id, or {@link ToolSetEvent#SOURCE_ID}. */
  String sourceId();

  /** The session the source belongs to. */
  String sessionId();

  /** The source's version this event produced: 0 at creation, one more per event. */
  long version();

  /** When it happened, from the runtime's clock and ticker. */
  Instant timestamp();
}
