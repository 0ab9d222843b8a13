package dev.toolcall.tool;

import java.util.Objects;

/**
 * What a tool returns: the content the model will see. Immutable.
 *
 * @param content the result text (JSON or prose), possibly empty
 */
public record ToolResult(String content) {

  /** Checks the content is present. */
  public ToolResult {
    Objects.requireNonNull(content, "content");
  }

  /** A result with {@code content}. */
  public static ToolResult of(String content) {
    return new ToolResult(content);
  }
}
