package dev.toolcall.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the model is told about a tool and how the runtime treats it. Immutable; build with {@link #builder}.
 *
 * @param name 1 to 128 ASCII letters, digits, {@code _}, {@code -}, {@code .} or {@code /} (what MCP allows); a name
 *     that model providers would reject ({@code .}, {@code /}, or longer than 64) is sent to the model under an
 *     alias, see {@link ToolRegistry#modelName(String)}
 * @param description what the tool does, for the model
 * @param parameters the JSON Schema of the arguments (default: any object)
 * @param requiresApproval whether a call needs permission before running (default true)
 * @param readOnly whether the tool has no side effects, so calls may run in parallel (default false)
 * @param idempotent whether running twice is as running once, so it may be retried after a timeout (default false)
 * @param timeout how long one attempt may run; null for the runtime's default
 * @param permissionTimeout how long a permission request may wait; null for the runtime's default
 * @param retryPolicy how transient failures are retried (default {@link RetryPolicy#NONE})
 * @param returnDirect whether the call's result ends the turn instead of going back to the model (default false)
 * @param outputSchema the JSON Schema of the tool's {@linkplain dev.toolcall.ToolResult#structured() structured result}, or null
 *     when it declares none; when set, every result must carry a structured value that matches it
 */
public record ToolDefinition(String name, String description, JsonNode parameters, boolean requiresApproval,
    boolean readOnly, boolean idempotent, Duration timeout, Duration permissionTimeout, RetryPolicy retryPolicy,
    boolean returnDirect, JsonNode outputSchema) {

  /** The names a tool may have: what MCP allows. */
  public static final Pattern NAME = Pattern.compile("^[a-zA-Z0-9_./-]{1,128}$");

  /** The names model providers accept (OpenAI's rule, the strictest of the major providers). */
  public static final Pattern MODEL_NAME = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

  /** Checks every part and names the one that is wrong. */
  public ToolDefinition {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("tool name '" + name + "' must match " + NAME.pattern()
          + " (1 to 128 ASCII letters, digits, '_', '-', '.' or '/')");
    }
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(parameters, "parameters");
    if (!parameters.isObject()) {
      throw new IllegalArgumentException("parameters of tool '" + name + "' must be a JSON Schema object, was "
          + parameters.getNodeType());
    }
    parameters = parameters.deepCopy();
    requirePositive(timeout, "timeout");
    requirePositive(permissionTimeout, "permissionTimeout");
    Objects.requireNonNull(retryPolicy, "retryPolicy");
    if (outputSchema != null) {
      if (!outputSchema.isObject()) {
        throw new IllegalArgumentException("output schema of tool '" + name + "' must be a JSON Schema object, was "
            + outputSchema.getNodeType());
      }
      outputSchema = outputSchema.deepCopy();
    }
  }

  /** A definition without an output schema (the form before output schemas existed). */
  public ToolDefinition(String name, String description, JsonNode parameters, boolean requiresApproval,
      boolean readOnly, boolean idempotent, Duration timeout, Duration permissionTimeout, RetryPolicy retryPolicy,
      boolean returnDirect) {
    this(name, description, parameters, requiresApproval, readOnly, idempotent, timeout, permissionTimeout,
        retryPolicy, returnDirect, null);
  }

  private static void requirePositive(Duration d, String name) {
    if (d != null && (d.isNegative() || d.isZero())) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
  }

  /**
   * Reads a definition from the JSON form model providers use for function tools: the flat form
   * ({@code {"type":"function","name":..,"description":..,"parameters":{..}}}), the nested chat-completions form
   * ({@code {"type":"function","function":{..}}}) or Anthropic's ({@code input_schema}). As in seed 03,
   * {@code requires_approval} is true when absent; {@code read_only}, {@code idempotent} and {@code return_direct}
   * are false when absent; {@code output_schema} (or MCP's {@code outputSchema}), {@code timeout},
   * {@code permission_timeout} (ISO-8601 durations) and {@code retry_policy} are read when present; other fields are
   * ignored.
   *
   * @throws IllegalArgumentException naming the field, when the JSON is malformed, the name is missing or invalid, or
   *     a known field has the wrong type
   */
  public static ToolDefinition fromJson(String json) {
    Objects.requireNonNull(json, "json");
    return ToolDefinitionJson.read(ToolDefinitionJson.parse(json, "the tool definition"));
  }

  /** {@link #fromJson(String)} for a parsed node. */
  public static ToolDefinition fromJson(JsonNode json) {
    Objects.requireNonNull(json, "json");
    return ToolDefinitionJson.read(json);
  }

  /**
   * This definition in the flat provider form, with {@code requires_approval} always written, the other flags when
   * true, and {@code output_schema}, {@code timeout}, {@code permission_timeout} (ISO-8601 durations) and
   * {@code retry_policy} when set; {@link #fromJson(JsonNode)} reads it back to an equal definition. A provider that
   * refuses unknown fields needs only {@code name}, {@code description} and {@code parameters}. A new node each time.
   */
  public ObjectNode toJson() {
    return ToolDefinitionJson.write(this);
  }

  /** A copy of the parameters schema. */
  @Override
  public JsonNode parameters() {
    return parameters.deepCopy();
  }

  /** A copy of the output schema, or null when the tool declares none. */
  @Override
  public JsonNode outputSchema() {
    return outputSchema == null ? null : outputSchema.deepCopy();
  }

  /** A copy of the output schema, if the tool declares one. */
  public Optional<JsonNode> outputSchemaIfSet() {
    return Optional.ofNullable(outputSchema());
  }

  /** The per-attempt timeout, if the tool sets its own. */
  public Optional<Duration> timeoutIfSet() {
    return Optional.ofNullable(timeout);
  }

  /** The permission deadline, if the tool sets its own. */
  public Optional<Duration> permissionTimeoutIfSet() {
    return Optional.ofNullable(permissionTimeout);
  }

  /** Starts a definition named {@code name}. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** Builds a {@link ToolDefinition}; not thread-safe. Each setter checks its value at once. */
  public static final class Builder {
    private final String name;
    private String description = "";
    private JsonNode parameters = anyObject();
    private boolean requiresApproval = true;
    private boolean readOnly;
    private boolean idempotent;
    private Duration timeout;
    private Duration permissionTimeout;
    private RetryPolicy retryPolicy = RetryPolicy.NONE;
    private boolean returnDirect;
    private JsonNode outputSchema;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    private static ObjectNode anyObject() {
      ObjectNode n = JsonNodeFactory.instance.objectNode();
      n.put("type", "object");
      return n;
    }

    /** What the tool does, for the model. */
    public Builder description(String description) {
      this.description = Objects.requireNonNull(description, "description");
      return this;
    }

    /** The JSON Schema of the arguments. */
    public Builder parameters(JsonNode schema) {
      this.parameters = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /**
     * The JSON Schema of the arguments, as JSON text.
     *
     * @throws IllegalArgumentException if {@code schemaJson} is not one JSON value (with where it broke)
     */
    public Builder parameters(String schemaJson) {
      this.parameters = ToolDefinitionJson.parse(Objects.requireNonNull(schemaJson, "schemaJson"), "parameters");
      return this;
    }

    /** Whether calls need permission (default true). */
    public Builder requiresApproval(boolean requiresApproval) {
      this.requiresApproval = requiresApproval;
      return this;
    }

    /** Whether the tool only reads, so calls may run in parallel (default false). */
    public Builder readOnly(boolean readOnly) {
      this.readOnly = readOnly;
      return this;
    }

    /** Whether running twice is as running once (default false). */
    public Builder idempotent(boolean idempotent) {
      this.idempotent = idempotent;
      return this;
    }

    /** How long one attempt may run (default: the runtime's). */
    public Builder timeout(Duration timeout) {
      requirePositive(Objects.requireNonNull(timeout, "timeout"), "timeout");
      this.timeout = timeout;
      return this;
    }

    /** How long a permission request may wait (default: the runtime's). */
    public Builder permissionTimeout(Duration permissionTimeout) {
      requirePositive(Objects.requireNonNull(permissionTimeout, "permissionTimeout"), "permissionTimeout");
      this.permissionTimeout = permissionTimeout;
      return this;
    }

    /** How transient failures are retried (default none). */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /** Whether the result ends the turn (default false). */
    public Builder returnDirect(boolean returnDirect) {
      this.returnDirect = returnDirect;
      return this;
    }

    /** The JSON Schema of the tool's structured result (default: none). */
    public Builder outputSchema(JsonNode schema) {
      this.outputSchema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /**
     * The JSON Schema of the tool's structured result, as JSON text.
     *
     * @throws IllegalArgumentException if {@code schemaJson} is not one JSON value (with where it broke)
     */
    public Builder outputSchema(String schemaJson) {
      this.outputSchema = ToolDefinitionJson.parse(Objects.requireNonNull(schemaJson, "schemaJson"), "outputSchema");
      return this;
    }

    /** The definition. */
    public ToolDefinition build() {
      return new ToolDefinition(name, description, parameters, requiresApproval, readOnly, idempotent, timeout,
          permissionTimeout, retryPolicy, returnDirect, outputSchema);
    }
  }
}
