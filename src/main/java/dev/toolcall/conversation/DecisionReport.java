package dev.toolcall.conversation;

import java.util.Objects;

/**
 * What {@link Agent#resumeWith} did with one decision. Only {@link Status#ACCEPTED} changed anything; every other
 * status left the request, its call and the turn as they were. Immutable.
 *
 * @param requestId the request id the decision named
 * @param status what happened
 * @param message a sentence for the person or client that sent it (never null)
 */
public record DecisionReport(String requestId, Status status, String message) {

  /** Checks the parts. */
  public DecisionReport {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(message, "message");
  }

  /** Whether the decision took effect. */
  public boolean accepted() {
    return status == Status.ACCEPTED;
  }

  /** What happened to one decision. */
  public enum Status {
    /** The decision won: the request is resolved (or, for modify-and-ask, re-asked with the new arguments). */
    ACCEPTED,
    /** The arguments changed since the version the decision named; nothing changed. Show the request again. */
    STALE,
    /** The request was already resolved (a replay, another answer, its deadline, a cancel); nothing changed. */
    ALREADY_ANSWERED,
    /**
     * No open or recently resolved request with this id in this conversation: a forged id and another session's id
     * get this same answer, so ids cannot be probed. Nothing changed.
     */
    UNKNOWN_REQUEST,
    /** The edited arguments do not match the tool's schema; nothing changed. */
    INVALID_ARGUMENTS,
    /** The request does not allow this kind of decision; nothing changed. */
    NOT_ALLOWED,
    /** A second decision for the same request in one call; ignored. */
    DUPLICATE;

    /** The wire name: {@code accepted}, {@code stale}, ... */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
