package dev.toolcall.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads and writes {@link ToolDefinition}s in the JSON forms model providers use for function tools. Reading accepts:
 * <ul>
 *   <li>the flat form ({@code {"type":"function","name":..,"description":..,"parameters":{..}}}, the form of OpenAI's
 *       Responses API and of seed 03's definition);</li>
 *   <li>the nested form of chat completions ({@code {"type":"function","function":{"name":..,..}}});</li>
 *   <li>Anthropic's form, whose schema is {@code input_schema}.</li>
 * </ul>
 * In each, {@code requires_approval} (seed 03) defaults to true when absent; {@code read_only}, {@code idempotent}
 * and {@code return_direct} default to false. Other fields (a provider's {@code strict}, say) are ignored. A field
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
    return b.build();
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
