package dev.toolcall.permission;

import dev.toolcall.tool.ToolArguments;
import java.time.Duration;
import java.util.Objects;

/**
 * A person's answer to a {@link PermissionRequest}. Every decision names the {@link #argumentsVersion()} it was
 * made on; the service refuses it ({@link DecisionResult.Stale}) when the arguments changed since, so nothing is
 * approved that its approver did not see. Build them with the static factories, which take the version from the
 * request shown. Immutable values.
 */
public sealed interface Decision
    permits Decision.ApproveOnce, Decision.ApproveForSession, Decision.ApproveAlways, Decision.ApproveModified,
    Decision.ModifyAndAsk, Decision.Deny {

  /** The arguments version this decision was made on. */
  int argumentsVersion();

  /** Approve this call only. */
  static ApproveOnce approveOnce(PermissionRequest request) {
    return new ApproveOnce(request.argumentsVersion());
  }

  /** Approve this call and later calls of the same tool in the same session, whatever their arguments. */
  static ApproveForSession approveForSession(PermissionRequest request) {
    return new ApproveForSession(request.argumentsVersion(), ArgumentPattern.ANY);
  }

  /** Approve this call and later calls of the same tool in the same session whose arguments match {@code pattern}. */
  static ApproveForSession approveForSession(PermissionRequest request, ArgumentPattern pattern) {
    return new ApproveForSession(request.argumentsVersion(), pattern);
  }

  /** Approve this call and store a grant for every later call of this tool, with no expiry. */
  static ApproveAlways approveAlways(PermissionRequest request) {
    return new ApproveAlways(request.argumentsVersion(), ArgumentPattern.ANY, null);
  }

  /** Approve this call and store a grant for later calls matching {@code pattern}, expiring after {@code expiry}. */
  static ApproveAlways approveAlways(PermissionRequest request, ArgumentPattern pattern, Duration expiry) {
    return new ApproveAlways(request.argumentsVersion(), pattern, Objects.requireNonNull(expiry, "expiry"));
  }

  /** Approve the call with {@code arguments} in place of the ones shown. */
  static ApproveModified approveModified(PermissionRequest request, ToolArguments arguments) {
    return new ApproveModified(request.argumentsVersion(), arguments);
  }

  /** Replace the arguments and keep asking (the request stays, with a new arguments version). */
  static ModifyAndAsk modifyAndAsk(PermissionRequest request, ToolArguments arguments) {
    return new ModifyAndAsk(request.argumentsVersion(), arguments);
  }

  /** Deny the call; {@code reasonForModel} (may be empty) is passed on to the model. */
  static Deny deny(PermissionRequest request, String reasonForModel) {
    return new Deny(request.argumentsVersion(), reasonForModel);
  }

  /**
   * Approve this call only.
   *
   * @param argumentsVersion the version decided on
   */
  record ApproveOnce(int argumentsVersion) implements Decision {}

  /**
   * Approve this call and, for the rest of the session, later calls of the same tool whose arguments match.
   *
   * @param argumentsVersion the version decided on
   * @param arguments which later arguments are covered
   */
  record ApproveForSession(int argumentsVersion, ArgumentPattern arguments) implements Decision {
    /** Checks the parts. */
    public ApproveForSession {
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * Approve this call and store a grant (in the {@link GrantStore}) for later calls of the same tool whose
   * arguments match. The grant is written only if this decision wins.
   *
   * @param argumentsVersion the version decided on
   * @param arguments which later arguments are covered
   * @param expiry how long the grant lasts; null for ever
   */
  record ApproveAlways(int argumentsVersion, ArgumentPattern arguments, Duration expiry) implements Decision {
    /** Checks the parts: the expiry, when given, must be positive. */
    public ApproveAlways {
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
   * @param argumentsVersion the version decided on
   * @param arguments the arguments to run with
   */
  record ApproveModified(int argumentsVersion, ToolArguments arguments) implements Decision {
    /** Checks the parts. */
    public ApproveModified {
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * Replace the arguments and ask again: an arguments-modified event and a version bump, not a state change. The
   * request stays in the queue, in its place, with the new version and the same deadline.
   *
   * @param argumentsVersion the version decided on
   * @param arguments the new arguments
   */
  record ModifyAndAsk(int argumentsVersion, ToolArguments arguments) implements Decision {
    /** Checks the parts. */
    public ModifyAndAsk {
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * Deny the call.
   *
   * @param argumentsVersion the version decided on
   * @param reasonForModel why, in words for the model (may be empty)
   */
  record Deny(int argumentsVersion, String reasonForModel) implements Decision {
    /** Checks the parts. */
    public Deny {
      Objects.requireNonNull(reasonForModel, "reasonForModel");
    }
  }
}
