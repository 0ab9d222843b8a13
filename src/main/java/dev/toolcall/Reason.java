package dev.toolcall;

import java.util.Objects;

/**
 * Why a call moved between states: a short stable code (for logs, metrics and tests) and a human-readable message.
 * The constants cover the library's own causes; runtimes may make their own with {@link #of}.
 *
 * @param code a stable lower-case code such as {@code permission_required}
 * @param message a human-readable explanation (may be empty)
 */
public record Reason(String code, String message) implements Change {

  /** A call needs a decision before it may run. */
  public static final Reason PERMISSION_REQUIRED = new Reason("permission_required", "permission required");
  /** The tool needs no approval. */
  public static final Reason NO_PERMISSION_NEEDED = new Reason("no_permission_needed", "no permission needed");
  /** A person approved this call once. */
  public static final Reason APPROVED_ONCE = new Reason("approved_once", "approved by the user");
  /** A person approved the tool for the rest of the session. */
  public static final Reason APPROVED_FOR_SESSION = new Reason("approved_session", "approved for the session");
  /** A person approved the tool always (a stored grant). */
  public static final Reason APPROVED_ALWAYS = new Reason("approved_always", "approved always");
  /** A rule, grant or approval mode allowed the call without asking. */
  public static final Reason AUTO_APPROVED = new Reason("auto_approved", "auto-approved");
  /** A version rebuilt from a runtime snapshot by {@link dev.toolcall.runtime.ToolCallRuntime#restore} (a state change it had made). */
  public static final Reason RESTORED = new Reason("restored", "restored from a runtime snapshot");
  /**
   * A version another runtime stored (runtimes sharing a {@link SharedCallStore}), adopted here: the state change it
   * made, which this runtime's listeners see after the fact.
   */
  public static final Reason CHANGED_ELSEWHERE = new Reason("changed_elsewhere",
      "changed by another runtime sharing the store");
  /** Execution begins. */
  public static final Reason STARTED = new Reason("started", "execution started");
  /**
   * RUNNING only to validate the call (an unknown tool, malformed or invalid arguments, edited arguments that no
   * longer fit): the tool is not entered, and FAILED follows. {@link ToolCallSnapshot#toolStarted()} tells the two
   * kinds of RUNNING apart for a UI.
   */
  public static final Reason VALIDATING = new Reason("validating", "validating the call");
  /** The tool returned a result. */
  public static final Reason SUCCEEDED = new Reason("succeeded", "tool succeeded");
  /** The call failed. */
  public static final Reason FAILED = new Reason("failed", "tool failed");
  /** A person denied the call. */
  public static final Reason DENIED_BY_USER = new Reason("denied_user", "denied by the user");
  /** A policy rule denied the call. */
  public static final Reason DENIED_BY_POLICY = new Reason("denied_policy", "denied by policy");
  /** Nobody answered the permission request before its deadline. */
  public static final Reason PERMISSION_TIMEOUT = new Reason("permission_timeout", "nobody answered in time");
  /** The call was cancelled. */
  public static final Reason CANCELLED = new Reason("cancelled", "cancelled");

  /** Checks the parts: a blank code is a programming error. */
  public Reason {
    ToolCallIdentity.requireNonBlank(code, "code");
    Objects.requireNonNull(message, "message");
  }

  /** A reason of the runtime's own. */
  public static Reason of(String code, String message) {
    return new Reason(code, message);
  }

  /** The same code with another message. */
  public Reason withMessage(String message) {
    return new Reason(code, message);
  }
}
