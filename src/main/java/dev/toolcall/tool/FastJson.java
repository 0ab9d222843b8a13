package dev.toolcall.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.toolcall.internal.json.FrozenJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;

/**
 * One pass over argument text in the common subset of JSON, building the same tree {@link ArgumentParser}'s Jackson
 * path builds, without a Jackson parser and its buffers per call. It accepts only text it can read with certainty:
 * an object or array (nested within the limits) of strings, integers of at most 18 digits, decimal numbers, booleans
 * and null, separated by JSON whitespace, with nothing after the value. For anything else (a syntax error, a
 * duplicate property, an escape for a surrogate, a control character, a value near a limit, a number out of range) it
 * returns null and the caller reads the text with Jackson, which refuses with the position and the words the model
 * reads. So it never refuses anything itself: every message comes from the one existing path.
 *
 * <p>Numbers are read as Jackson reads them: an integer that fits an {@code int} is an int node, else a long node;
 * a number with a fraction or an exponent is a double node ({@link Double#parseDouble}, correctly rounded, as
 * Jackson's default). Property order is kept. Objects and arrays are built frozen ({@link FrozenJson}), so the
 * arguments keep the tree without copying it. Stateless and thread-safe.
 */
final class FastJson {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** The most digits of an integer read here; longer ones go to Jackson (which may make a big integer). */
  private static final int MAX_INT_DIGITS = 18;
  /** The longest property name kept in {@link #NAMES}. */
  private static final int MAX_CACHED_NAME = 32;
  /**
   * Property names read lately, by a hash of their characters: at most 512 short strings, shared by every reader
   * (each slot is written whole, so a reader sees either string, both of which are right for their characters).
   */
  private static final String[] NAMES = new String[512];

  private final String s;
  private final int n;
  private final ArgumentLimits limits;
  private int i;

  private FastJson(String s, ArgumentLimits limits, int from) {
    this.s = s;
    this.n = s.length();
    this.limits = limits;
    this.i = from;
  }

  /**
   * The tree of {@code raw}, whose first non-whitespace character at {@code start} opens an object or array, or null
   * when the text is outside the subset (then read it with Jackson). The caller has checked the document's length.
   * Text it reads holds no unpaired surrogate: one anywhere (outside strings any character but JSON's own ends the
   * read) makes it answer null, so the caller's check and message apply.
   */
  static JsonNode read(String raw, int start, ArgumentLimits limits) {
    char first = raw.charAt(start);
    if (first != '{' && first != '[') {
      return null;
    }
    FastJson r = new FastJson(raw, limits, start);
    JsonNode node = r.container(0);
    if (node == null) {
      return null;
    }
    r.skipWhitespace();
    return r.i == r.n ? node : null;
  }

  /** The object or array at {@code i}, nested {@code depth} deep around it; null when outside the subset. */
  private JsonNode container(int depth) {
    if (depth + 1 >= limits.maxNestingDepth()) {
      return null; // near the nesting limit: Jackson decides, and says where
    }
    char open = s.charAt(i++);
    skipWhitespace();
    if (i >= n) {
      return null;
    }
    if (open == '{') {
      if (s.charAt(i) == '}') {
        i++;
        return FrozenJson.object(new LinkedHashMap<>(0));
      }
      LinkedHashMap<String, JsonNode> map = new LinkedHashMap<>(4); // kept by the arguments: small
      while (true) {
        if (i >= n || s.charAt(i) != '"') {
          return null;
        }
        String name = name();
        if (name == null) {
          return null;
        }
        skipWhitespace();
        if (i >= n || s.charAt(i) != ':') {
          return null;
        }
        i++;
        skipWhitespace();
        JsonNode value = value(depth + 1);
        if (value == null || map.put(name, value) != null) {
          return null; // a duplicate: Jackson's path refuses it with its position
        }
        skipWhitespace();
        if (i >= n) {
          return null;
        }
        char c = s.charAt(i++);
        if (c == '}') {
          return FrozenJson.object(map);
        }
        if (c != ',') {
          return null;
        }
        skipWhitespace();
      }
    }
    if (s.charAt(i) == ']') {
      i++;
      return FrozenJson.array(new ArrayList<>(0));
    }
    ArrayList<JsonNode> list = new ArrayList<>(4);
    while (true) {
      JsonNode value = value(depth + 1);
      if (value == null) {
        return null;
      }
      list.add(value);
      skipWhitespace();
      if (i >= n) {
        return null;
      }
      char c = s.charAt(i++);
      if (c == ']') {
        return FrozenJson.array(list);
      }
      if (c != ',') {
        return null;
      }
      skipWhitespace();
    }
  }

  /** The value at {@code i}; null when outside the subset. */
  private JsonNode value(int depth) {
    if (i >= n) {
      return null;
    }
    char c = s.charAt(i);
    switch (c) {
      case '{':
      case '[':
        return container(depth);
      case '"': {
        String text = string();
        return text == null ? null : NODES.textNode(text);
      }
      case 't':
        return literal("true") ? NODES.booleanNode(true) : null;
      case 'f':
        return literal("false") ? NODES.booleanNode(false) : null;
      case 'n':
        return literal("null") ? NODES.nullNode() : null;
      default:
        return c == '-' || (c >= '0' && c <= '9') ? number() : null;
    }
  }

