package dev.toolcall.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.Example;

/**
 * {@link FastJson}, the one-pass reader of the common subset, agrees with the Jackson path of
 * {@link ArgumentParser} on a generated corpus of valid and hostile argument texts, under the default limits and
 * small ones: whatever the fast reader accepts, Jackson reads to an equal tree with nodes of the same types (an int
 * is an int node, a long a long node, -0.0 stays -0.0) in the same order; whatever Jackson refuses, the fast reader
 * hands over (so every refusal is worded by the one existing path); and the parser's answer for any text is the one
 * its Jackson path gives.
 */
class FastJsonProperties {

  private static final ObjectMapper PLAIN = new ObjectMapper();
  private static final ObjectMapper ESCAPING = JsonMapper.builder()
      .enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ArgumentLimits SMALL = new ArgumentLimits(400, 4, 40, 8);
  private static final ArgumentLimits TINY = new ArgumentLimits(64, 2, 6, 3);

  private static int fastRead;
  private static int checked;

  /** Valid JSON of every kind the subset covers, and some it does not, formatted and escaped in several ways. */
  @Property(tries = 2000)
  void validTextsAgree(@ForAll("json") JsonNode node, @ForAll("style") int style) throws Exception {
    String raw = switch (style) {
      case 0 -> PLAIN.writeValueAsString(node);
      case 1 -> PLAIN.writerWithDefaultPrettyPrinter().writeValueAsString(node);
      case 2 -> ESCAPING.writeValueAsString(node);
      default -> " \r\n\t" + PLAIN.writeValueAsString(node) + "\n ";
    };
    agree(raw);
  }

  /** Valid texts mutated (a character deleted, inserted, replaced, duplicated, the text cut) and random JSON-ish text. */
  @Property(tries = 4000)
  void hostileTextsAgree(@ForAll("hostile") String raw) {
    agree(raw);
  }

  /** Hand-picked edges of the subset: numbers, escapes, duplicates, nesting and length limits. */
  @Example
  void edgesAgree() {
    for (String raw : List.of("{}", "[]", " { } ", "{\"a\":-0}", "{\"a\":-0.0}", "{\"a\":0.0}", "[2147483647]",
        "[2147483648]", "[-2147483648]", "[-2147483649]", "[999999999999999999]", "[9999999999999999999]",
        "[-9223372036854775808]", "[9223372036854775807]", "[1e400]", "[-1e400]", "[1e-400]", "[1E+2]", "[1.]",
        "[.5]", "[01]", "[-]", "[-01]", "[1e]", "[1.5e-3]", "[0.1]", "[123456789.123456789e-5]", "{\"a\":1,\"a\":2}",
        "{\"a\":{\"b\":[{\"c\":null}]}}", "[[[[[[[[1]]]]]]]]", "{\"a\":\"\\uD83D\\uDE00\"}", "{\"a\":\"\\uD800\"}",
        "{\"a\":\"\\u00e9\\u00E9\\/\\b\\f\\n\\r\\t\\\"\\\\\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}",
        "{\"a\":\"\u0001\"}", "{\"a\":\"\u007f\"}", "{\"a\":\"\uD83D\uDE00\"}", "{\"a\":true,}", "[1,]", "[,1]",
        "{\"a\" : 1 , \"b\" :\t[ true , false , null ] }", "{\"a\":truex}", "{\"a\":nul}", "[true false]",
        "{\"a\":1}x", "{\"a\":1}}", "{'a':1}", "{a:1}", "[1]//c", "[NaN]", "[Infinity]", "[-Infinity]",
        "{\"\":\"\"}", "[\"\\u0000\"]", "{\"a\":1\u00a0}", "[\"" + "x".repeat(50) + "\"]",
        "{\"" + "k".repeat(50) + "\":1}", "[123456789]", "[1234567]", "[\"\\uFEFF\"]", "[\uFEFF1]")) {
      agree(raw);
    }
  }

  @AfterContainer
  static void theFastReaderCarriesMostValidTexts() {
    // not an assertion on speed: a check that the property above compared something (the fast reader accepted)
    assertThat(fastRead).as("texts the fast reader accepted of %s", checked).isGreaterThan(checked / 10);
  }

  /** {@code raw} with every character outside printable ASCII as an escape, for a readable failure. */
  private static String esc(String raw) {
    StringBuilder b = new StringBuilder();
    for (char c : raw.toCharArray()) {
      b.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04X", (int) c));
    }
    return b.toString();
  }

