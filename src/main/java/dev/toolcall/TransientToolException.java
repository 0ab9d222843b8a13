package dev.toolcall;


/**
 * Thrown (or completed exceptionally with) by a tool whose failure may succeed on a retry: a rate limit, a network
 * blip. The tool's {@link dev.toolcall.tool.RetryPolicy} decides whether and when; the message is what the model is told if the
 * retries run out.
 */
public class TransientToolException extends ToolException {
  private static final long serialVersionUID = 1L;

  /** A transient failure with a message for the model. */
  public TransientToolException(String message) {
    super(message);
  }

  /** A transient failure with a message for the model and its cause (the cause is never shown to the model). */
  public TransientToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