  private boolean literal(String word) {
    if (!s.startsWith(word, i)) {
      return false;
    }
    i += word.length();
    return true; // what follows must be a separator: the container's loop checks it
  }

  /**
   * The property name whose opening quote is at {@code i}; null when outside the subset. A short name without escapes
   * is taken from {@link #NAMES} when it was read before (tools' property names repeat call after call), which saves
   * its copy and the computing of its hash.
   */
  private String name() {
    int start = i + 1;
    int h = 0;
    for (int k = start; k < n && k - start <= MAX_CACHED_NAME; k++) {
      char c = s.charAt(k);
      if (c == '"') {
        int length = k - start;
        if (length >= limits.maxStringLength()) {
          return null;
        }
        int slot = (h ^ (h >>> 11)) & (NAMES.length - 1);
        String cached = NAMES[slot];
        if (cached == null || cached.length() != length || !s.regionMatches(start, cached, 0, length)) {
          NAMES[slot] = cached = s.substring(start, k); // a benign race: any string of these characters will do
        }
        i = k + 1;
        return cached;
      }
      if (c == '\\' || c < 0x20 || Character.isSurrogate(c)) {
        break; // read by string(), which checks
      }
      h = 31 * h + c;
    }
    return string();
  }

  /** The string whose opening quote is at {@code i}, decoded; null when outside the subset. */
  private String string() {
    int start = ++i;
    StringBuilder b = null;
    int from = start;
    while (i < n) {
      char c = s.charAt(i);
      if (c == '"') {
        String text;
        if (b == null) {
          text = s.substring(start, i);
        } else {
          text = b.append(s, from, i).toString();
        }
        i++;
        return text.length() < limits.maxStringLength() ? text : null;
      }
      if (c < 0x20) {
        return null; // a raw control character: Jackson's path names it
      }
      if (c >= '\uD800' && c <= '\uDFFF') { // a surrogate: only as the first of a pair, which is taken whole
        if (c > '\uDBFF' || i + 1 >= n || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return null; // an unpaired one: the caller's check names it
        }
        i += 2;
        continue;
      }
      if (c == '\\') {
        if (i + 1 >= n) {
          return null;
        }
        if (b == null) {
          b = new StringBuilder(Math.min(n - start, 64));
        }
        b.append(s, from, i);
        char e = s.charAt(i + 1);
        char d;
        int width = 2;
        switch (e) {
          case '"':
            d = '"';
            break;
          case '\\':
            d = '\\';
            break;
          case '/':
            d = '/';
            break;
          case 'b':
            d = '\b';
            break;
          case 'f':
            d = '\f';
            break;
          case 'n':
            d = '\n';
            break;
          case 'r':
            d = '\r';
            break;
          case 't':
            d = '\t';
            break;
          case 'u': {
            if (i + 6 > n) {
              return null;
            }
            int v = 0;
            for (int k = i + 2; k < i + 6; k++) {
              int h = Character.digit(s.charAt(k), 16);
              if (h < 0 || s.charAt(k) > 'f') { // ASCII hex digits only
                return null;
              }
              v = (v << 4) | h;
            }
            d = (char) v;
            if (Character.isSurrogate(d)) {
              return null; // pairing is checked on Jackson's path, with the position
            }
            width = 6;
            break;
          }
          default:
            return null;
        }
        b.append(d);
        i += width;
        from = i;
        continue;
      }
      i++;
    }
    return null; // not closed
  }

  /** The number at {@code i} in JSON's grammar; null when outside the subset or the grammar. */
  private JsonNode number() {
    int start = i;
    boolean negative = s.charAt(i) == '-';
    if (negative) {
      i++;
    }
    int digitsFrom = i;
    if (i >= n) {
      return null;
    }
    char c = s.charAt(i);
    if (c == '0') {
      i++;
    } else if (c >= '1' && c <= '9') {
      while (i < n && isDigit(s.charAt(i))) {
        i++;
      }
    } else {
      return null;
    }
    int intDigits = i - digitsFrom;
    boolean integral = true;
    if (i < n && s.charAt(i) == '.') {
      integral = false;
      i++;
      int f = i;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
      }
      if (i == f) {
        return null;
      }
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      integral = false;
      i++;
      if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      int f = i;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
      }
      if (i == f) {
        return null;
      }
    }
    if (i - start >= limits.maxNumberLength()) {
      return null; // near the length limit: Jackson decides
    }
    if (integral) {
      if (intDigits > MAX_INT_DIGITS) {
        return null;
      }
      long v = 0;
      for (int k = digitsFrom; k < i; k++) {
        v = v * 10 + (s.charAt(k) - '0');
      }
      if (negative) {
        v = -v;
      }
      return v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
    }
    double d = Double.parseDouble(s.substring(start, i));
    return Double.isInfinite(d) ? null : NODES.numberNode(d);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void skipWhitespace() {
    while (i < n) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      i++;
    }
  }
}
