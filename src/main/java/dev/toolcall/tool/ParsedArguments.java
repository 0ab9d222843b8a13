package dev.toolcall.tool;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import java.util.Objects;

/**
 * The result of reading a tool call's argument text with {@link ToolArguments#parse(String, ArgumentLimits)}:
 * either the {@link Ok arguments} or why the text was {@link Invalid refused}. Parsing never throws for any text;
 * this type carries the failure instead. Immutable and thread-safe.
 */
public sealed interface ParsedArguments permits ParsedArguments.Ok, ParsedArguments.Invalid {

  /** Whether the text was read into arguments. */
  default boolean isOk() {
    return this instanceof Ok;
  }

  /**
   * The text was read.
   *
   * @param arguments the arguments, whose {@link ToolArguments#raw()} is the text exactly as received
   */
  record Ok(ToolArguments arguments) implements ParsedArguments {
    /** Checks the arguments are present. */
    public Ok {
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * The text was refused.
   *
   * @param kind {@link FailureKind#MALFORMED_ARGUMENTS} (not JSON where JSON was begun, invalid Unicode, trailing
   *     text, duplicate keys, control characters in plain text) or {@link FailureKind#ARGUMENTS_TOO_LARGE} (beyond
   *     an {@link ArgumentLimits} limit)
   * @param message for the model: what is wrong, where (line and column, counted from 1), and what would be right;
   *     never a stack trace or a class name
   */
  record Invalid(FailureKind kind, String message) implements ParsedArguments {
    /** Checks the parts are present. */
    public Invalid {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(message, "message");
    }

    /** The failed outcome a call ends with for this failure. */
    public Outcome.Failed toOutcome() {
      return new Outcome.Failed(kind, message);
    }
  }
}
