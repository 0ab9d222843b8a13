package dev.toolcall.tool;

/**
 * Thrown by a tool to fail the call with a message written for the model. The call ends FAILED with kind
 * {@link dev.toolcall.FailureKind#TOOL_ERROR} and this exception's message (never its stack trace or cause).
 */
public class ToolException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A failure with a message for the model. */
  public ToolException(String message) {
    super(message);
  }

  /** A failure with a message for the model and its cause (the cause is never shown to the model). */
  public ToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
