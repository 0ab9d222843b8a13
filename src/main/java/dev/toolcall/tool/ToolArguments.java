package dev.toolcall.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import java.util.Objects;

/**
 * The arguments of a tool call in the three untagged forms of the source documents: one string, a list of strings,
 * or structured JSON. Every form keeps the raw text the model sent, byte for byte: {@link #raw()} is never
 * normalised, so what a person approved is exactly what was shown.
 *
 * <p>Instances are immutable and thread-safe. {@link Json#node()} returns a defensive copy.
 */
public sealed interface ToolArguments permits ToolArguments.Text, ToolArguments.TextList, ToolArguments.Json {

  /** The raw text as the model (or a person editing it) wrote it. */
  String raw();

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
    /** Checks both parts are present and keeps a private copy of the node. */
    public Json {
      Objects.requireNonNull(raw, "raw");
      node = Objects.requireNonNull(node, "node").deepCopy();
    }

    /** A copy of the parsed JSON: changing it changes nothing here. */
    @Override
    public JsonNode node() {
      return node.deepCopy();
    }

    @Override
    public String toString() {
      return raw;
    }
  }
}