  private static void agree(String raw) {
    for (ArgumentLimits limits : List.of(ArgumentLimits.DEFAULT, SMALL, TINY)) {
      ArgumentParser parser = ArgumentParser.forLimits(limits);
      Object jackson = parser.readJson(raw);
      int start = firstNonWhitespace(raw);
      boolean eligible = start < raw.length() && raw.length() <= limits.maxDocumentLength();
      JsonNode fast = eligible ? FastJson.read(raw, start, limits) : null;
      if (!wellFormed(raw)) {
        assertThat(fast).as("an unpaired surrogate in %s", esc(raw)).isNull(); // the parser's check words it
      }
      synchronized (FastJsonProperties.class) {
        checked++;
        if (fast != null) {
          fastRead++;
        }
      }
      if (fast != null) {
        assertFrozen(fast, raw);
        assertThat(jackson).as("%s under %s", esc(raw), limits).isInstanceOf(JsonNode.class);
        sameTree(fast, (JsonNode) jackson, esc(raw));
      }
      // the parser's answer is the Jackson path's, whichever reader built it; an unpaired surrogate is refused first
      if (eligible && !wellFormed(raw)) {
        assertThat(parser.readTree(raw)).as(esc(raw)).isInstanceOf(ParsedArguments.Invalid.class)
            .extracting(a -> ((ParsedArguments.Invalid) a).message()).asString().contains("unpaired surrogate");
      } else if (eligible && (raw.charAt(start) == '{' || raw.charAt(start) == '[')) {
        Object answer = parser.readTree(raw);
        if (jackson instanceof JsonNode) {
          assertThat(answer).as(esc(raw)).isInstanceOf(JsonNode.class);
          sameTree((JsonNode) answer, (JsonNode) jackson, esc(raw));
        } else {
          assertThat(answer).as(esc(raw)).isEqualTo(jackson);
        }
      }
    }
  }

