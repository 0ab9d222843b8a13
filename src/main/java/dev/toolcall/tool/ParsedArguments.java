package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import java.util.Objects;

/**
 * The result of reading a tool call's argument text with {@link #parse(String, ArgumentLimits)}:
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

  /**
   * Reads the text a model sent, under {@link ArgumentLimits#DEFAULT}. See {@link #parse(String, ArgumentLimits)}.
   *
   * @param raw the argument text exactly as received; null reads as no arguments, like {@code ""}
   * @return the arguments, or why they were refused; never throws
   */
  static ParsedArguments parse(String raw) {
    return parse(raw, ArgumentLimits.DEFAULT);
  }

  /**
   * Reads the text a model sent into one of the three forms (see {@link ToolArguments}), keeping {@code raw}
   * byte for byte as {@link ToolArguments#raw()}. Safe for any input: every failure is returned as a
   * {@link ParsedArguments.Invalid} of kind {@link dev.toolcall.FailureKind#MALFORMED_ARGUMENTS} or
   * {@link dev.toolcall.FailureKind#ARGUMENTS_TOO_LARGE} with a message for the model that gives the line and
   * column. Thread-safe.
   *
   * @param raw the argument text exactly as received; null reads as no arguments, like {@code ""}
   * @param limits the parsing limits
   * @return the arguments, or why they were refused; never throws for any {@code raw}
   * @throws NullPointerException if {@code limits} is null (a programming error)
   */
  static ParsedArguments parse(String raw, ArgumentLimits limits) {
    Objects.requireNonNull(limits, "limits");
    return ArgumentParser.forLimits(limits).parse(raw);
  }
}
