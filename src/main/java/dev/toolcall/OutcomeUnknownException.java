package dev.toolcall;


/**
 * Thrown by a tool that cannot tell whether its action took effect: for example a remote server that vanished
 * while the call ran. The call ends FAILED with kind {@link dev.toolcall.FailureKind#OUTCOME_UNKNOWN} and this
 * exception's message for the model, which should say that the action may or may not have happened. It is never
 * retried, whatever the retry policy.
 */
public class OutcomeUnknownException extends ToolException {
  private static final long serialVersionUID = 1L;

  /** A failure whose outcome is unknown, with a message for the model. */
  public OutcomeUnknownException(String message) {
    super(message, null, dev.toolcall.FailureKind.OUTCOME_UNKNOWN);
  }

  /** A failure whose outcome is unknown, with a message for the model and its cause (never shown to the model). */
  public OutcomeUnknownException(String message, Throwable cause) {
    super(message, cause, dev.toolcall.FailureKind.OUTCOME_UNKNOWN);
  }
}
