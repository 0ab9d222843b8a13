package dev.toolcall.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.ExecutionContext;
import com.networknt.schema.ExecutionContextCustomizer;
import com.networknt.schema.OutputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A tool's parameters schema, compiled once when its {@link ToolRegistry} is built (networknt json-schema-validator
 * 2.x). Immutable after construction and thread-safe: a compiled {@link Schema} keeps no per-validation state.
 *
 * <p>Schemas without {@code $schema} are read as JSON Schema 2020-12; drafts 4, 6, 7 and 2019-09 are honoured when
 * declared. A schema is first checked against its dialect's meta-schema, so a malformed schema (such as
 * {@code "type": 123}) is refused at build instead of failing every call later. References are resolved within the
 * schema and the bundled meta-schemas only: nothing is fetched from the network.
 */
final class ArgumentSchema {

  private final Schema schema;
  /**
   * The configuration each validation runs with, made once: the schema's own, with annotation collection off as
   * networknt's {@code OutputFormat.DEFAULT} sets it. Made per call, it cost a whole context (networknt's
   * {@code createExecutionContext()}) and a configuration builder; it is immutable, so one serves every call.
   */
  private final ExecutionConfig config;
  /**
   * The same schema compiled for the common subset ({@link CompiledSchema}), null when it uses more: answers
   * "valid" without networknt's per-call context; networknt still finds the problems of an invalid value.
   */
  private final CompiledSchema compiled;

  private static final Problems NONE = new Problems(List.of(), 0, false);

  /** The errors as the validation left them, as {@code OutputFormat.DEFAULT} gives them, without changing the config. */
  private static final OutputFormat<List<Error>> ERRORS = (schema, context, schemaContext) -> context.getErrors();

  private ArgumentSchema(Schema schema, JsonNode node) {
    this.schema = schema;
    this.compiled = CompiledSchema.compile(node);
    this.config = ExecutionConfig.builder(schema.createExecutionContext().getExecutionConfig())
        .annotationCollectionEnabled(false).build();
  }

  /** A compiler for one registry build: holds the networknt registry (and its loaded meta-schemas). */
  static final class Compiler {
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
        builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder()
            .pathType(PathType.JSON_POINTER)
            .build()));

    /**
     * Compiles {@code definition}'s parameters schema.
     *
     * @throws IllegalArgumentException naming the tool and what is wrong, if the schema is not a valid schema
     */
    ArgumentSchema compile(ToolDefinition definition) {
      return compile(definition.parameters(), definition.name(), "parameters schema");
    }

    /**
     * Compiles {@code definition}'s output schema; null when it has none.
     *
     * @throws IllegalArgumentException naming the tool and what is wrong, if the schema is not a valid schema
     */
    ArgumentSchema compileOutput(ToolDefinition definition) {
      JsonNode node = definition.outputSchema();
      return node == null ? null : compile(node, definition.name(), "output schema");
    }

    private ArgumentSchema compile(JsonNode node, String tool, String what) {
      JsonNode declared = node.get("$schema");
      // fromDialectId is in every json-schema-validator 2.0.x (fromSchemaNode only from 2.0.1 on)
      Optional<SpecificationVersion> version = declared != null && declared.isTextual()
          ? SpecificationVersion.fromDialectId(declared.asText()) : Optional.empty();
      if (declared != null && version.isEmpty()) {
        throw new IllegalArgumentException("the " + what + " of tool '" + tool + "' declares an unsupported "
            + "$schema " + declared + "; use one of the JSON Schema drafts 4, 6, 7, 2019-09 or 2020-12, or omit it"
            + " for 2020-12");
      }
      List<Error> problems;
      try {
        Schema meta = registry.getSchema(
            SchemaLocation.of(version.orElse(SpecificationVersion.DRAFT_2020_12).getDialectId()));
        problems = meta.validate(node);
      } catch (RuntimeException e) {
        throw cannotCompile(tool, what, e);
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException("the " + what + " of tool '" + tool + "' is not a valid JSON "
            + "Schema: " + describe(problems, 10));
      }
      try {
        Schema schema = registry.getSchema(node);
        schema.initializeValidators();
        return new ArgumentSchema(schema, node);
      } catch (RuntimeException e) {
        throw cannotCompile(tool, what, e);
      }
    }

    private static IllegalArgumentException cannotCompile(String tool, String what, RuntimeException e) {
      return new IllegalArgumentException("the " + what + " of tool '" + tool + "' cannot be compiled: "
          + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
    }
  }

  /** What validation found: the first problems (at most the cap), and how many there were in all. */
  static final class Problems {
    final List<String> shown;
    final int total;
    /** Whether {@link #total} is a lower bound (the validator stopped keeping errors). */
    final boolean atLeast;

    Problems(List<String> shown, int total, boolean atLeast) {
      this.shown = shown;
      this.total = total;
      this.atLeast = atLeast;
    }
  }

  /**
   * Validates {@code instance}; never throws. Each problem reads "at POINTER: what was expected", the pointer being
   * the JSON Pointer of the offending value ("the top level" for the whole value).
   */
  Problems validate(JsonNode instance, int cap) {
    // the instance is only read: callers may pass a tree they share (ToolCallValidator passes the parser's own)
    List<Error> errors;
    try {
      if (compiled != null && compiled.accepts(instance)) {
        return NONE;
      }
      CappedContext context = new CappedContext(config);
      errors = schema.validate(context, instance, ERRORS, (ExecutionContextCustomizer) null);
    } catch (RuntimeException | StackOverflowError e) {
      return new Problems(List.of("the arguments could not be checked against the schema (a value is too complex"
          + " to check); send simpler arguments"), 1, false);
    }
    List<String> shown = new ArrayList<>(Math.min(cap, errors.size()));
    for (int i = 0; i < errors.size() && i < cap; i++) {
      shown.add(line(errors.get(i)));
    }
    return new Problems(List.copyOf(shown), errors.size(), errors.size() >= CappedContext.MAX_ERRORS);
  }

  /**
   * Keeps at most {@link #MAX_ERRORS} errors in each error list the validator builds, so arguments with hundreds of
   * thousands of wrong values cost no more memory than a hundred errors. Applicators such as {@code anyOf} and
   * {@code not} only ask whether a list is empty, which a cap of at least one preserves.
   */
  private static final class CappedContext extends ExecutionContext {
    static final int MAX_ERRORS = 100;

    CappedContext(ExecutionConfig config) {
      super(config);
    }

    @Override
    public void addError(Error error) {
      List<Error> current = getErrors();
      if (current == null || current.size() < MAX_ERRORS) {
        super.addError(error);
      }
    }
  }

  private static String line(Error error) {
    String pointer = error.getInstanceLocation() == null ? "" : error.getInstanceLocation().toString();
    String where = pointer.isEmpty() ? "the top level" : ModelText.visible(pointer, 120, false);
    String message = error.getMessage() == null ? "is not valid" : error.getMessage();
    return "at " + where + ": " + ModelText.visible(message, 300, false);
  }

  private static String describe(List<Error> errors, int cap) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < errors.size() && i < cap; i++) {
      out.append(i == 0 ? "" : "; ").append(line(errors.get(i)));
    }
    if (errors.size() > cap) {
      out.append("; and ").append(errors.size() - cap).append(" more");
    }
    return out.toString();
  }
}
