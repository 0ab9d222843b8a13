package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import java.util.Objects;

/** Finds the tool a request names and checks its arguments; never throws for anything a model produced. */
interface Validator {

  /** Looks up {@code toolName} and parses and checks {@code rawArguments}. */
  Validation validate(String toolName, String rawArguments);

  /** Checks replaced or edited {@code arguments} against {@code tool}'s schema. */
  Validation revalidate(Tool tool, ToolArguments arguments);

  /** Checks {@code result} against {@code tool}'s output schema: null when it may complete the call, else why not. */
  default Invalid checkResult(Tool tool, dev.toolcall.ToolResult result) {
    return null;
  }

  /** The tool's own name for {@code toolName}, which may be a model name (an alias). */
  default String canonicalName(String toolName) {
    return toolName;
  }

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
