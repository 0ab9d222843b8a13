package dev.toolcall.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.math.BigInteger;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The schema check compiled for the common subset ({@link CompiledSchema}) against networknt, the validator it
 * stands in for on the way to "valid".
 */
class CompiledSchemaProperties {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SchemaRegistry NETWORKNT = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
  private static final String[] NAMES = {"a", "b", "c", "d"};
  private static final String[] STRINGS = {"", "a", "ab", "b", "abc", "123", "x y", "é", "\uD83D\uDE00", "null"};
  private static final String[] PATTERNS = {"^a", "b$", "[0-9]+", "^[a-z]*$", "é|\uD83D\uDE00", "^.{2}$"};

  /**
   * Invariant: for every schema in the subset (generated: types and type arrays, enum and const, numeric bounds
   * exclusive or not, string lengths and patterns, properties, required, additionalProperties as a boolean or a
   * schema, items, item counts, boolean schemas, nested up to three levels) and every JSON value (generated: every
   * node type the parser makes, int, long, big integer and double numbers included), the compiled check accepts
   * exactly when networknt finds no error. So answering "valid" from the compiled check never lets through a value
   * networknt refuses, nor refuses one it accepts.
   */
  @Property(tries = 400)
  void acceptsExactlyWhatNetworkntAccepts(@ForAll Random random) {
    JsonNode schemaNode = schema(random, 0);
    CompiledSchema compiled = CompiledSchema.compile(schemaNode);
    assertThat(compiled).as("compiled: %s", schemaNode).isNotNull();
    Schema networknt = NETWORKNT.getSchema(schemaNode);
    for (int i = 0; i < 25; i++) {
      JsonNode value = random.nextInt(3) == 0 ? fitting(random, schemaNode) : value(random, 0);
      boolean expected = networknt.validate(value).isEmpty();
      assertThat(compiled.accepts(value)).as("schema %s, value %s", schemaNode, value).isEqualTo(expected);
    }
  }

  /**
   * The same schemas declaring JSON Schema 2020-12 at the top ({@code $schema}, as Spring AI's generated schemas do)
   * are compiled too, and still accept exactly what networknt accepts under that declaration.
   */
  @Property(tries = 200)
  void aDeclared2020DialectIsCompiledAlike(@ForAll Random random) {
    JsonNode inner = schema(random, 0);
    if (!inner.isObject()) {
      return;
    }
    com.fasterxml.jackson.databind.node.ObjectNode schemaNode = JSON.createObjectNode()
        .put("$schema", random.nextBoolean() ? "https://json-schema.org/draft/2020-12/schema"
            : "https://json-schema.org/draft/2020-12/schema#");
    schemaNode.setAll((com.fasterxml.jackson.databind.node.ObjectNode) inner);
    CompiledSchema compiled = CompiledSchema.compile(schemaNode);
    assertThat(compiled).as("compiled: %s", schemaNode).isNotNull();
    Schema networknt = NETWORKNT.getSchema(schemaNode);
    for (int i = 0; i < 25; i++) {
      JsonNode value = random.nextInt(3) == 0 ? fitting(random, schemaNode) : value(random, 0);
      boolean expected = networknt.validate(value).isEmpty();
      assertThat(compiled.accepts(value)).as("schema %s, value %s", schemaNode, value).isEqualTo(expected);
    }
  }

  @Example
  void schemasOutsideTheSubsetAreLeftToNetworknt() throws Exception {
    for (String schema : new String[] {"{\"$ref\":\"#/$defs/x\",\"$defs\":{\"x\":{\"type\":\"string\"}}}",
        "{\"anyOf\":[{\"type\":\"string\"}]}", "{\"type\":\"string\",\"format\":\"email\"}",
        "{\"properties\":{\"a\":{\"oneOf\":[true]}}}", "{\"$schema\":\"http://json-schema.org/draft-07/schema#\"}",
        "{\"enum\":[1,2]}", "{\"patternProperties\":{\"^a\":true}}", "{\"type\":\"strin\"}",
        "{\"items\":[{\"type\":\"string\"}]}", "{\"x-vendor\":1}"}) {
      assertThat(CompiledSchema.compile(JSON.readTree(schema))).as(schema).isNull();
    }
    assertThat(CompiledSchema.compile(JSON.readTree(ValidationFixture.EDIT_FILE_SCHEMA))).isNotNull();
  }

  @Example
  void numbersTheParserNeverMakesAreLeftToNetworknt() throws Exception {
    JsonNode decimal = NODES.numberNode(new java.math.BigDecimal("1.0"));
    assertThat(CompiledSchema.compile(JSON.readTree("{\"type\":\"integer\"}")).accepts(decimal)).isFalse();
    assertThat(CompiledSchema.compile(JSON.readTree("{\"minimum\":0}")).accepts(decimal)).isFalse();
    assertThat(CompiledSchema.compile(JSON.readTree("{\"type\":\"number\"}")).accepts(decimal)).isTrue();
  }

