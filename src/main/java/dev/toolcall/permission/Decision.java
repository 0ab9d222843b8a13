package dev.toolcall.permission;

import dev.toolcall.ToolArguments;
import java.time.Duration;
import java.util.Objects;

/**
 * A person's answer to a {@link PermissionRequest}. Every decision is bound to the request it was made for: it names
 * that request's {@link #requestId()} (a request id names exactly one call of one service), and the
 * {@link #argumentsVersion()} it was made on. The service refuses a decision given for another request
 * ({@link DecisionResult.WrongRequest}) and one made on arguments that changed since ({@link DecisionResult.Stale}),
 * so nothing is approved that its approver did not see. Build them with the static factories, which take both from
 * the request shown. Immutable values.
 */
public sealed interface Decision
    permits Decision.ApproveOnce, Decision.ApproveForSession, Decision.ApproveAlways, Decision.ApproveModified,
    Decision.ModifyAndAsk, Decision.Deny {

  /** The request this decision was made for. */
  String requestId();

  /** The arguments version this decision was made on. */
  int argumentsVersion();

  /** Approve this call only. */
  static ApproveOnce approveOnce(PermissionRequest request) {
    return new ApproveOnce(request.requestId(), request.argumentsVersion());
  }

  /** Approve this call and later calls of the same tool in the same session, whatever their arguments. */
  static ApproveForSession approveForSession(PermissionRequest request) {
    return new ApproveForSession(request.requestId(), request.argumentsVersion(), ArgumentPattern.ANY);
  }

  /** Approve this call and later calls of the same tool in the same session whose arguments match {@code pattern}. */
  static ApproveForSession approveForSession(PermissionRequest request, ArgumentPattern pattern) {
    return new ApproveForSession(request.requestId(), request.argumentsVersion(), pattern);
  }

  /** Approve this call and store a grant for every later call of this tool, with no expiry. */
  static ApproveAlways approveAlways(PermissionRequest request) {
    return new ApproveAlways(request.requestId(), request.argumentsVersion(), ArgumentPattern.ANY, null);
  }

  /** Approve this call and store a grant for later calls matching {@code pattern}, expiring after {@code expiry}. */
  static ApproveAlways approveAlways(PermissionRequest request, ArgumentPattern pattern, Duration expiry) {
    return new ApproveAlways(request.requestId(), request.argumentsVersion(), pattern,
        Objects.requireNonNull(expiry, "expiry"));
  }

  /** Approve the call with {@code arguments} in place of the ones shown. */
  static ApproveModified approveModified(PermissionRequest request, ToolArguments arguments) {
    return new ApproveModified(request.requestId(), request.argumentsVersion(), arguments);
  }

  /** Replace the arguments and keep asking (the request stays, with a new arguments version). */
  static ModifyAndAsk modifyAndAsk(PermissionRequest request, ToolArguments arguments) {
    return new ModifyAndAsk(request.requestId(), request.argumentsVersion(), arguments);
  }

  /** Deny the call; {@code reasonForModel} (may be empty) is passed on to the model. */
  static Deny deny(PermissionRequest request, String reasonForModel) {
    return new Deny(request.requestId(), request.argumentsVersion(), reasonForModel);
  }

  /**
   * Approve this call only.
   *
   * @param requestId the request decided on
   * @param argumentsVersion the version decided on
   */
  record ApproveOnce(String requestId, int argumentsVersion) implements Decision {
    /** Checks the parts. */
    public ApproveOnce {
      Objects.requireNonNull(requestId, "requestId");
    }
  }

  /**
   * Approve this call and, for the rest of the session, later calls of the same tool whose arguments match.
   *
   * @param requestId the request decided on
   * @param argumentsVersion the version decided on
   * @param arguments which later arguments are covered
   */
  record ApproveForSession(String requestId, int argumentsVersion, ArgumentPattern arguments) implements Decision {
    /** Checks the parts. */
    public ApproveForSession {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * Approve this call and store a grant (in the {@link GrantStore}) for later calls of the same tool whose
   * arguments match. The grant is written only if this decision wins.
   *
   * @param requestId the request decided on
   * @param argumentsVersion the version decided on
   * @param arguments which later arguments are covered
   * @param expiry how long the grant lasts; null for ever
   */
  record ApproveAlways(String requestId, int argumentsVersion, ArgumentPattern arguments, Duration expiry)
      implements Decision {
    /** Checks the parts: the expiry, when given, must be positive. */
    public ApproveAlways {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(arguments, "arguments");
      if (expiry != null && (expiry.isZero() || expiry.isNegative())) {
        throw new IllegalArgumentException("expiry must be positive (or null for no expiry), was " + expiry);
      }
    }
  }

  /**
   * Approve the call with other arguments: the arguments are replaced (an arguments-modified event) and the call is
   * approved with exactly them.
   *
   * @param requestId the request decided on
   * @param argumentsVersion the version decided on
   * @param arguments the arguments to run with
   */
  record ApproveModified(String requestId, int argumentsVersion, ToolArguments arguments) implements Decision {
    /** Checks the parts. */
    public ApproveModified {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * Replace the arguments and ask again: an arguments-modified event and a version bump, not a state change. The
   * request stays in the queue, in its place, with the new version and the same deadline.
   *
   * @param requestId the request decided on
   * @param argumentsVersion the version decided on
   * @param arguments the new arguments
   */
  record ModifyAndAsk(String requestId, int argumentsVersion, ToolArguments arguments) implements Decision {
    /** Checks the parts. */
    public ModifyAndAsk {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * Deny the call.
   *
   * @param requestId the request decided on
   * @param argumentsVersion the version decided on
   * @param reasonForModel why, in words for the model (may be empty)
   */
  record Deny(String requestId, int argumentsVersion, String reasonForModel) implements Decision {
    /** Checks the parts. */
    public Deny {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(reasonForModel, "reasonForModel");
    }
  }
}
