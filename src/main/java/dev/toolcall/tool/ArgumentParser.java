package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import static dev.toolcall.tool.ModelText.count;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.FailureKind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads argument text into {@link ToolArguments} under {@link ArgumentLimits}. Immutable and thread-safe: one
 * instance serves any number of threads (Jackson factories are thread-safe; each parse has its own parser).
 *
 * <p>An object or array in the common subset of JSON is read in one pass by {@link FastJson}, without a Jackson
 * parser; any other text, and every text it does not read with certainty, goes to Jackson's token stream, which
 * words every refusal. Both build the same tree.
 *
 * <p>The JSON tree is built here from the token stream instead of by an {@code ObjectMapper}, so that every check
 * (duplicate keys, unpaired surrogates from escapes, numbers out of range) can name the line and column of the
 * offending token. Nothing thrown by Jackson (or anything else) leaves {@link #parse}: every failure is a
 * {@link ParsedArguments.Invalid}.
 */
final class ArgumentParser {

  private static final ArgumentParser DEFAULT = new ArgumentParser(ArgumentLimits.DEFAULT);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int MAX_REASON = 300;

  private static final Pattern START_MARKER =
      Pattern.compile("\\(start marker at \\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]\\)");
  private static final Pattern SOURCE = Pattern.compile("\\s*\\[Source: [^\\]]*\\]");
  private static final Pattern FEATURE_HINT = Pattern.compile(":? ?\\(?[^()]*Feature '[A-Z_]+'[^()]*\\)?");
  private static final Pattern BACKTICKED = Pattern.compile(":? ?(enable )?`[^`]*`( to allow)?");
  private static final Pattern LEAKS =
      Pattern.compile("(?i)jackson|fasterxml|feature|streamread|jsonread|exception|\\bat [a-z]+\\.[a-z]");

  private final ArgumentLimits limits;
  private final JsonFactory factory;

  private ArgumentParser(ArgumentLimits limits) {
    this.limits = limits;
    this.factory = JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxDocumentLength(limits.maxDocumentLength())
            .maxNestingDepth(limits.maxNestingDepth())
            .maxStringLength(limits.maxStringLength())
            .maxNameLength(limits.maxStringLength())
            .maxNumberLength(limits.maxNumberLength())
            .build())
        .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
        // property names come from the model: never put them in the JVM's string pool
        .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
        .build();
  }

  /** The parser for {@code limits}; the default limits share one instance. */
  static ArgumentParser forLimits(ArgumentLimits limits) {
    return limits.equals(DEFAULT.limits) ? DEFAULT : new ArgumentParser(limits);
  }

  ArgumentLimits limits() {
    return limits;
  }

  /** Reads {@code raw} (null reads as no arguments); never throws. */
  ParsedArguments parse(String raw) {
    String text = raw == null ? "" : raw;
    Object read = readTree(text);
    try {
      return read instanceof JsonNode ? new ParsedArguments.Ok(form(text, (JsonNode) read)) : (ParsedArguments) read;
    } catch (RuntimeException e) {
      return malformed("The arguments could not be read. Send one well-formed JSON value.");
    }
  }

  /**
   * Reads {@code raw} (not null) as {@link #parse} does, but hands back a JSON value as the fresh tree it built,
   * which nobody else holds: a {@link JsonNode} (make the arguments with {@link #form}), else the
   * {@link ParsedArguments} (refused, blank or plain text). Lets {@link ToolCallValidator} check the schema
   * against the tree itself instead of a copy of the arguments' tree. Never throws.
   */
  Object readTree(String raw) {
    try {
      return read(raw);
    } catch (RuntimeException | StackOverflowError e) {
      // Not expected: every known failure is handled below. Keep the promise that nothing escapes.
      return malformed("The arguments could not be read. Send one well-formed JSON value.");
    }
  }

  private Object read(String raw) {
    int length = raw.length();
    if (length > limits.maxDocumentLength()) {
      return tooLarge("The arguments are " + count(length) + " characters long; the limit is "
          + count(limits.maxDocumentLength()) + " characters. Send shorter arguments.");
    }
    int start = skipWhitespace(raw, 0);
    if (start == length || raw.isBlank()) {
      return new ParsedArguments.Ok(new ToolArguments.Json(raw, ToolArguments.EMPTY.node()));
    }
    char opening = raw.charAt(start);
    if (opening == '{' || opening == '[') {
      JsonNode fast = FastJson.read(raw, start, limits); // checks for unpaired surrogates as it goes
      if (fast != null) {
        return fast;
      }
    }
    int lone = loneSurrogate(raw);
    if (lone >= 0) {
      return malformed("The arguments contain invalid Unicode: an unpaired surrogate code unit "
          + String.format("\\u%04X", (int) raw.charAt(lone)) + " at " + ModelText.position(raw, lone)
          + ". Send valid UTF-8 text.");
    }
    char first = raw.charAt(start);
    if (first == '\uFEFF') {
      return malformed("The arguments start with a byte order mark (U+FEFF) at "
          + ModelText.position(raw, start) + ". Send the JSON without it.");
    }
    if (first == '{' || first == '[' || first == '"' || first == '}' || first == ']') {
      return readJson(raw);
    }
    if ((first >= '0' && first <= '9') || first == '-' || first == 't' || first == 'f' || first == 'n') {
      Object json = readJson(raw);
      if (!(json instanceof ParsedArguments.Invalid)
          || ((ParsedArguments.Invalid) json).kind() == FailureKind.ARGUMENTS_TOO_LARGE) {
        return json;
      }
    }
    return plainText(raw);
  }

  /** Text that does not start like JSON: one string, taken as it is. */
  private ParsedArguments plainText(String raw) {
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
        return malformed("The arguments contain the control character " + String.format("\\u%04X", (int) c)
            + " at " + ModelText.position(raw, i) + ". Plain-text arguments may contain no control characters"
            + " other than tab and newline; send a JSON string with escapes if the value needs one.");
      }
    }
    if (raw.length() > limits.maxStringLength()) {
      return tooLarge("The arguments are " + count(raw.length()) + " characters of plain text; the limit for one"
          + " string is " + count(limits.maxStringLength()) + " characters. Send a shorter value.");
    }
    return new ParsedArguments.Ok(new ToolArguments.Text(raw, raw));
  }

  /**
   * The fresh tree of the one JSON value {@code raw} holds, or why it was refused, read by Jackson: the path for any
   * text {@link FastJson} does not read, and the one that words every refusal. Package-private for the test that
   * both paths agree.
   */
  Object readJson(String raw) {
    JsonParser parser = null;
    try {
      parser = factory.createParser(raw);
      JsonNode node = value(parser, parser.nextToken(), raw);
      int after = skipWhitespace(raw, (int) Math.min(raw.length(), parser.currentLocation().getCharOffset()));
      if (after < raw.length()) {
        return malformed("The arguments are not valid JSON: unexpected text after the end of the JSON value at "
            + ModelText.position(raw, after) + ". Send exactly one JSON value.");
      }
      return node;
    } catch (Refusal r) {
      return new ParsedArguments.Invalid(r.kind, r.getMessage());
    } catch (StreamConstraintsException e) {
      return tooLarge(limitMessage(e.getOriginalMessage(), parser));
    } catch (JacksonException e) {
      return malformed(syntaxMessage(e, raw));
    } catch (IOException e) {
      return malformed("The arguments could not be read as JSON. Send one well-formed JSON value.");
    } finally {
      if (parser != null) {
        try {
          parser.close();
        } catch (IOException ignored) {
          // a string source holds no resource
        }
      }
    }
  }

  /** The seed's untagged form of a parsed value. */
  static ToolArguments form(String raw, JsonNode node) {
    if (node.isTextual()) {
      return new ToolArguments.Text(raw, node.textValue());
    }
    if (node.isArray()) {
      List<String> values = new ArrayList<>(node.size());
      for (JsonNode element : node) {
        if (!element.isTextual()) {
          return new ToolArguments.Json(raw, node);
        }
        values.add(element.textValue());
      }
      return new ToolArguments.TextList(raw, values);
    }
    return new ToolArguments.Json(raw, node);
  }

  /** Builds the value starting at {@code token}; recursion is bounded by the nesting limit. */
  private static JsonNode value(JsonParser p, JsonToken token, String raw) throws IOException, Refusal {
    if (token == null) {
      throw new Refusal(FailureKind.MALFORMED_ARGUMENTS, "The arguments are not valid JSON: the text ends before "
          + "the JSON value is complete. Send one well-formed JSON value.");
    }
    switch (token) {
      case START_OBJECT: {
        ObjectNode object = NODES.objectNode();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          checkUnicode(name, "property name", p);
          if (object.has(name)) {
            throw new Refusal(FailureKind.MALFORMED_ARGUMENTS, "The arguments are not valid: the property \""
                + ModelText.visible(name, 80, false) + "\" appears more than once (again at "
                + where(p.currentTokenLocation()) + "). Send each property once.");
          }
          object.set(name, value(p, p.nextToken(), raw));
        }
        if (t != JsonToken.END_OBJECT) {
          throw new Refusal(FailureKind.MALFORMED_ARGUMENTS, "The arguments are not valid JSON: an object is not "
              + "closed. Send one well-formed JSON value.");
        }
        return object;
      }
      case START_ARRAY: {
        ArrayNode array = NODES.arrayNode();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
          array.add(value(p, t, raw));
        }
        return array;
      }
      case VALUE_STRING: {
        String text = p.getText();
        checkUnicode(text, "string", p);
        return NODES.textNode(text);
      }
      case VALUE_NUMBER_INT:
        switch (p.getNumberType()) {
          case INT:
            return NODES.numberNode(p.getIntValue());
          case LONG:
            return NODES.numberNode(p.getLongValue());
          default:
            return NODES.numberNode(p.getBigIntegerValue());
        }
      case VALUE_NUMBER_FLOAT: {
        double d = p.getDoubleValue();
        if (Double.isInfinite(d) || Double.isNaN(d)) {
          throw new Refusal(FailureKind.ARGUMENTS_TOO_LARGE, "The arguments are too large: the number "
              + ModelText.visible(p.getText(), 40, false) + " at " + where(p.currentTokenLocation())
              + " is beyond the range of a 64-bit floating-point number (about 1.8e308). Send a smaller number.");
        }
        return NODES.numberNode(d);
      }
      case VALUE_TRUE:
        return NODES.booleanNode(true);
      case VALUE_FALSE:
        return NODES.booleanNode(false);
      case VALUE_NULL:
        return NODES.nullNode();
      default:
        throw new Refusal(FailureKind.MALFORMED_ARGUMENTS, "The arguments are not valid JSON: unexpected "
            + token.asString() + " at " + where(p.currentTokenLocation()) + ". Send one well-formed JSON value.");
    }
  }

  /**
   * A lone surrogate inside decoded text can only come from an escape such as {@code \}{@code uD800}. The position
   * is that of {@code p}'s current token, read only when there is a problem (a location per token costs bytes).
   */
  private static void checkUnicode(String text, String what, JsonParser p) throws Refusal {
    int lone = loneSurrogate(text);
    if (lone >= 0) {
      throw new Refusal(FailureKind.MALFORMED_ARGUMENTS, "The arguments contain invalid Unicode: the " + what
          + " at " + where(p.currentTokenLocation()) + " has an escape for an unpaired surrogate ("
          + String.format("\\u%04X", (int) text.charAt(lone)) + "). A \\uD800-\\uDBFF escape must be followed by"
          + " a \\uDC00-\\uDFFF escape; send valid Unicode.");
    }
  }

  private static int loneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  private static int skipWhitespace(String text, int from) {
    int i = from;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        break;
      }
      i++;
    }
    return i;
  }

  private static String where(JsonLocation at) {
    return at == null ? "an unknown position" : ModelText.at(at.getLineNr(), at.getColumnNr());
  }

  private String limitMessage(String original, JsonParser parser) {
    String m = original == null ? "" : original;
    String where = parser == null ? "" : " at " + where(parser.currentTokenLocation());
    if (m.startsWith("Document nesting depth")) {
      return "The arguments are too large: arrays and objects are nested more than "
          + limits.maxNestingDepth() + " levels deep" + where + ". Send flatter arguments.";
    }
    if (m.startsWith("String value length")) {
      return "The arguments are too large: a string" + where + " is longer than the limit of "
          + count(limits.maxStringLength()) + " characters. Send a shorter value.";
    }
    if (m.startsWith("Name length")) {
      return "The arguments are too large: a property name" + where + " is longer than the limit of "
          + count(limits.maxStringLength()) + " characters. Send a shorter name.";
    }
    if (m.startsWith("Number value length")) {
      return "The arguments are too large: a number" + where + " has more than "
          + count(limits.maxNumberLength()) + " characters. Send a smaller number, or a string.";
    }
    if (m.startsWith("Document length")) {
      return "The arguments are too large: they are longer than " + count(limits.maxDocumentLength())
          + " characters. Send shorter arguments.";
    }
    return "The arguments are too large: they exceed a parsing limit (" + count(limits.maxDocumentLength())
        + " characters in all, nesting " + limits.maxNestingDepth() + " levels, strings of "
        + count(limits.maxStringLength()) + " characters, numbers of " + count(limits.maxNumberLength())
        + " characters). Send smaller arguments.";
  }

  /** Jackson's own words, with its source excerpts, class and feature names removed, plus a hint. */
  private static String syntaxMessage(JacksonException e, String raw) {
    String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    m = START_MARKER.matcher(m).replaceAll("(opened at line $1, column $2)");
    m = SOURCE.matcher(m).replaceAll("");
    m = FEATURE_HINT.matcher(m).replaceAll("");
    m = BACKTICKED.matcher(m).replaceAll("");
    m = m.strip();
    if (m.isEmpty() || LEAKS.matcher(m).find()) {
      m = "unexpected input";
    }
    String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    JsonLocation at = e.getLocation();
    long offset = at == null ? -1 : at.getCharOffset();
    String hint = "";
    if (original.contains("comment")) {
      hint = " Comments are not allowed in JSON.";
    } else if (original.contains("Non-standard token")) {
      hint = " NaN and Infinity are not JSON numbers; send a number or a string.";
    } else if (original.contains("(code 39)")) {
      hint = " Use double quotes (\") around strings and property names.";
    } else if (offset >= 0 && offset < raw.length() && (raw.charAt((int) offset) == '}'
        || raw.charAt((int) offset) == ']') && previousNonWhitespace(raw, (int) offset) == ',') {
      hint = " Remove the trailing comma.";
    } else if (original.contains("end-of-input")) {
      hint = " The text ends before the JSON value is complete.";
    }
    String position = at == null ? "" : " at " + ModelText.at(at.getLineNr(), at.getColumnNr());
    return "The arguments are not valid JSON: " + ModelText.visible(m, MAX_REASON, false) + position + "." + hint
        + " Send one well-formed JSON value.";
  }

  private static char previousNonWhitespace(String text, int before) {
    for (int i = before - 1; i >= 0; i--) {
      char c = text.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return c;
      }
    }
    return 0;
  }

  private static ParsedArguments.Invalid malformed(String message) {
    return new ParsedArguments.Invalid(FailureKind.MALFORMED_ARGUMENTS, message);
  }

  private static ParsedArguments.Invalid tooLarge(String message) {
    return new ParsedArguments.Invalid(FailureKind.ARGUMENTS_TOO_LARGE, message);
  }

  /** A refusal found while building the tree; control flow only, never leaves this class. */
  private static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;
    final FailureKind kind;

    Refusal(FailureKind kind, String message) {
      super(message, null, false, false);
      this.kind = kind;
    }
  }
}
