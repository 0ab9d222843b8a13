package dev.toolcall.event;

import java.time.Instant;

/**
 * Something that happened to a tool call (and, later, to a conversation). Events are immutable records of this
 * sealed hierarchy; each carries the id of what it happened to, its version there, and when.
 *
 * <p>Per source (one call), every subscriber sees events in version order, each exactly once. Events of different
 * sources are not ordered with each other.
 */
public sealed interface Event permits ToolCallEvent {

  /** The id of the call this happened to. */
  String sourceId();

  /** The session the source belongs to. */
  String sessionId();

  /** The source's version this event produced: 0 at creation, one more per event. */
  long version();

  /** When it happened, from the runtime's clock and ticker. */
  Instant timestamp();
}
