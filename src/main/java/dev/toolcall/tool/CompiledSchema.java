package dev.toolcall.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A check compiled once from a JSON Schema (2020-12) that uses only a common subset of the keywords, answering
 * whether a value is valid without allocating on the way to "yes" (no execution context, no paths, no error lists).
 * It only decides: when it says no, {@link ArgumentSchema} asks networknt for the problems, so the model reads the
 * same messages as before. Compiled checks accept exactly the values networknt accepts among the trees the parser
 * builds (pinned by {@code CompiledSchemaProperties}); decimal and float nodes, which only a tool's structured
 * result can hold, are refused where a number keyword applies, which leaves them to networknt.
 *
 * <p>The subset: {@code type} (a name or an array of names), {@code enum} and {@code const} of strings, booleans and
 * {@code null}, {@code minimum}, {@code maximum}, {@code exclusiveMinimum}, {@code exclusiveMaximum},
 * {@code minLength}, {@code maxLength}, {@code pattern}, {@code properties}, {@code required},
 * {@code additionalProperties} (a boolean or a schema), {@code items} (a schema), {@code minItems},
 * {@code maxItems}, boolean schemas, and the annotations {@code title}, {@code description}, {@code default},
 * {@code examples}, {@code $comment}, {@code deprecated}, {@code readOnly}, {@code writeOnly}. A schema with any
 * other keyword (or a {@code $schema} other than 2020-12's at the top) is not compiled: {@link #compile} answers null and networknt checks every
 * call, as before. Immutable and thread-safe.
 */
abstract class CompiledSchema {

  /**
   * Whether {@code value} is valid. Must never answer true for a value networknt refuses; answering false for one it
   * accepts only costs time ({@link ArgumentSchema} then asks networknt, whose answer is final).
   */
  abstract boolean accepts(JsonNode value);

  private static final CompiledSchema ANY = new CompiledSchema() {
    @Override
    boolean accepts(JsonNode value) {
      return true;
    }
  };

  private static final CompiledSchema NONE = new CompiledSchema() {
    @Override
    boolean accepts(JsonNode value) {
      return false;
    }
  };

  private static final Set<String> ANNOTATIONS = Set.of("title", "description", "default", "examples",
      "$comment", "deprecated", "readOnly", "writeOnly");

  /** The ways a schema names JSON Schema 2020-12 in {@code $schema}, the dialect of the subset. */
  private static final Set<String> DIALECT_2020_12 = Set.of("https://json-schema.org/draft/2020-12/schema",
      "https://json-schema.org/draft/2020-12/schema#");

  /** The largest integer a double holds exactly, 2^53. */
  private static final long EXACT = 1L << 53;

  /** The check for {@code schema}, or null when it uses anything outside the subset. */
  static CompiledSchema compile(JsonNode schema) {
    try {
      if (schema != null && schema.isObject() && schema.has("$schema")) {
        // the dialect the subset is written for, declared at the top (as Spring AI's generated schemas do)
        JsonNode declared = schema.get("$schema");
        if (!declared.isTextual() || !DIALECT_2020_12.contains(declared.textValue())) {
          return null;
        }
        com.fasterxml.jackson.databind.node.ObjectNode rest = (com.fasterxml.jackson.databind.node.ObjectNode) schema
            .deepCopy();
        rest.remove("$schema");
        schema = rest;
      }
      return schema == null ? null : node(schema, 0);
    } catch (RuntimeException | StackOverflowError e) {
      return null;
    }
  }

  private static CompiledSchema node(JsonNode schema, int depth) {
    if (depth > 32) {
      return null;
    }
    if (schema.isBoolean()) {
      return schema.booleanValue() ? ANY : NONE;
    }
    if (!schema.isObject()) {
      return null;
    }
    Keywords k = new Keywords();
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!k.read(e.getKey(), e.getValue(), depth) && !ANNOTATIONS.contains(e.getKey())) {
        return null;
      }
    }
    return k.complete() ? k : null;
  }

  /** A schema object: every keyword of the subset, each absent unless set. */
  private static final class Keywords extends CompiledSchema {
    private static final int NULL = 1;
    private static final int BOOLEAN = 2;
    private static final int OBJECT = 4;
    private static final int ARRAY = 8;
    private static final int NUMBER = 16;
    private static final int STRING = 32;
    private static final int INTEGER = 64;

    private int types = -1;
    private JsonNode[] allowed;
    private Bound minimum;
    private Bound maximum;
    private Bound exclusiveMinimum;
    private Bound exclusiveMaximum;
    private int minLength = -1;
    private int maxLength = -1;
    private Pattern pattern;
    private String[] names = new String[0];
    private CompiledSchema[] checks = new CompiledSchema[0];
    private String[] required = new String[0];
    private CompiledSchema additional;
    private CompiledSchema items;
    private int minItems = -1;
    private int maxItems = -1;
    private boolean failed;

    boolean complete() {
      return !failed;
    }

    /** Reads one keyword; false when it is not in the subset (annotations are checked by the caller). */
    boolean read(String key, JsonNode v, int depth) {
      switch (key) {
        case "type":
          types = types(v);
          return types > 0;
        case "enum":
          if (!v.isArray() || allowed != null) {
            return false;
          }
          return values(v);
        case "const":
          if (allowed != null || !(v.isTextual() || v.isBoolean() || v.isNull())) {
            return false;
          }
          allowed = new JsonNode[] {v};
          return true;
        case "minimum":
          return (minimum = Bound.of(v)) != null;
        case "maximum":
          return (maximum = Bound.of(v)) != null;
        case "exclusiveMinimum":
          return (exclusiveMinimum = Bound.of(v)) != null;
        case "exclusiveMaximum":
          return (exclusiveMaximum = Bound.of(v)) != null;
        case "minLength":
          return (minLength = count(v)) >= 0;
        case "maxLength":
          return (maxLength = count(v)) >= 0;
        case "minItems":
          return (minItems = count(v)) >= 0;
        case "maxItems":
          return (maxItems = count(v)) >= 0;
        case "pattern":
          return pattern(v);
        case "required":
          return required(v);
        case "properties":
          return properties(v, depth);
        case "additionalProperties":
          return (additional = node(v, depth + 1)) != null;
        case "items":
          return (items = node(v, depth + 1)) != null;
        default:
          return false;
      }
    }

    private static int types(JsonNode v) {
      if (v.isTextual()) {
        return type(v.textValue());
      }
      if (!v.isArray() || v.isEmpty()) {
        return -1;
      }
      int all = 0;
      for (JsonNode t : v) {
        int one = t.isTextual() ? type(t.textValue()) : -1;
        if (one < 0) {
          return -1;
        }
        all |= one;
      }
      return all;
    }

    private static int type(String name) {
      switch (name) {
        case "null":
          return NULL;
        case "boolean":
          return BOOLEAN;
        case "object":
          return OBJECT;
        case "array":
          return ARRAY;
        case "number":
          return NUMBER;
        case "string":
          return STRING;
        case "integer":
          return INTEGER;
        default:
          return -1;
      }
    }

    private boolean values(JsonNode v) {
      List<JsonNode> list = new ArrayList<>();
      for (JsonNode e : v) {
        if (!(e.isTextual() || e.isBoolean() || e.isNull())) {
          return false;
        }
        list.add(e);
      }
      allowed = list.toArray(new JsonNode[0]);
      return true;
    }

    private static int count(JsonNode v) {
      return v.isInt() && v.intValue() >= 0 ? v.intValue() : -1;
    }

    private boolean pattern(JsonNode v) {
      if (!v.isTextual()) {
        return false;
      }
      try {
        pattern = Pattern.compile(v.textValue());
        return true;
      } catch (PatternSyntaxException e) {
        return false;
      }
    }

    private boolean required(JsonNode v) {
      if (!v.isArray()) {
        return false;
      }
      List<String> list = new ArrayList<>();
      for (JsonNode e : v) {
        if (!e.isTextual()) {
          return false;
        }
        list.add(e.textValue());
      }
      required = list.toArray(new String[0]);
      return true;
    }

    private boolean properties(JsonNode v, int depth) {
      if (!v.isObject()) {
        return false;
      }
      List<String> n = new ArrayList<>();
      List<CompiledSchema> c = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> e = it.next();
        CompiledSchema check = node(e.getValue(), depth + 1);
        if (check == null) {
          return false;
        }
        n.add(e.getKey());
        c.add(check);
      }
      names = n.toArray(new String[0]);
      checks = c.toArray(new CompiledSchema[0]);
      return true;
    }

    @Override
    boolean accepts(JsonNode value) {
      if (types > 0 && !typed(value)) {
        return false;
      }
      if (allowed != null && !allowed(value)) {
        return false;
      }
      if (value.isNumber()) {
        return numberFits(value);
      }
      if (value.isTextual()) {
        return textFits(value.textValue());
      }
      if (value.isObject()) {
        return objectFits(value);
      }
      if (value.isArray()) {
        return arrayFits(value);
      }
      return true;
    }

    private boolean typed(JsonNode value) {
      switch (value.getNodeType()) {
        case NULL:
          return (types & NULL) != 0;
        case BOOLEAN:
          return (types & BOOLEAN) != 0;
        case OBJECT:
          return (types & OBJECT) != 0;
        case ARRAY:
          return (types & ARRAY) != 0;
        case STRING:
          return (types & STRING) != 0;
        case NUMBER:
          return (types & NUMBER) != 0 || (types & INTEGER) != 0 && integral(value);
        default:
          return false;
      }
    }

    /**
     * An integer in JSON Schema 2020-12: a number whose fraction is zero, 1.0 included. Numbers the parser never
     * makes (decimal and float nodes, from a tool's structured result) answer false, which only sends them to
     * networknt: a refusal here is checked again there, an acceptance is final.
     */
    private static boolean integral(JsonNode value) {
      if (value.isInt() || value.isLong() || value.isBigInteger()) {
        return true;
      }
      if (value.isDouble()) {
        double d = value.doubleValue();
        return !Double.isInfinite(d) && d == Math.rint(d);
      }
      return false;
    }

    private boolean allowed(JsonNode value) {
      for (JsonNode a : allowed) {
        if (a.equals(value)) {
          return true;
        }
      }
      return false;
    }

    private boolean numberFits(JsonNode value) {
      if (!(value.isInt() || value.isLong() || value.isBigInteger() || value.isDouble())) {
        // decimal and float nodes (never from the parser): networknt decides
        return minimum == null && maximum == null && exclusiveMinimum == null && exclusiveMaximum == null;
      }
      return (minimum == null || minimum.compareTo(value) <= 0)
          && (maximum == null || maximum.compareTo(value) >= 0)
          && (exclusiveMinimum == null || exclusiveMinimum.compareTo(value) < 0)
          && (exclusiveMaximum == null || exclusiveMaximum.compareTo(value) > 0);
    }

    private boolean textFits(String text) {
      if (minLength >= 0 || maxLength >= 0) {
        int length = text.codePointCount(0, text.length());
        if (length < minLength || maxLength >= 0 && length > maxLength) {
          return false;
        }
      }
      return pattern == null || pattern.matcher(text).find();
    }

    private boolean objectFits(JsonNode value) {
      for (String name : required) {
        if (value.get(name) == null) {
          return false;
        }
      }
      int known = 0;
      for (int i = 0; i < names.length; i++) {
        JsonNode v = value.get(names[i]);
        if (v != null) {
          known++;
          if (!checks[i].accepts(v)) {
            return false;
          }
        }
      }
      if (additional == null || additional == ANY || known == value.size()) {
        return true;
      }
      if (additional == NONE) {
        return false;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!declared(e.getKey()) && !additional.accepts(e.getValue())) {
          return false;
        }
      }
      return true;
    }

    private boolean declared(String name) {
      for (String n : names) {
        if (n.equals(name)) {
          return true;
        }
      }
      return false;
    }

    private boolean arrayFits(JsonNode value) {
      int size = value.size();
      if (size < minItems || maxItems >= 0 && size > maxItems) {
        return false;
      }
      if (items != null && items != ANY) {
        for (int i = 0; i < size; i++) {
          if (!items.accepts(value.get(i))) {
            return false;
          }
        }
      }
      return true;
    }
  }

  /** A numeric bound, compared exactly; without allocating when both sides fit a long or a double exactly. */
  private static final class Bound {
    private final boolean isLong;
    private final long longValue;
    private final double doubleValue;
    private final boolean exactDouble;
    private final BigDecimal decimal;

    private Bound(JsonNode v) {
      decimal = v.decimalValue();
      isLong = v.isInt() || v.isLong();
      longValue = v.longValue();
      doubleValue = v.doubleValue();
      exactDouble = !Double.isInfinite(doubleValue) && new BigDecimal(doubleValue).compareTo(decimal) == 0;
    }

    static Bound of(JsonNode v) {
      return v.isNumber() && !(v.isDouble() && !Double.isFinite(v.doubleValue())) ? new Bound(v) : null;
    }

    /** The sign of this bound minus {@code value}. */
    int compareTo(JsonNode value) {
      if (value.isInt() || value.isLong()) {
        long n = value.longValue();
        if (isLong) {
          return Long.compare(longValue, n);
        }
        if (exactDouble && n > -EXACT && n < EXACT) {
          return signum(doubleValue, n);
        }
      } else if (value.isDouble() && exactDouble) {
        return signum(doubleValue, value.doubleValue());
      }
      return decimal.compareTo(value.decimalValue());
    }

    private static int signum(double a, double b) {
      return a < b ? -1 : a > b ? 1 : 0;
    }
  }
}
