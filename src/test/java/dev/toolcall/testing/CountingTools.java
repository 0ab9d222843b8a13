package dev.toolcall.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tools for validation tests that count how often they are entered, so a test can prove that no invalid call ever
 * reaches a tool. Thread-safe.
 */
public final class CountingTools {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final AtomicInteger entries = new AtomicInteger();

  /** How many times any tool made here has been entered. */
  public int entries() {
    return entries.get();
  }

  /** A tool named {@code name} whose parameters schema is {@code schemaJson}; it counts each entry. */
  public Tool tool(String name, String schemaJson) {
    ToolDefinition definition = ToolDefinition.builder(name).description("counting test tool " + name)
        .parameters(json(schemaJson)).build();
    return Tool.of(definition, invocation -> {
      entries.incrementAndGet();
      return ToolResult.of("entered " + name);
    });
  }

  /** Parses a schema written in a test. */
  public static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
