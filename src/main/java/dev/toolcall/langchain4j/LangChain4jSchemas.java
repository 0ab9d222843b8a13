package dev.toolcall.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonReferenceSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * LangChain4j's JSON schema elements and JSON Schema documents (the form {@link dev.toolcall.tool.ToolDefinition}
 * keeps), both ways. Stateless and thread-safe.
 *
 * <p>Every element LangChain4j has maps without loss: object (properties in order, required, additionalProperties,
 * definitions as {@code $defs}), string, integer, number, boolean, string enum, array, anyOf, null, reference
 * ({@code #/$defs/name}) and raw. The other way, a sub-schema that uses keywords LangChain4j's elements cannot hold
 * ({@code format}, {@code minimum}, {@code pattern}, a non-string enum, a type list, ...) becomes a
 * {@link JsonRawSchema} holding it as written, so nothing is lost there either; only keywords beside {@code
 * properties}, {@code required}, {@code additionalProperties}, {@code description} and {@code $defs} on the root
 * object itself are dropped, as a {@code ToolSpecification}'s parameters must be a {@link JsonObjectSchema}.
 * {@code definitions} on the root is read as {@code $defs}.
 *
 * <p>Failures are programming errors and throw at once: {@link IllegalArgumentException} for a root that is not an
 * object schema, a {@code JsonRawSchema} whose text is not JSON, or an element type LangChain4j added that this class
 * does not know. Nothing is logged.
 */
public final class LangChain4jSchemas {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String DEFS = "#/$defs/";
  private static final Set<String> ROOT_KEYS = Set.of("type", "properties", "required", "additionalProperties",
      "description", "$defs", "definitions");

  private LangChain4jSchemas() {}

  /**
   * The JSON Schema of {@code schema}; the empty object schema for null (LangChain4j's form of a tool without
   * parameters). A new node each time.
   *
   * @throws IllegalArgumentException as {@link #toJson}
   */
  public static ObjectNode toJsonSchema(JsonObjectSchema schema) {
    if (schema == null) {
      ObjectNode empty = F.objectNode();
      empty.put("type", "object");
      empty.set("properties", F.objectNode());
      return empty;
    }
    return (ObjectNode) toJson(schema);
  }

  /**
   * The JSON Schema of one element, a new node each time.
   *
   * @throws NullPointerException if {@code e} is null
   * @throws IllegalArgumentException if a {@code JsonRawSchema} in it holds text that is not JSON, or it holds an
   *     element type this class does not know
   */
  public static JsonNode toJson(JsonSchemaElement e) {
    Objects.requireNonNull(e, "element");
    ObjectNode n = F.objectNode();
    if (e instanceof JsonRawSchema r) {
      try {
        return JSON.readTree(r.schema());
      } catch (Exception ex) {
        throw new IllegalArgumentException("a JsonRawSchema holds text that is not JSON: " + r.schema(), ex);
      }
    } else if (e instanceof JsonObjectSchema o) {
      n.put("type", "object");
      description(n, o.description());
      ObjectNode props = F.objectNode();
      if (o.properties() != null) {
        o.properties().forEach((k, v) -> props.set(k, toJson(v)));
      }
      n.set("properties", props);
      if (o.required() != null && !o.required().isEmpty()) {
        ArrayNode req = n.putArray("required");
        o.required().forEach(req::add);
      }
      if (o.additionalProperties() != null) {
        n.put("additionalProperties", o.additionalProperties());
      }
      if (o.definitions() != null && !o.definitions().isEmpty()) {
        ObjectNode defs = n.putObject("$defs");
        o.definitions().forEach((k, v) -> defs.set(k, toJson(v)));
      }
    } else if (e instanceof JsonStringSchema) {
      n.put("type", "string");
      description(n, e.description());
    } else if (e instanceof JsonIntegerSchema) {
      n.put("type", "integer");
      description(n, e.description());
    } else if (e instanceof JsonNumberSchema) {
      n.put("type", "number");
      description(n, e.description());
    } else if (e instanceof JsonBooleanSchema) {
      n.put("type", "boolean");
      description(n, e.description());
    } else if (e instanceof JsonNullSchema) {
      n.put("type", "null");
    } else if (e instanceof JsonEnumSchema en) {
      n.put("type", "string");
      description(n, en.description());
      ArrayNode values = n.putArray("enum");
      en.enumValues().forEach(values::add);
    } else if (e instanceof JsonArraySchema a) {
      n.put("type", "array");
      description(n, a.description());
      if (a.items() != null) {
        n.set("items", toJson(a.items()));
      }
    } else if (e instanceof JsonAnyOfSchema any) {
      description(n, any.description());
      ArrayNode list = n.putArray("anyOf");
      any.anyOf().forEach(x -> list.add(toJson(x)));
    } else if (e instanceof JsonReferenceSchema ref) {
      n.put("$ref", DEFS + ref.reference());
    } else {
      throw new IllegalArgumentException("unknown LangChain4j schema element " + e.getClass().getName());
    }
    return n;
  }

  /**
   * {@code schema} (a JSON Schema of type object, or without a type) as LangChain4j's object schema.
   *
   * @throws IllegalArgumentException if {@code schema} is not an object schema
   */
  public static JsonObjectSchema fromJsonSchema(JsonNode schema) {
    Objects.requireNonNull(schema, "schema");
    if (!schema.isObject() || (schema.has("type") && !"object".equals(schema.path("type").asText()))) {
      throw new IllegalArgumentException("tool parameters must be a JSON Schema of type object, got " + schema);
    }
    return object(schema);
  }

  private static JsonObjectSchema object(JsonNode n) {
    JsonObjectSchema.Builder b = JsonObjectSchema.builder();
    if (n.hasNonNull("description")) {
      b.description(n.get("description").asText());
    }
    LinkedHashMap<String, JsonSchemaElement> props = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.path("properties").properties().iterator(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      props.put(p.getKey(), element(p.getValue()));
    }
    b.addProperties(props);
    if (n.path("required").isArray()) {
      List<String> req = new ArrayList<>();
      n.get("required").forEach(r -> req.add(r.asText()));
      b.required(req);
    }
    if (n.path("additionalProperties").isBoolean()) {
      b.additionalProperties(n.get("additionalProperties").asBoolean());
    }
    JsonNode defs = n.has("$defs") ? n.get("$defs") : n.path("definitions");
    if (defs.isObject() && defs.size() > 0) {
      LinkedHashMap<String, JsonSchemaElement> d = new LinkedHashMap<>();
      defs.properties().forEach(x -> d.put(x.getKey(), element(x.getValue())));
      b.definitions(d);
    }
    return b.build();
  }

  /** One sub-schema: a LangChain4j element where one fits exactly, else a raw schema holding it as written. */
  static JsonSchemaElement element(JsonNode n) {
    if (!n.isObject()) {
      return JsonRawSchema.from(n.toString());
    }
    String desc = n.hasNonNull("description") ? n.get("description").asText() : null;
    if (n.has("$ref") && n.size() == 1 && n.get("$ref").asText().startsWith(DEFS)) {
      return JsonReferenceSchema.builder().reference(n.get("$ref").asText().substring(DEFS.length())).build();
    }
    if (n.has("anyOf") && only(n, "anyOf", "description")) {
      List<JsonSchemaElement> list = new ArrayList<>();
      n.get("anyOf").forEach(x -> list.add(element(x)));
      return JsonAnyOfSchema.builder().description(desc).anyOf(list).build();
    }
    String type = n.path("type").isTextual() ? n.get("type").asText() : null;
    if (type == null) {
      return JsonRawSchema.from(n.toString());
    }
    switch (type) {
      case "object":
        if (only(n, "type", "properties", "required", "additionalProperties", "description", "$defs",
            "definitions")) {
          return object(n);
        }
        break;
      case "string":
        if (n.has("enum") && only(n, "type", "enum", "description") && allText(n.get("enum"))) {
          List<String> values = new ArrayList<>();
          n.get("enum").forEach(v -> values.add(v.asText()));
          return JsonEnumSchema.builder().description(desc).enumValues(values).build();
        }
        if (only(n, "type", "description")) {
          return JsonStringSchema.builder().description(desc).build();
        }
        break;
      case "integer":
        if (only(n, "type", "description")) {
          return JsonIntegerSchema.builder().description(desc).build();
        }
        break;
      case "number":
        if (only(n, "type", "description")) {
          return JsonNumberSchema.builder().description(desc).build();
        }
        break;
      case "boolean":
        if (only(n, "type", "description")) {
          return JsonBooleanSchema.builder().description(desc).build();
        }
        break;
      case "null":
        if (only(n, "type")) {
          return new JsonNullSchema();
        }
        break;
      case "array":
        if (only(n, "type", "items", "description") && (!n.has("items") || n.get("items").isObject())) {
          JsonArraySchema.Builder a = JsonArraySchema.builder().description(desc);
          if (n.has("items")) {
            a.items(element(n.get("items")));
          }
          return a.build();
        }
        break;
      default:
        break;
    }
    return JsonRawSchema.from(n.toString());
  }

  private static boolean only(JsonNode n, String... keys) {
    Set<String> allowed = Set.of(keys);
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      if (!allowed.contains(it.next())) {
        return false;
      }
    }
    return true;
  }

  private static boolean allText(JsonNode array) {
    for (JsonNode v : array) {
      if (!v.isTextual()) {
        return false;
      }
    }
    return array.isArray();
  }

  private static void description(ObjectNode n, String d) {
    if (d != null) {
      n.put("description", d);
    }
  }

  /** The root keywords a {@link JsonObjectSchema} keeps. */
  static Set<String> rootKeys() {
    return ROOT_KEYS;
  }
}