  /** A value built to pass the schema's object and type keywords more often than a random one. */
  private static JsonNode fitting(Random r, JsonNode schema) {
    if (schema.isObject() && schema.has("properties")) {
      ObjectNode o = NODES.objectNode();
      schema.get("properties").fields().forEachRemaining(e -> {
        if (r.nextInt(4) != 0) {
          o.set(e.getKey(), fitting(r, e.getValue()));
        }
      });
      return o;
    }
    return value(r, 1);
  }

  private static JsonNode schema(Random r, int depth) {
    if (depth > 0 && r.nextInt(10) == 0) {
      return NODES.booleanNode(r.nextBoolean());
    }
    ObjectNode s = NODES.objectNode();
    if (r.nextInt(3) > 0) {
      String[] types = {"null", "boolean", "object", "array", "number", "string", "integer"};
      if (r.nextBoolean()) {
        s.put("type", types[r.nextInt(types.length)]);
      } else {
        ArrayNode t = s.putArray("type");
        for (String type : types) {
          if (r.nextInt(3) == 0) {
            t.add(type);
          }
        }
        if (t.isEmpty()) {
          t.add("string");
        }
      }
    }
    if (r.nextInt(6) == 0) {
      ArrayNode e = s.putArray("enum");
      for (int i = r.nextInt(4); i >= 0; i--) {
        int k = r.nextInt(4);
        e.add(k == 0 ? NODES.nullNode() : k == 1 ? NODES.booleanNode(r.nextBoolean())
            : NODES.textNode(STRINGS[r.nextInt(STRINGS.length)]));
      }
    } else if (r.nextInt(10) == 0) {
      s.put("const", STRINGS[r.nextInt(STRINGS.length)]);
    }
    for (String bound : new String[] {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
      if (r.nextInt(5) == 0) {
        s.set(bound, number(r));
      }
    }
    for (String count : new String[] {"minLength", "maxLength", "minItems", "maxItems"}) {
      if (r.nextInt(5) == 0) {
        s.put(count, r.nextInt(4));
      }
    }
    if (r.nextInt(6) == 0) {
      s.put("pattern", PATTERNS[r.nextInt(PATTERNS.length)]);
    }
    if (depth < 3 && r.nextInt(3) == 0) {
      ObjectNode p = s.putObject("properties");
      for (String name : NAMES) {
        if (r.nextInt(3) == 0) {
          p.set(name, schema(r, depth + 1));
        }
      }
    }
    if (r.nextInt(4) == 0) {
      ArrayNode req = s.putArray("required");
      for (String name : NAMES) {
        if (r.nextInt(3) == 0) {
          req.add(name);
        }
      }
    }
    if (r.nextInt(4) == 0) {
      s.set("additionalProperties", depth < 3 && r.nextBoolean() ? schema(r, depth + 1)
          : NODES.booleanNode(r.nextBoolean()));
    }
    if (depth < 3 && r.nextInt(4) == 0) {
      s.set("items", schema(r, depth + 1));
    }
    if (r.nextInt(4) == 0) {
      s.put("description", "annotation only");
    }
    return s;
  }

  private static JsonNode number(Random r) {
    switch (r.nextInt(4)) {
      case 0:
        return NODES.numberNode(r.nextInt(7) - 3);
      case 1:
        return NODES.numberNode((r.nextInt(13) - 6) / 2.0);
      case 2:
        return NODES.numberNode(0.1 * (r.nextInt(7) - 3));
      default:
        return NODES.numberNode((1L << 53) + r.nextInt(3) - 1);
    }
  }

  private static JsonNode value(Random r, int depth) {
    switch (r.nextInt(depth < 3 ? 9 : 6)) {
      case 0:
        return NODES.nullNode();
      case 1:
        return NODES.booleanNode(r.nextBoolean());
      case 2:
        return NODES.textNode(STRINGS[r.nextInt(STRINGS.length)]);
      case 3:
        switch (r.nextInt(5)) {
          case 0:
            return NODES.numberNode(r.nextInt(9) - 4);
          case 1:
            return NODES.numberNode((1L << 53) + r.nextInt(3) - 1);
          case 2:
            return NODES.numberNode(BigInteger.TEN.pow(20).add(BigInteger.valueOf(r.nextInt(3))));
          default:
            return NODES.numberNode((r.nextInt(17) - 8) / 2.0);
        }
      case 4:
        return NODES.numberNode(0.1 * (r.nextInt(9) - 4));
      case 5:
        return NODES.textNode(STRINGS[r.nextInt(STRINGS.length)]);
      case 6:
      case 7: {
        ObjectNode o = NODES.objectNode();
        for (String name : NAMES) {
          if (r.nextBoolean()) {
            o.set(name, value(r, depth + 1));
          }
        }
        return o;
      }
      default: {
        ArrayNode a = NODES.arrayNode();
        for (int i = r.nextInt(4); i > 0; i--) {
          a.add(value(r, depth + 1));
        }
        return a;
      }
    }
  }
}