  /** Every container of {@code n} is frozen, and changing it throws. */
  private static void assertFrozen(JsonNode n, String raw) {
    assertThat(dev.toolcall.internal.json.FrozenJson.isFrozen(n)).as(esc(raw)).isTrue();
    if (n instanceof ObjectNode o) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> o.put("x", 1))
          .isInstanceOf(UnsupportedOperationException.class);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> o.removeAll())
          .isInstanceOf(UnsupportedOperationException.class);
      o.forEach(child -> assertFrozen(child, raw));
    } else if (n instanceof com.fasterxml.jackson.databind.node.ArrayNode a) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.add(1))
          .isInstanceOf(UnsupportedOperationException.class);
      a.forEach(child -> assertFrozen(child, raw));
    }
  }

  /** Equal trees with nodes of the same classes and properties in the same order. */
  private static void sameTree(JsonNode a, JsonNode b, String raw) {
    assertThat(a).as(raw).isEqualTo(b);
    if (a.isContainerNode()) { // the fast reader's containers are frozen; Jackson's path builds plain ones
      assertThat(a.getNodeType()).as(raw).isEqualTo(b.getNodeType());
      assertThat(dev.toolcall.internal.json.FrozenJson.isFrozen(a) || !isFast(a)).as(raw).isTrue();
    } else {
      assertThat(a.getClass()).as(raw).isEqualTo(b.getClass());
    }
    assertThat(a.toString()).as(raw).isEqualTo(b.toString());
    if (a.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> x = a.fields();
      Iterator<Map.Entry<String, JsonNode>> y = b.fields();
      while (x.hasNext()) {
        Map.Entry<String, JsonNode> ex = x.next();
        Map.Entry<String, JsonNode> ey = y.next();
        assertThat(ex.getKey()).as(raw).isEqualTo(ey.getKey());
        sameTree(ex.getValue(), ey.getValue(), raw);
      }
    } else if (a.isArray()) {
      for (int i = 0; i < a.size(); i++) {
        sameTree(a.get(i), b.get(i), raw);
      }
    } else if (a.isDouble()) {
      assertThat(Double.doubleToRawLongBits(a.doubleValue())).as(raw)
          .isEqualTo(Double.doubleToRawLongBits(b.doubleValue()));
    }
  }

  /** Whether {@code n} came from the fast reader, whose containers are all frozen (Jackson's are plain). */
  private static boolean isFast(JsonNode n) {
    return !(n.getClass() == com.fasterxml.jackson.databind.node.ObjectNode.class
        || n.getClass() == com.fasterxml.jackson.databind.node.ArrayNode.class);
  }

  private static int firstNonWhitespace(String s) {
    int i = 0;
    while (i < s.length() && " \t\n\r".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    return i;
  }

  private static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  @Provide
  Arbitrary<Integer> style() {
    return Arbitraries.integers().between(0, 3);
  }

  @Provide
  Arbitrary<JsonNode> json() {
    return Arbitraries.oneOf(container(3), container(1));
  }

  private Arbitrary<JsonNode> container(int depth) {
    Arbitrary<JsonNode> value = depth == 0 ? scalar() : Arbitraries.oneOf(scalar(), scalar(), container(depth - 1));
    Arbitrary<JsonNode> array = value.list().ofMaxSize(5).map(list -> {
      var a = NODES.arrayNode();
      list.forEach(a::add);
      return a;
    });
    Arbitrary<JsonNode> object = Combinators.combine(names().list().ofMaxSize(5), value.list().ofSize(5))
        .as((names, values) -> {
          ObjectNode o = NODES.objectNode();
          for (int i = 0; i < names.size(); i++) {
            o.set(names.get(i), values.get(i));
          }
          return (JsonNode) o;
        });
    return Arbitraries.oneOf(object, object, array);
  }

  private static Arbitrary<String> names() {
    return Arbitraries.oneOf(Arbitraries.of("a", "b", "path", "content", "overwrite", "note", "", "é", "\"q\""),
        text(12));
  }

  private static Arbitrary<String> text(int max) {
    Arbitrary<Character> chars = Arbitraries.oneOf(Arbitraries.chars().range(' ', '~'),
        Arbitraries.chars().range('\u0000', '\u001f'), Arbitraries.chars().range('\u00a0', '\u2fff'),
        Arbitraries.of('"', '\\', '/', '\u2028', '\uFEFF'));
    Arbitrary<String> bmp = chars.list().ofMaxSize(max).map(l -> {
      StringBuilder b = new StringBuilder();
      l.forEach(b::append);
      return b.toString();
    });
    return Arbitraries.oneOf(bmp, bmp, Arbitraries.of("\uD83D\uDE00", "a\uD83D\uDE00b", "x".repeat(45)));
  }

  private static Arbitrary<JsonNode> scalar() {
    return Arbitraries.oneOf(
        text(20).map(NODES::textNode),
        Arbitraries.integers().map(NODES::numberNode),
        Arbitraries.integers().between(-1000, 1000).map(NODES::numberNode),
        Arbitraries.longs().map(v -> (JsonNode) (v == (int) (long) v ? NODES.numberNode((int) (long) v)
            : NODES.numberNode(v))),
        Arbitraries.doubles().map(NODES::numberNode),
        Arbitraries.of(-0.0, 0.0, 1e300, 4.9e-324, 0.1, 1.0, 123.456, -2.5e-7).map(NODES::numberNode),
        Arbitraries.bigIntegers().between(BigInteger.TEN.pow(18), BigInteger.TEN.pow(22))
            .map(NODES::numberNode),
        Arbitraries.of(NODES.booleanNode(true), NODES.booleanNode(false), NODES.nullNode()));
  }

  @Provide
  Arbitrary<String> hostile() {
    Arbitrary<String> valid = json().map(n -> n.toString());
    Arbitrary<String> pieces = Arbitraries.of("{", "}", "[", "]", "\"", ":", ",", " ", "\n", "\t", "\r", "\\",
        "\\u", "\\uD800", "\\uDC00", "\\uD83D\\uDE00", "\\u00e9", "\\x", "-", "+", "0", "1", "9", ".", "e", "E",
        "true", "false", "null", "nul", "tru", "NaN", "Infinity", "\"a\"", "\"a\":", "\"a\":1", "//", "/*", "'",
        "\u0000", "\u001f", "\u007f", "\uD800", "\uDC00", "\uD83D\uDE00", "\uFEFF", "\u00a0", "é", "00", "1e999",
        "99999999999999999999", "-0", "0.5");
    Arbitrary<String> jsonish = pieces.list().ofMinSize(1).ofMaxSize(14).map(l -> String.join("", l));
    Arbitrary<String> opened = Combinators.combine(Arbitraries.of("{", "[", " {", "{\"a\":", "[1,", "{\"a\":\"")
        , jsonish).as(String::concat);
    Arbitrary<String> mutated = Combinators.combine(valid, Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 1000), pieces).as(FastJsonProperties::mutate);
    Arbitrary<String> duplicated = valid.filter(v -> v.startsWith("{\"") && v.length() > 3)
        .map(v -> "{\"dup\":1," + v.substring(1, v.length() - 1) + ",\"dup\":2}");
    return Arbitraries.oneOf(opened, mutated, mutated, duplicated, jsonish);
  }

  private static String mutate(String s, int op, int at, String piece) {
    if (s.isEmpty()) {
      return piece;
    }
    int i = at % s.length();
    return switch (op) {
      case 0 -> s.substring(0, i) + s.substring(i + 1);
      case 1 -> s.substring(0, i) + piece + s.substring(i);
      case 2 -> s.substring(0, i) + piece + s.substring(Math.min(s.length(), i + 1));
      case 3 -> s.substring(0, i) + s.charAt(i) + s.substring(i);
      case 4 -> s.substring(0, i);
      default -> s + piece;
    };
  }
}
