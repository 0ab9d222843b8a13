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

  /**
   * The report of what {@link dev.toolcall.permission.PermissionService#decide} answered: {@code Won} is
   * {@link Status#ACCEPTED}; {@code Lost} (the request was resolved before: another decision, its deadline, a
   * cancel) is {@link Status#ALREADY_ANSWERED}, naming what won; {@code Stale} is {@link Status#STALE} with both
   * versions; {@code UnknownRequest} and {@code WrongRequest} are {@link Status#UNKNOWN_REQUEST}. The message is a
   * sentence for a person; it holds no arguments, snapshots or internal counters.
   *
   * @throws NullPointerException if {@code result} is null
   */
  public static DecisionReport of(dev.toolcall.permission.DecisionResult result) {
    java.util.Objects.requireNonNull(result, "result");
    String id = result.requestId();
    if (result instanceof dev.toolcall.permission.DecisionResult.Won) {
      return new DecisionReport(id, Status.ACCEPTED, "Applied.");
    } else if (result instanceof dev.toolcall.permission.DecisionResult.Lost l) {
      return new DecisionReport(id, Status.ALREADY_ANSWERED, "Not applied: the request was already resolved ("
          + l.winnerState().wireName() + ", " + l.winnerCause().code() + ").");
    } else if (result instanceof dev.toolcall.permission.DecisionResult.Stale s) {
      return stale(id, s.decidedOn(), s.current().argumentsVersion());
    }
    return new DecisionReport(id, Status.UNKNOWN_REQUEST, "Not applied: no such request is open.");
  }

  /** A {@link Status#STALE} report. */
  static DecisionReport stale(String id, int decidedOn, int current) {
    return new DecisionReport(id, Status.STALE, "Not applied: the decision was made on arguments version "
        + decidedOn + " but they are now version " + current + "; look at them again.");
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
