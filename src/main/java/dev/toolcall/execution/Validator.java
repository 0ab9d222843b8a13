package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolArguments;
import java.util.Objects;

/** Finds the tool a request names and checks its arguments; never throws for anything a model produced. */
interface Validator {

  /** Looks up {@code toolName} and parses and checks {@code rawArguments}. */
  Validation validate(String toolName, String rawArguments);

  /** Checks replaced or edited {@code arguments} against {@code tool}'s schema. */
  Validation revalidate(Tool tool, ToolArguments arguments);

  /** The outcome of validation. */
  sealed interface Validation permits Valid, Invalid {}

  /** The tool and its parsed arguments. */
  record Valid(Tool tool, ToolArguments arguments) implements Validation {
    public Valid {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * What was wrong, for the model; {@code tool} is null when the name matched none and {@code arguments} holds the
   * raw text as given.
   */
  record Invalid(FailureKind kind, String message, Tool tool, ToolArguments arguments) implements Validation {
    public Invalid {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(arguments, "arguments");
    }
  }
}
