package dev.toolcall.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * PostgreSQL's {@code text} and {@code jsonb} cannot hold U+0000, which a tool's result, a model's arguments or ids
 * may contain. The store writes every string with NUL written as U+FFFF '0' and U+FFFF itself as U+FFFF U+FFFF (in
 * text columns, and in each string and key of a JSON document), and reads it back exactly. A string holding neither
 * character is stored as it is, so rows written before (and lookups of ordinary ids) are unchanged. U+FFFF is a
 * Unicode noncharacter: text that holds it is rare, and is still stored exactly.
 */
final class Nul {
  static final char MARK = '\uFFFF';
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

  private Nul() {}

  /** {@code s} as the store writes it; null stays null. */
  static String escape(String s) {
    if (s == null || (s.indexOf('\0') < 0 && s.indexOf(MARK) < 0)) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\0') {
        b.append(MARK).append('0');
      } else if (c == MARK) {
        b.append(MARK).append(MARK);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /**
   * The string {@link #escape} wrote; null stays null.
   *
   * @throws IllegalArgumentException if {@code s} holds a U+FFFF that escape did not write
   */
  static String unescape(String s) {
    if (s == null || s.indexOf(MARK) < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != MARK) {
        b.append(c);
        continue;
      }
      char n = i + 1 < s.length() ? s.charAt(i + 1) : ' ';
      if (n == '0') {
        b.append('\0');
      } else if (n == MARK) {
        b.append(MARK);
      } else {
        throw new IllegalArgumentException("a U+FFFF at " + i + " is not followed by '0' or U+FFFF");
      }
      i++;
    }
    return b.toString();
  }

  /** A JSON document as the store writes it: each string and key escaped ({@code json} itself when none needs it). */
  static String escapeJson(String json) {
    if (json.indexOf("\\u0000") < 0 && json.indexOf(MARK) < 0) { // Jackson writes NUL as \u0000
      return json;
    }
    return map(json, Nul::escape);
  }

  /**
   * The JSON document {@link #escapeJson} wrote.
   *
   * @throws IllegalArgumentException if it is not JSON or holds a U+FFFF that escape did not write
   */
  static String unescapeJson(String json) {
    if (json.indexOf(MARK) < 0) {
      return json;
    }
    return map(json, Nul::unescape);
  }

  private static String map(String json, UnaryOperator<String> f) {
    try {
      return JSON.writeValueAsString(map(JSON.readTree(json), f));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static JsonNode map(JsonNode n, UnaryOperator<String> f) {
    if (n.isTextual()) {
      return TextNode.valueOf(f.apply(n.textValue()));
    }
    if (n.isObject()) {
      ObjectNode o = JSON.createObjectNode();
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        o.set(f.apply(e.getKey()), map(e.getValue(), f));
      }
      return o;
    }
    if (n.isArray()) {
      ArrayNode a = JSON.createArrayNode();
      n.forEach(x -> a.add(map(x, f)));
      return a;
    }
    return n;
  }
}
