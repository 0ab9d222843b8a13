package dev.toolcall.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The MCP server of the demo's {@code --mcp}: a real server on the MCP Java SDK's stdio transport, started by the
 * demo as a child JVM (nothing from the network). It offers {@code git_log} (read-only, reports progress) and
 * {@code ci_chart} (read-only, returns a text and a PNG image), which the demo attaches under the prefix
 * {@code repo.}, so the model calls them as {@code repo_git_log} and {@code repo_ci_chart}.
 */
public final class DemoMcpServer {
  private DemoMcpServer() {}

  public static void main(String[] args) {
    JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
    McpServer.sync(new StdioServerTransportProvider(mapper)).serverInfo("demo-repo", "1").jsonMapper(mapper)
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(tool("git_log", "Recent commits of the repository", DemoMcpServer::gitLog),
            tool("ci_chart", "A chart of the last CI runs", (ex, req) -> McpSchema.CallToolResult.builder()
                .addTextContent("7 of the last 10 builds passed; the last 3 failed.")
                .addContent(McpSchema.ImageContent.builder(Base64.getEncoder().encodeToString(new byte[48_213]),
                    "image/png").build())
                .build()))
        .build();
  }

  private static McpServerFeatures.SyncToolSpecification tool(String name, String description,
      java.util.function.BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> f) {
    McpSchema.Tool t = McpSchema.Tool.builder(name, Map.<String, Object>of("type", "object")).description(description)
        .annotations(new McpSchema.ToolAnnotations(null, true, false, true, false, null)).build();
    return McpServerFeatures.SyncToolSpecification.builder().tool(t).callHandler(f).build();
  }

  private static McpSchema.CallToolResult gitLog(McpSyncServerExchange ex, McpSchema.CallToolRequest req) {
    Object token = req.meta() == null ? null : req.meta().get("progressToken");
    String[] steps = {"reading refs", "walking history", "formatting"};
    for (int i = 0; i < steps.length; i++) {
      if (token != null) {
        ex.progressNotification(new McpSchema.ProgressNotification(token, (double) i + 1, 3.0, steps[i], null));
      }
      try {
        Thread.sleep(150);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return McpSchema.CallToolResult.builder().addTextContent(
        "a1f3c2e Make OrderService validate totals\n9b0d7aa Bump jackson to 2.22.1\n44c1e90 Add createsOrder test")
        .build();
  }

  /** The command that starts this server with the demo's own class path. */
  static List<String> command() {
    List<String> cp = new ArrayList<>();
    ClassLoader cl = DemoMcpServer.class.getClassLoader();
    if (cl instanceof URLClassLoader u) {
      for (URL url : u.getURLs()) {
        try {
          cp.add(Path.of(url.toURI()).toString());
        } catch (URISyntaxException | IllegalArgumentException e) {
          // not a file: skip
        }
      }
    }
    String classPath = cp.isEmpty() ? System.getProperty("java.class.path") : String.join(File.pathSeparator, cp);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return List.of(java, "-cp", classPath, "-XX:TieredStopAtLevel=1", DemoMcpServer.class.getName());
  }
}
