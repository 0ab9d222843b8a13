package dev.toolcall.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * Reads and writes {@link ToolDefinition}s in the JSON forms model providers use for function tools. Reading accepts:
 * <ul>
 *   <li>the flat form ({@code {"type":"function","name":..,"description":..,"parameters":{..}}}, the form of OpenAI's
 *       Responses API and of seed 03's definition);</li>
 *   <li>the nested form of chat completions ({@code {"type":"function","function":{"name":..,..}}});</li>
 *   <li>Anthropic's form, whose schema is {@code input_schema}.</li>
 * </ul>
 * In each, {@code requires_approval} (seed 03) defaults to true when absent; {@code read_only}, {@code idempotent}
 * and {@code return_direct} default to false. The runtime's own parts are read when present and written when set:
 * {@code output_schema} (also read as MCP's {@code outputSchema}), {@code timeout} and {@code permission_timeout}
 * (ISO-8601 durations such as {@code "PT30S"}), and {@code retry_policy} ({@code max_attempts},
 * {@code initial_delay}, {@code multiplier}, {@code max_delay}, {@code jitter}), so a round trip keeps every part.
 * Other fields (a provider's {@code strict}, say) are ignored. A field
 * that is present with the wrong type, or a missing name, is an {@link IllegalArgumentException} naming the field.
 * Stateless and thread-safe.
 */
final class ToolDefinitionJson {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

  private ToolDefinitionJson() {}

  static JsonNode parse(String json, String what) {
    try {
      JsonNode n = JSON.readTree(json);
      if (n == null || n.isMissingNode()) {
        throw new IllegalArgumentException(what + " is empty; expected a JSON object");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(what + " is not valid JSON: " + e.getOriginalMessage() + " (line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")", e);
    }
  }

  static ToolDefinition read(JsonNode node) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("a tool definition must be a JSON object, was "
          + (node == null ? "null" : node.getNodeType()));
    }
    JsonNode fn = node.get("function");
    JsonNode body = node;
    if (fn != null) {
      if (!fn.isObject()) {
        throw new IllegalArgumentException("field 'function' must be an object, was " + fn.getNodeType());
      }
      body = fn;
    }
    String name = text(body, "name", true);
    ToolDefinition.Builder b = ToolDefinition.builder(name);
    String description = text(body, "description", false);
    if (description != null) {
      b.description(description);
    }
    JsonNode schema = body.has("parameters") ? body.get("parameters") : body.get("input_schema");
    if (schema != null && !schema.isNull()) {
      if (!schema.isObject()) {
        throw new IllegalArgumentException("field '" + (body.has("parameters") ? "parameters" : "input_schema")
            + "' of tool '" + name + "' must be a JSON Schema object, was " + schema.getNodeType());
      }
      b.parameters(schema);
    }
    b.requiresApproval(flag(node, body, "requires_approval", true));
    b.readOnly(flag(node, body, "read_only", false));
    b.idempotent(flag(node, body, "idempotent", false));
    b.returnDirect(flag(node, body, "return_direct", false));
    String outField = field(node, body, "output_schema") != null ? "output_schema" : "outputSchema";
    JsonNode out = field(node, body, outField);
    if (out != null && !out.isNull()) {
      if (!out.isObject()) {
        throw new IllegalArgumentException("field '" + outField + "' of tool '" + name
            + "' must be a JSON Schema object, was " + out.getNodeType());
      }
      b.outputSchema(out);
    }
    Duration timeout = duration(field(node, body, "timeout"), "timeout");
    if (timeout != null) {
      b.timeout(timeout);
    }
    Duration permissionTimeout = duration(field(node, body, "permission_timeout"), "permission_timeout");
    if (permissionTimeout != null) {
      b.permissionTimeout(permissionTimeout);
    }
    JsonNode retry = field(node, body, "retry_policy");
    if (retry != null && !retry.isNull()) {
      b.retryPolicy(retryPolicy(retry));
    }
    return b.build();
  }

  /** A field of the outer object or (nested form) the function object, or null. */
  private static JsonNode field(JsonNode outer, JsonNode body, String field) {
    return outer.has(field) ? outer.get(field) : body.get(field);
  }

  /** An ISO-8601 duration ({@code PT30S}), as {@link Duration#toString()} writes it; null when absent. */
  private static Duration duration(JsonNode v, String field) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isTextual()) {
      try {
        return Duration.parse(v.textValue());
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    throw new IllegalArgumentException("field '" + field + "' must be an ISO-8601 duration such as \"PT30S\", was "
        + v);
  }

  private static RetryPolicy retryPolicy(JsonNode v) {
    if (!v.isObject()) {
      throw new IllegalArgumentException("field 'retry_policy' must be an object, was " + v.getNodeType());
    }
    JsonNode attempts = v.get("max_attempts");
    if (attempts == null || !attempts.canConvertToInt() || !attempts.isIntegralNumber()) {
      throw new IllegalArgumentException("field 'retry_policy.max_attempts' must be a whole number, was " + attempts);
    }
    Duration initial = required(duration(v.get("initial_delay"), "retry_policy.initial_delay"),
        "retry_policy.initial_delay");
    Duration max = required(duration(v.get("max_delay"), "retry_policy.max_delay"), "retry_policy.max_delay");
    return new RetryPolicy(attempts.intValue(), initial, number(v, "multiplier"), max, number(v, "jitter"));
  }

  private static Duration required(Duration d, String field) {
    if (d == null) {
      throw new IllegalArgumentException("field '" + field + "' is missing (an ISO-8601 duration such as \"PT1S\")");
    }
    return d;
  }

  private static double number(JsonNode retry, String field) {
    JsonNode n = retry.get(field);
    if (n == null || !n.isNumber()) {
      throw new IllegalArgumentException("field 'retry_policy." + field + "' must be a number, was " + n);
    }
    return n.doubleValue();
  }

  static ObjectNode write(ToolDefinition d) {
    ObjectNode n = JSON.createObjectNode();
    n.put("type", "function");
    n.put("name", d.name());
    n.put("description", d.description());
    n.set("parameters", d.parameters());
    n.put("requires_approval", d.requiresApproval());
    if (d.readOnly()) {
      n.put("read_only", true);
    }
    if (d.idempotent()) {
      n.put("idempotent", true);
    }
    if (d.returnDirect()) {
      n.put("return_direct", true);
    }
    d.outputSchemaIfSet().ifPresent(o -> n.set("output_schema", o));
    d.timeoutIfSet().ifPresent(t -> n.put("timeout", t.toString()));
    d.permissionTimeoutIfSet().ifPresent(t -> n.put("permission_timeout", t.toString()));
    RetryPolicy r = d.retryPolicy();
    if (!r.equals(RetryPolicy.NONE)) {
      ObjectNode o = n.putObject("retry_policy");
      o.put("max_attempts", r.maxAttempts());
      o.put("initial_delay", r.initialDelay().toString());
      o.put("multiplier", r.multiplier());
      o.put("max_delay", r.maxDelay().toString());
      o.put("jitter", r.jitter());
    }
    return n;
  }

  private static String text(JsonNode node, String field, boolean required) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new IllegalArgumentException("a tool definition needs field '" + field + "' (a string)");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException("field '" + field + "' must be a string, was " + v.getNodeType());
    }
    return v.textValue();
  }

  /** A boolean flag, read from the outer object or (nested form) the function object; {@code dflt} when absent. */
  private static boolean flag(JsonNode outer, JsonNode body, String field, boolean dflt) {
    JsonNode v = outer.has(field) ? outer.get(field) : body.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isBoolean()) {
      throw new IllegalArgumentException("field '" + field + "' must be true or false, was " + v.getNodeType());
    }
    return v.booleanValue();
  }
}
