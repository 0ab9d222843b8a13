package dev.toolcall;

import java.util.Objects;

/**
 * Thrown by a tool to fail the call with a message written for the model (never its stack trace or cause). What
 * kind of failure it is, {@link #kind()}, tells the model's mistake apart from the tool's:
 * <ul>
 *   <li>{@code new ToolException(message)}: the tool failed; the call ends FAILED with kind
 *       {@link FailureKind#TOOL_ERROR}. An agent built with {@code ToolFailurePolicy.FAIL_TURN} ends its turn on it.
 *   <li>{@link #invalidArguments(String)}: the model's arguments are wrong (a value out of range, a path that does
 *       not exist, a combination the schema cannot express); the call ends FAILED with kind
 *       {@link FailureKind#INVALID_ARGUMENTS}, like a call that failed schema validation. It is the model's mistake,
 *       not the tool's: it never ends a turn, whatever the failure policy; the model reads the message and may call
 *       again. {@link ToolArguments#as} throws this kind.
 *   <li>{@link TransientToolException} (retried per the tool's retry policy) and {@link OutcomeUnknownException}
 *       (kind {@link FailureKind#OUTCOME_UNKNOWN}) for the other cases.
 * </ul>
 * Immutable.
 */
public class ToolException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why the call fails; never null. */
  private final FailureKind kind;

  /** A failure of the tool ({@link FailureKind#TOOL_ERROR}) with a message for the model. */
  public ToolException(String message) {
    this(message, null, FailureKind.TOOL_ERROR);
  }

  /**
   * A failure of the tool ({@link FailureKind#TOOL_ERROR}) with a message for the model and its cause (the cause is
   * never shown to the model).
   */
  public ToolException(String message, Throwable cause) {
    this(message, cause, FailureKind.TOOL_ERROR);
  }

  ToolException(String message, Throwable cause, FailureKind kind) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /**
   * The model's arguments are wrong: the call ends FAILED with kind {@link FailureKind#INVALID_ARGUMENTS} and
   * {@code message}, which should tell the model what to send instead. Never retried, never ends a turn.
   *
   * @param message what was wrong, for the model
   * @return the exception to throw (or complete the tool's stage with)
   */
  public static ToolException invalidArguments(String message) {
    return new ToolException(message, null, FailureKind.INVALID_ARGUMENTS);
  }

  /**
   * {@link #invalidArguments(String)} with the cause that found it (never shown to the model).
   *
   * @param message what was wrong, for the model
   * @param cause what found it
   * @return the exception to throw (or complete the tool's stage with)
   */
  public static ToolException invalidArguments(String message, Throwable cause) {
    return new ToolException(message, cause, FailureKind.INVALID_ARGUMENTS);
  }

  /**
   * The kind of failure the call ends with: {@link FailureKind#TOOL_ERROR}, {@link FailureKind#INVALID_ARGUMENTS}
   * ({@link #invalidArguments}) or {@link FailureKind#OUTCOME_UNKNOWN} ({@link OutcomeUnknownException}).
   */
  public FailureKind kind() {
    return kind;
  }
}
