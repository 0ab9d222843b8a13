package dev.toolcall;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Who a tool call is: its call id, the id the provider sent for it (its label), the tool's name, the session it belongs to, the call it is
 * nested in (if any), and when it was created. Immutable.
 *
 * <p>{@code createdAt} is read once from the wall clock at creation; {@code createdTick} is the monotonic
 * {@link Ticker} reading taken at the same moment. Every later time of the call is {@code createdAt} plus the ticks
 * elapsed since, so a call needs one cheap tick per change and no further clock reads.
 *
 * @param callId the call's id in the library (non-blank, unique in its session): the provider's id when that was
 *     usable, else one the library minted (providers send blank, missing and per-response-numbered ids)
 * @param toolName the tool's name, as the model sent it (non-blank; it may name no registered tool)
 * @param sessionId the session (conversation) the call belongs to (non-blank)
 * @param parentCallId the enclosing call of a nested call, or null
 * @param createdAt wall-clock time of creation
 * @param createdTick ticker reading at creation
 * @param origin who asked for the call: the model, or the user with a command
 * @param label the id the provider sent for the call, exactly (empty when it sent none): the result goes back to the
 *     model under it. Equal to {@code callId} unless the library minted the id
 */
public record ToolCallIdentity(String callId, String toolName, String sessionId, String parentCallId,
    Instant createdAt, long createdTick, ToolCallOrigin origin, String label) {

  /** An identity whose label is its call id. */
  public ToolCallIdentity(String callId, String toolName, String sessionId, String parentCallId, Instant createdAt,
      long createdTick, ToolCallOrigin origin) {
    this(callId, toolName, sessionId, parentCallId, createdAt, createdTick, origin, callId);
  }

  /** An identity of a call the model asked for ({@link ToolCallOrigin#MODEL}). */
  public ToolCallIdentity(String callId, String toolName, String sessionId, String parentCallId, Instant createdAt,
      long createdTick) {
    this(callId, toolName, sessionId, parentCallId, createdAt, createdTick, ToolCallOrigin.MODEL);
  }

  /** Checks the ids: null or blank ids are programming errors. */
  public ToolCallIdentity {
    requireNonBlank(callId, "callId");
    requireNonBlank(toolName, "toolName");
    requireNonBlank(sessionId, "sessionId");
    if (parentCallId != null) {
      requireNonBlank(parentCallId, "parentCallId");
      if (parentCallId.equals(callId)) {
        throw new IllegalArgumentException("parentCallId must differ from callId '" + callId + "'");
      }
    }
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(origin, "origin");
    if (label == null) {
      label = callId;
    }
  }

  /** The enclosing call's id, for a nested call. */
  public Optional<String> parent() {
    return Optional.ofNullable(parentCallId);
  }

  /** The wall-clock instant of a ticker reading taken on this call. */
  public Instant instantOf(long tick) {
    return createdAt.plusNanos(tick - createdTick);
  }

  static String requireNonBlank(String value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return value;
  }
}
