package dev.toolcall;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a tool returns: its parts (text, and content passed through untouched such as images) and, optionally, a
 * structured JSON value. Immutable and thread-safe; the library never copies a result's data, so a large image is
 * shared by every event and view of the call, never duplicated.
 *
 * <p>A plain string is the one-line case: {@code ToolResult.of("3 files")} is one text part.
 *
 * <h2>What the model reads</h2>
 * {@link #content()} is derived in one way: the {@link ToolContent#modelText()} of each part, in order, joined by a
 * line break (a text part is its text, an embedded text resource its text, an image, audio, a binary resource or a
 * link a bracketed placeholder naming its type and size); a result with no parts but a structured value reads as that
 * value's compact JSON; an empty result reads as the empty string. When a result has both text parts and a structured
 * value, the model reads the text (MCP servers send the structured value as text too).
 *
 * <h2>Structured results</h2>
 * When the tool's definition has an {@linkplain dev.toolcall.tool.ToolDefinition#outputSchema() output schema}, the runtime checks
 * {@link #structured()} against it before the call completes; a result that does not match, or a missing structured
 * value, ends the call FAILED ({@code tool_error}) with the problems, for the model.
 *
 * @param parts the parts, in order (copied, immutable)
 * @param structured the structured value, if any (copied)
 */
public record ToolResult(List<ToolContent> parts, Optional<JsonNode> structured) {

  /** Checks the parts are present and copies them. */
  public ToolResult {
    parts = List.copyOf(Objects.requireNonNull(parts, "parts"));
    Objects.requireNonNull(structured, "structured");
    structured = structured.map(JsonNode::deepCopy);
  }

  /** A result of one text part: {@code content} (possibly empty). */
  public ToolResult(String content) {
    this(List.of(new ToolContent.Text(Objects.requireNonNull(content, "content"))), Optional.empty());
  }

  /** A result of one text part: {@code content} (possibly empty). */
  public static ToolResult of(String content) {
    return new ToolResult(content);
  }

  /** A result of {@code parts}, in order. */
  public static ToolResult of(ToolContent... parts) {
    return new ToolResult(List.of(Objects.requireNonNull(parts, "parts")), Optional.empty());
  }

  /** A result with a structured value and no parts: the model reads the value's JSON. */
  public static ToolResult structured(JsonNode value) {
    return new ToolResult(List.of(), Optional.of(Objects.requireNonNull(value, "value")));
  }

  /** This result with {@code value} as its structured value, its parts unchanged. */
  public ToolResult withStructured(JsonNode value) {
    return new ToolResult(parts, Optional.of(Objects.requireNonNull(value, "value")));
  }

  /** What the model reads for this result; see the class documentation for how it is derived. Never null. */
  public String content() {
    int n = parts.size();
    if (n == 1) {
      return parts.get(0).modelText();
    }
    if (n == 0) {
      return structured.map(JsonNode::toString).orElse("");
    }
    List<String> lines = new ArrayList<>(n);
    for (ToolContent p : parts) {
      lines.add(p.modelText());
    }
    return String.join("\n", lines);
  }

  /** Whether every part is text (the result is plain text). */
  public boolean isTextOnly() {
    for (ToolContent p : parts) {
      if (!(p instanceof ToolContent.Text)) {
        return false;
      }
    }
    return true;
  }
}
