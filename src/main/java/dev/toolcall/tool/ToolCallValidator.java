package dev.toolcall.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolcall.ToolArguments;
import dev.toolcall.ToolResult;
import dev.toolcall.FailureKind;
import java.util.Objects;
import java.util.Optional;

/**
 * The first step of running a tool call: checks that the model named a registered tool and sent arguments that are
 * well-formed, within the {@link ArgumentLimits}, and valid against the tool's parameters schema. It decides only;
 * it never enters a tool, never throws for anything the model sent, and keeps no state between calls.
 *
 * <p>Checks, in order, each ending the validation with a {@link ToolCallValidation.Invalid} at the first failure:
 * <ol>
 *   <li>the tool name matches a registered tool exactly, else {@link FailureKind#UNKNOWN_TOOL} with close matches
 *       ({@link ToolRegistry#unknownToolMessage});
 *   <li>the text parses ({@link ParsedArguments#parse(String, ArgumentLimits)}), else
 *       {@link FailureKind#MALFORMED_ARGUMENTS} or {@link FailureKind#ARGUMENTS_TOO_LARGE} with line and column;
 *   <li>the JSON value of the arguments ({@link ToolArguments#asJson()}, so plain text and string lists too) matches
 *       the schema compiled at registry build, else {@link FailureKind#INVALID_ARGUMENTS} listing each problem's
 *       JSON Pointer and what was expected, at most {@value #MAX_REPORTED_PROBLEMS}, then how many more.
 * </ol>
 *
 * <p>Immutable and thread-safe: one validator serves every thread. Typical use in a scheduler:
 * <pre>{@code
 * ToolCallValidation v = validator.validate(call.toolName(), rawArgumentText);
 * if (v instanceof ToolCallValidation.Valid valid) {
 *   // ask permission for valid.tool() with valid.arguments(), then run
 * } else {
 *   ToolCallValidation.Invalid invalid = (ToolCallValidation.Invalid) v;
 *   // end the call FAILED with invalid.toOutcome()
 * }
 * }</pre>
 */
public final class ToolCallValidator {

  /** The most schema problems listed in one message. */
  public static final int MAX_REPORTED_PROBLEMS = 10;

  private final ToolRegistry registry;
  private final ArgumentParser parser;

