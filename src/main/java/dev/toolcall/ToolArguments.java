package dev.toolcall;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import java.util.Objects;

/**
 * The arguments of a tool call in the three untagged forms of the source documents: one string, a list of strings,
 * or structured JSON. Every form keeps the raw text the model sent, byte for byte: {@link #raw()} is never
 * normalised, so what a person approved is exactly what was shown.
 *
 * <h2>Reading a model's text</h2>
 * {@link dev.toolcall.tool.ParsedArguments#parse(String, dev.toolcall.tool.ArgumentLimits)} decides the form from the text, after any leading JSON whitespace:
 * <ul>
 *   <li>blank text (providers send {@code ""} for a call without arguments): the empty object, {@link Json} with
 *       the blank raw text kept;
 *   <li>a JSON string: {@link Text} with the decoded value;
 *   <li>a JSON array whose elements are all strings (including {@code []}): {@link TextList};
 *   <li>any other JSON value (object, array, number, {@code true}, {@code false}, {@code null}): {@link Json};
 *   <li>text that does not start like JSON: {@link Text} whose value is the raw text (a plain shell command). Text
 *       starting with a digit, {@code -}, {@code t}, {@code f} or {@code n} is JSON only if all of it is valid
 *       JSON ({@code 42}, {@code null}) and plain text otherwise ({@code ls -la}, {@code npm test}).
 * </ul>
 * Text starting with <code>{</code>, {@code [} or {@code "} must be one well-formed JSON value (and text starting
 * with <code>}</code> or {@code ]} is refused as broken JSON). Refused, with a
 * {@link dev.toolcall.tool.ParsedArguments.Invalid} and never an exception: malformed JSON, text after the value, comments, single
 * quotes, trailing commas, {@code NaN}/{@code Infinity}, leading zeros, a byte order mark, duplicate property names
 * (what a person approves could otherwise differ from what the tool reads), unpaired surrogates whether written
 * directly or as escapes, control characters other than tab and newline in plain text, and anything beyond the
 * {@link dev.toolcall.tool.ArgumentLimits} (including a number too large for a 64-bit float, such as {@code 1e400}).
 *
 * <p>Instances are immutable and thread-safe. {@link Json#node()} returns a defensive copy.
 */
public sealed interface ToolArguments permits ToolArguments.Text, ToolArguments.TextList, ToolArguments.Json {

  /** The raw text as the model (or a person editing it) wrote it. */
  String raw();

  /**
   * The JSON value these arguments stand for, the one a tool's schema is checked against: a JSON string for
   * {@link Text}, an array of strings for {@link TextList}, the node for {@link Json}. A fresh copy each time.
   */
  JsonNode asJson();

  /**
   * These arguments read as a {@code type} (a record, a bean, a {@code Map}, a {@code String} for {@link Text}) by
   * Jackson data binding: properties by name, unknown properties refused, {@code null} for a missing one (a
   * primitive component gets its default). Use it inside a tool; a mismatch is the model's error, so it surfaces as
   * {@link ToolException#invalidArguments a ToolException of kind INVALID_ARGUMENTS} whose message, for the model,
   * names the property and what was wrong: the call ends FAILED with
   * {@link dev.toolcall.FailureKind#INVALID_ARGUMENTS}, which never ends an agent's turn (the model reads it and may
   * call again).
   *
   * @throws ToolException if the arguments do not fit {@code type}
   * @throws NullPointerException if {@code type} is null
   */
  default <T> T as(Class<T> type) throws ToolException {
    return TypedArguments.read(asJson(), type, TypedArguments.MAPPER);
  }

  /**
   * Like {@link #as(Class)} with a mapper of your own (modules for {@code java.time}, naming strategies, lenient
   * unknown properties).
   *
   * @throws ToolException if the arguments do not fit {@code type}
   */
  default <T> T as(Class<T> type, ObjectMapper mapper) throws ToolException {
    return TypedArguments.read(asJson(), type, Objects.requireNonNull(mapper, "mapper"));
  }

