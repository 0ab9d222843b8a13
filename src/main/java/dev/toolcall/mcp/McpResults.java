package dev.toolcall.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.ToolContent;
import dev.toolcall.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** An MCP {@code tools/call} result as a {@link ToolResult}: its content parts and its structured content. */
final class McpResults {
  private static final ObjectMapper JSON = new ObjectMapper();

  private McpResults() {}

  static ToolResult result(McpSchema.CallToolResult r) {
    List<ToolContent> parts = new ArrayList<>();
    for (McpSchema.Content c : r.content() == null ? List.<McpSchema.Content>of() : r.content()) {
      ToolContent p = part(c);
      if (p != null) {
        parts.add(p);
      }
    }
    Optional<JsonNode> structured = r.structuredContent() == null ? Optional.empty()
        : Optional.of(JSON.valueToTree(r.structuredContent()));
    return new ToolResult(parts, structured);
  }

  private static ToolContent part(McpSchema.Content c) {
    if (c instanceof McpSchema.TextContent t) {
      return new ToolContent.Text(t.text() == null ? "" : t.text());
    } else if (c instanceof McpSchema.ImageContent i) {
      return new ToolContent.Image(orDefault(i.mimeType(), "image/*"), i.data() == null ? "" : i.data());
    } else if (c instanceof McpSchema.AudioContent a) {
      return new ToolContent.Audio(orDefault(a.mimeType(), "audio/*"), a.data() == null ? "" : a.data());
    } else if (c instanceof McpSchema.ResourceLink l) {
      return new ToolContent.ResourceLink(l.uri(), l.name() == null ? "" : l.name(),
          Optional.ofNullable(l.mimeType()));
    } else if (c instanceof McpSchema.EmbeddedResource e) {
      McpSchema.ResourceContents rc = e.resource();
      if (rc instanceof McpSchema.TextResourceContents t) {
        return ToolContent.Resource.ofText(t.uri(), t.mimeType(), t.text() == null ? "" : t.text());
      } else if (rc instanceof McpSchema.BlobResourceContents b) {
        return ToolContent.Resource.ofBlob(b.uri(), b.mimeType(), b.blob() == null ? "" : b.blob());
      }
    }
    return null; // a content type this version does not know: left out
  }

  private static String orDefault(String s, String d) {
    return s == null || s.isBlank() ? d : s;
  }
}