  private ToolCallValidator(ToolRegistry registry, ArgumentLimits limits) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.parser = ArgumentParser.forLimits(Objects.requireNonNull(limits, "limits"));
  }

  /** A validator for {@code registry} with {@link ArgumentLimits#DEFAULT}. */
  public static ToolCallValidator of(ToolRegistry registry) {
    return new ToolCallValidator(registry, ArgumentLimits.DEFAULT);
  }

  /** A validator for {@code registry} with {@code limits}. */
  public static ToolCallValidator of(ToolRegistry registry, ArgumentLimits limits) {
    return new ToolCallValidator(registry, limits);
  }

  /** The registry whose tools this validator accepts. */
  public ToolRegistry registry() {
    return registry;
  }

  /** The parsing limits. */
  public ArgumentLimits limits() {
    return parser.limits();
  }

  /**
   * Validates a call as the model sent it.
   *
   * @param toolName the tool name as the model sent it; null or empty is an unknown tool
   * @param rawArguments the argument text exactly as received; null or blank means no arguments (the empty object)
   * @return the tool and parsed arguments, or the failure with its message for the model; never throws
   */
  public ToolCallValidation validate(String toolName, String rawArguments) {
    try {
      ToolRegistry.Entry entry = registry.entry(toolName);
      if (entry == null) {
        return new ToolCallValidation.Invalid(FailureKind.UNKNOWN_TOOL, registry.unknownToolMessage(toolName));
      }
      String raw = rawArguments == null ? "" : rawArguments;
      Object read = parser.readTree(raw);
      if (read instanceof JsonNode) {
        // the parser's fresh tree: the schema reads it, the arguments keep their own copy of it
        JsonNode tree = (JsonNode) read;
        return check(entry, ArgumentParser.form(raw, tree), tree);
      }
      if (read instanceof ParsedArguments.Invalid) {
        ParsedArguments.Invalid invalid = (ParsedArguments.Invalid) read;
        return new ToolCallValidation.Invalid(invalid.kind(), invalid.message());
      }
      return check(entry, ((ParsedArguments.Ok) read).arguments());
    } catch (RuntimeException | StackOverflowError e) {
      return unexpected();
    }
  }

  /**
   * Validates arguments that are already parsed, for example arguments that a person edited or an interceptor
   * replaced: the tool name must be registered and {@link ToolArguments#asJson()} must match its schema. The
   * parsing limits are not applied again (the arguments were not read from text here).
   *
   * @param toolName the tool name; null or empty is an unknown tool
   * @param arguments the arguments; null is the empty object
   * @return the tool and these arguments, or the failure with its message for the model; never throws
   */
  public ToolCallValidation validate(String toolName, ToolArguments arguments) {
    try {
      ToolRegistry.Entry entry = registry.entry(toolName);
      if (entry == null) {
        return new ToolCallValidation.Invalid(FailureKind.UNKNOWN_TOOL, registry.unknownToolMessage(toolName));
      }
      return check(entry, arguments == null ? ToolArguments.empty() : arguments);
    } catch (RuntimeException | StackOverflowError e) {
      return unexpected();
    }
  }

  private static ToolCallValidation check(ToolRegistry.Entry entry, ToolArguments arguments) {
    return check(entry, arguments, arguments.asJson());
  }

  /** Checks {@code json}, the JSON value of {@code arguments} (only read here), against the tool's schema. */
  private static ToolCallValidation check(ToolRegistry.Entry entry, ToolArguments arguments, JsonNode json) {
    ArgumentSchema.Problems problems = entry.schema.validate(json, MAX_REPORTED_PROBLEMS);
    if (problems.total == 0) {
      return new ToolCallValidation.Valid(entry.tool, entry.definition, arguments);
    }
    StringBuilder m = new StringBuilder("The arguments do not match the parameters schema of tool '")
        .append(entry.definition.name()).append("' (")
        .append(problems.total).append(problems.atLeast ? " or more problems):"
            : problems.total == 1 ? " problem):" : " problems):");
    for (String line : problems.shown) {
      m.append("\n- ").append(line);
    }
    if (problems.total > problems.shown.size()) {
      m.append("\n- and ").append(problems.total - problems.shown.size())
          .append(problems.atLeast ? " or more" : " more");
    }
    if (arguments instanceof ToolArguments.Text && !startsQuoted(arguments.raw())) {
      m.append("\nThe arguments were not JSON, so they were read as one plain string.");
    }
    m.append("\nSend arguments that match the schema.");
    return new ToolCallValidation.Invalid(FailureKind.INVALID_ARGUMENTS, m.toString());
  }

  /** A validator with this one's limits for {@code registry} (a changed tool set). */
  public ToolCallValidator withRegistry(ToolRegistry registry) {
    return new ToolCallValidator(registry, parser.limits());
  }

  /**
   * Checks what {@code tool} returned against its output schema, when its definition declares one: the result must
   * carry a {@linkplain ToolResult#structured() structured value} that matches. Uses the schema compiled at registry
   * build when {@code tool} is this registry's, else compiles the tool's own (a tool replaced while its call ran).
   *
   * @return empty when the result may complete the call; else the failure ({@link FailureKind#TOOL_ERROR}) with
   *     the problems, for the model; never throws
   */
  public Optional<ToolCallValidation.Invalid> validateResult(Tool tool, ToolResult result) {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(result, "result");
    try {
      ToolRegistry.Entry entry = registry.entry(tool.name());
      ArgumentSchema schema;
      String name;
      if (entry != null && entry.tool == tool) {
        schema = entry.outputSchema;
        name = entry.definition.name();
      } else {
        ToolDefinition d = tool.definition();
        schema = new ArgumentSchema.Compiler().compileOutput(d);
        name = d.name();
      }
      if (schema == null) {
        return Optional.empty();
      }
      if (result.structured().isEmpty()) {
        return Optional.of(new ToolCallValidation.Invalid(FailureKind.TOOL_ERROR, "The tool '" + name
            + "' declares an output schema but returned no structured result."));
      }
      ArgumentSchema.Problems problems = schema.validate(result.structured().get(), MAX_REPORTED_PROBLEMS);
      if (problems.total == 0) {
        return Optional.empty();
      }
      StringBuilder m = new StringBuilder("The structured result of tool '").append(name)
          .append("' does not match its output schema (").append(problems.total)
          .append(problems.atLeast ? " or more problems):" : problems.total == 1 ? " problem):" : " problems):");
      for (String line : problems.shown) {
        m.append("\n- ").append(line);
      }
      if (problems.total > problems.shown.size()) {
        m.append("\n- and ").append(problems.total - problems.shown.size()).append(" more");
      }
      return Optional.of(new ToolCallValidation.Invalid(FailureKind.TOOL_ERROR, m.toString()));
    } catch (RuntimeException | StackOverflowError e) {
      return Optional.of(new ToolCallValidation.Invalid(FailureKind.TOOL_ERROR,
          "The tool's structured result could not be checked against its output schema."));
    }
  }

  private static boolean startsQuoted(String raw) {
    return raw.strip().startsWith("\"");
  }

  private static ToolCallValidation unexpected() {
    return new ToolCallValidation.Invalid(FailureKind.INVALID_ARGUMENTS,
        "The arguments could not be checked. Send simpler arguments that match the tool's parameters schema.");
  }
}
