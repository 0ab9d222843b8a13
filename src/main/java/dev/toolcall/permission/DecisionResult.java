package dev.toolcall.permission;

import dev.toolcall.Change;
import dev.toolcall.Reason;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link PermissionService#decide} did. A decision that came too late is not an error: it gets {@link Lost},
 * which says what won. Immutable values.
 */
public sealed interface DecisionResult
    permits DecisionResult.Won, DecisionResult.Lost, DecisionResult.Stale, DecisionResult.UnknownRequest,
    DecisionResult.WrongRequest {

  /** The request id decided on. */
  String requestId();

  /** Whether the decision took effect. */
  default boolean won() {
    return this instanceof Won;
  }

  /**
   * The decision took effect.
   *
   * @param requestId the request
   * @param snapshot the call after it: PERMISSION_APPROVED, PERMISSION_DENIED, or for
   *     {@link Decision.ModifyAndAsk} still PERMISSION_PENDING with the new arguments
   * @param grant the grant written, for a won "approve for session" or "approve always"
   */
  record Won(String requestId, ToolCallSnapshot snapshot, Optional<Grant> grant) implements DecisionResult {
    /** Checks the parts. */
    public Won {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(snapshot, "snapshot");
      Objects.requireNonNull(grant, "grant");
    }
  }

  /**
   * Something else resolved the request first; nothing was changed by this decision.
   *
   * @param requestId the request
   * @param winnerState the state the call moved to when the request was resolved (approved, denied, cancelled)
   * @param winnerCause why: the winner's reason, e.g. {@code approved_once}, {@code permission_timeout},
   *     {@code cancelled}
   */
  record Lost(String requestId, ToolCallState winnerState, Reason winnerCause) implements DecisionResult {
    /** Checks the parts. */
    public Lost {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(winnerState, "winnerState");
      Objects.requireNonNull(winnerCause, "winnerCause");
    }

    /** The result describing how the request left PERMISSION_PENDING, as seen in {@code current}. */
    static Lost of(String requestId, ToolCallSnapshot current) {
      ToolCallSnapshot s = current;
      while (s.previous() != null && s.previousState() != ToolCallState.PERMISSION_PENDING) {
        s = s.previous();
      }
      if (s.previousState() == ToolCallState.PERMISSION_PENDING && s.state() != ToolCallState.PERMISSION_PENDING) {
        Change c = s.change();
        return new Lost(requestId, s.state(), c instanceof Reason r ? r : Reason.of("unknown", c.toString()));
      }
      Change c = current.change();
      return new Lost(requestId, current.state(), c instanceof Reason r ? r : Reason.of("unknown", c.toString()));
    }
  }

  /**
   * The arguments changed since the version the decision named; nothing was changed. Show the request again.
   *
   * @param requestId the request
   * @param decidedOn the version the decision named
   * @param current the request as it is now
   */
  record Stale(String requestId, int decidedOn, PermissionRequest current) implements DecisionResult {
    /** Checks the parts. */
    public Stale {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(current, "current");
    }
  }

  /**
   * No request with this id was ever opened by this service (or it was resolved so long ago that it is forgotten).
   *
   * @param requestId the id given
   */
  record UnknownRequest(String requestId) implements DecisionResult {
    /** Checks the parts. */
    public UnknownRequest {
      Objects.requireNonNull(requestId, "requestId");
    }
  }

  /**
   * The decision was made for another request ({@code decidedFor}) than the one it was given to: refused, nothing
   * changed. A UI that mixes up its requests gets this instead of approving a call nobody looked at.
   *
   * @param requestId the request the decision was given to
   * @param decidedFor the request the decision names
   */
  record WrongRequest(String requestId, String decidedFor) implements DecisionResult {
    /** Checks the parts. */
    public WrongRequest {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(decidedFor, "decidedFor");
    }
  }
}
