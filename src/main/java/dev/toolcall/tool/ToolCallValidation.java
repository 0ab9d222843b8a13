package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import java.util.Objects;

/**
 * What {@link ToolCallValidator} decided about one tool call: the {@link Valid tool and its arguments}, ready to
 * be approved and run, or why the call is {@link Invalid} and must end FAILED without the tool being entered.
 * Immutable and thread-safe.
 */
public sealed interface ToolCallValidation permits ToolCallValidation.Valid, ToolCallValidation.Invalid {

  /** Whether the call may go on. */
  default boolean isValid() {
    return this instanceof Valid;
  }

  /**
   * The call names a registered tool and its arguments are well-formed and match the tool's schema.
   *
   * @param tool the registered tool
   * @param definition the tool's definition as read at registration (use it, not {@code tool.definition()})
   * @param arguments the parsed arguments; {@link ToolArguments#raw()} is the text exactly as received
   */
  record Valid(Tool tool, ToolDefinition definition, ToolArguments arguments) implements ToolCallValidation {
    /** Checks the parts are present. */
    public Valid {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(definition, "definition");
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * The call cannot run.
   *
   * @param kind {@link FailureKind#UNKNOWN_TOOL}, {@link FailureKind#MALFORMED_ARGUMENTS},
   *     {@link FailureKind#ARGUMENTS_TOO_LARGE} or {@link FailureKind#INVALID_ARGUMENTS}
   * @param message for the model: what was wrong, where (line and column, or the JSON Pointer of the value), and
   *     what would be right; never a stack trace or a class name
   */
  record Invalid(FailureKind kind, String message) implements ToolCallValidation {
    /** Checks the parts are present. */
    public Invalid {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(message, "message");
    }

    /** The outcome the call ends FAILED with. */
    public Outcome.Failed toOutcome() {
      return new Outcome.Failed(kind, message);
    }
  }
}
