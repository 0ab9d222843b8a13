package dev.toolcall.conversation;

import java.util.Objects;

/**
 * What a guard of {@link TurnGuards} decided: a {@link Verdict} and, unless allowed, a message written for the model
 * (and shown to the user) saying what happened and what to do instead.
 *
 * @param verdict the decision
 * @param message the explanation; empty exactly when allowed
 */
public record GuardDecision(Verdict verdict, String message) {

  /** The decision that lets the request through. */
  public static final GuardDecision ALLOWED = new GuardDecision(Verdict.ALLOWED, "");

  /** The decisions. */
  public enum Verdict {
    /** Go on. */
    ALLOWED(false),
    /** The turn's total tool call limit is reached: this call fails with the message; the turn goes on. */
    OVER_TOTAL_LIMIT(false),
    /** The tool's own limit for the turn is reached: this call fails with the message; the turn goes on. */
    OVER_TOOL_LIMIT(false),
    /** The same tool with the same arguments, too many times in a row: the call is refused and the turn stops. */
    LOOP_DETECTED(true),
    /** The turn's model round trips are used up: no further request; the turn stops. */
    OVER_ROUND_TRIP_LIMIT(true);

    private final boolean endsTurn;

    Verdict(boolean endsTurn) {
      this.endsTurn = endsTurn;
    }

    /** Whether the turn stops (back to the user) rather than only the one call failing. */
    public boolean endsTurn() {
      return endsTurn;
    }
  }

  /** Checks that a message is present exactly when the request is refused. */
  public GuardDecision {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(message, "message");
    if ((verdict == Verdict.ALLOWED) != message.isEmpty()) {
      throw new IllegalArgumentException("message must be empty exactly when allowed; verdict " + verdict
          + ", message '" + message + "'");
    }
  }

  /** Whether the request may go on. */
  public boolean allowed() {
    return verdict == Verdict.ALLOWED;
  }

  /** Whether the turn stops. */
  public boolean endsTurn() {
    return verdict.endsTurn();
  }
}