  /** A single unnamed string argument, for example a shell command. */
  static Text ofText(String value) {
    Objects.requireNonNull(value, "value");
    return new Text(value, value);
  }

  /** A list of unnamed string arguments. */
  static TextList ofList(List<String> values) {
    List<String> copy = List.copyOf(Objects.requireNonNull(values, "values"));
    StringBuilder raw = new StringBuilder("[");
    for (int i = 0; i < copy.size(); i++) {
      if (i > 0) {
        raw.append(',');
      }
      raw.append(JsonNodeFactory.instance.textNode(copy.get(i)).toString());
    }
    return new TextList(raw.append(']').toString(), copy);
  }

  /** Structured arguments; the raw text is the node's compact JSON. */
  static Json ofJson(JsonNode node) {
    Objects.requireNonNull(node, "node");
    return new Json(node.toString(), node);
  }

  /** No arguments: the empty JSON object {@code {}}. */
  static Json empty() {
    return EMPTY;
  }

  /** The shared empty-object arguments. */
  Json EMPTY = new Json("{}", JsonNodeFactory.instance.objectNode());

  /**
   * One unnamed string argument.
   *
   * @param raw the raw text
   * @param value the string
   */
  record Text(String raw, String value) implements ToolArguments {
    /** Checks both parts are present. */
    public Text {
      Objects.requireNonNull(raw, "raw");
      Objects.requireNonNull(value, "value");
    }

    /** The value as a JSON string. */
    @Override
    public JsonNode asJson() {
      return JsonNodeFactory.instance.textNode(value);
    }

    @Override
    public String toString() {
      return raw;
    }
  }

  /**
   * A list of unnamed string arguments.
   *
   * @param raw the raw text
   * @param values the strings, immutable
   */
  record TextList(String raw, List<String> values) implements ToolArguments {
    /** Checks both parts are present and copies the list. */
    public TextList {
      Objects.requireNonNull(raw, "raw");
      values = List.copyOf(values);
    }

    /** The values as a JSON array of strings. */
    @Override
    public JsonNode asJson() {
      ArrayNode array = JsonNodeFactory.instance.arrayNode(values.size());
      values.forEach(array::add);
      return array;
    }

    @Override
    public String toString() {
      return raw;
    }
  }

  /**
   * Structured JSON arguments.
   *
   * @param raw the raw text
   * @param node the parsed JSON; stored as a private copy
   */
  record Json(String raw, JsonNode node) implements ToolArguments {
    /**
     * Checks both parts are present and keeps a private copy of the node (a tree nobody can change, such as the
     * argument parser builds, is kept as it is).
     */
    public Json {
      Objects.requireNonNull(raw, "raw");
      Objects.requireNonNull(node, "node");
      node = dev.toolcall.internal.json.FrozenJson.isFrozen(node) ? node : JsonCopies.copy(node);
    }

    /** A copy of the parsed JSON: changing it changes nothing here. */
    @Override
    public JsonNode node() {
      return JsonCopies.copy(node);
    }

    /** A copy of the parsed JSON, as {@link #node()}. */
    @Override
    public JsonNode asJson() {
      return JsonCopies.copy(node);
    }

    /**
     * The value of top-level property {@code name} when the arguments are a JSON object and it is a JSON string, read
     * without copying the tree (what a permission rule compares, such as a shell tool's {@code command}).
     *
     * @return the string, or empty when there is no such property or it is not a string
     * @throws NullPointerException if {@code name} is null
     */
    public java.util.Optional<String> text(String name) {
      JsonNode v = node.get(Objects.requireNonNull(name, "name"));
      return v != null && v.isTextual() ? java.util.Optional.of(v.textValue()) : java.util.Optional.empty();
    }

    @Override
    public String toString() {
      return raw;
    }
  }
}
