package dev.toolcall.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * A real MCP server, built with the SDK's stdio server, that the MCP tests start as a child JVM. Its tools answer,
 * fail, report progress, hang until cancelled, return an image and structured content, change the tool list, and
 * destroy things (a destructive hint); {@code plain} has no hints at all. {@code shadow}, {@code unshadow} and
 * {@code break} change the tool list in ways that test the client (a tool another source owns by that name, a tool
 * whose schema is broken); a marker tool added last in each change tells a test the whole change was applied.
 *
 * <p>The SDK's server does not surface {@code notifications/cancelled} to tools, so this server reads its stdin
 * through a tap that sees each {@code tools/call} (its JSON-RPC id and progress token) and each cancellation: a
 * cancelled {@code hang} call returns, and the {@code cancelled} tool lists the progress tokens of the calls the
 * client cancelled, with the reasons.
 *
 * <p>The SDK's server can only write the content types it knows; {@link RawContent} rewrites its output so that the
 * {@code video} tool answers with raw JSON the SDK's client cannot read: a part of {@code "type": "video"} and an
 * embedded resource with neither text nor blob; the {@code unreadable} tool's result is no result at all.
 */
public final class TestMcpServer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> TOKEN_BY_ID = new ConcurrentHashMap<>();
  private static final Map<String, CountDownLatch> HANGING = new ConcurrentHashMap<>();
  private static final List<String> CANCELLED = new CopyOnWriteArrayList<>();
  private static volatile McpSyncServer server;

  private TestMcpServer() {}

  /** A server tool name of 128 characters (the most MCP allows), and another that differs from it only at the end. */
  static final String LONG_NAME = "l".repeat(127) + "1";
  static final String LONG_NAME_2 = "l".repeat(127) + "2";

  /**
   * Starts the server. {@code --bad-schema} adds a tool whose input schema is not a valid JSON Schema;
   * {@code --unreadable-tool} a tool the SDK's client cannot read (its input schema is a string);
   * {@code --long-names} adds two tools of 128-character names.
   */
  public static void main(String[] args) throws IOException {
    System.err.println("pid=" + ProcessHandle.current().pid());
    PipedInputStream in = new PipedInputStream(1 << 20);
    PipedOutputStream feed = new PipedOutputStream(in);
    Thread tap = new Thread(() -> tap(feed), "stdin-tap");
    tap.setDaemon(true);
    tap.start();
    JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(JSON);
    StdioServerTransportProvider transport = new StdioServerTransportProvider(mapper, in,
        new RawContent(System.out));
    List<McpServerFeatures.SyncToolSpecification> specs = new java.util.ArrayList<>(List.of(
        tool("echo", "Echoes its text", readOnly(), (ex, req) -> text("echo: " + req.arguments().get("text"))),
        tool("fail", "Always fails", harmless(), (ex, req) -> McpSchema.CallToolResult.builder()
            .addTextContent("disk full: cannot write /var/data").isError(true).build()),
        tool("progress", "Reports progress", readOnly(), TestMcpServer::progress),
        tool("hang", "Runs until cancelled", harmless(), TestMcpServer::hang),
        tool("cancelled", "Lists cancelled calls", readOnly(), (ex, req) -> text(String.join(",", CANCELLED))),
        tool("image", "Returns an image", readOnly(), (ex, req) -> McpSchema.CallToolResult.builder()
            .addTextContent("a 1x1 pixel")
            .addContent(McpSchema.ImageContent.builder(Base64.getEncoder().encodeToString(new byte[70]),
                "image/png").build())
            .addContent(McpSchema.EmbeddedResource.builder(McpSchema.TextResourceContents
                .builder("file:///notes.txt", "notes inside").mimeType("text/plain").build()).build())
            .build()),
        weather(),
        tool("evolve", "Adds a tool to the server", harmless(), TestMcpServer::evolve),
        tool("plain", "No hints", null, (ex, req) -> text("plain")),
        tool("video", "Returns content types the client does not know", readOnly(),
            (ex, req) -> McpSchema.CallToolResult.builder().addTextContent("before")
                .addTextContent(RawContent.VIDEO)
                .addContent(McpSchema.ImageContent.builder("AAAA", "image/png").build())
                .addTextContent(RawContent.BAD_RESOURCE)
                .addTextContent("after").build()),
        tool("unreadable", "Returns a result that is not a result", readOnly(),
            (ex, req) -> text(RawContent.NOT_A_RESULT)),
        tool("drop_db", "Drops the database", new McpSchema.ToolAnnotations(null, false, true, false, false,
            null), (ex, req) -> text("dropped"))));
    List<String> flags = List.of(args);
    if (flags.contains("--bad-schema")) {
      specs.add(badSchema("bad_schema"));
    }
    if (flags.contains("--unreadable-tool")) {
      specs.add(tool("odd", RawContent.UNREADABLE_TOOL, readOnly(), (ex, req) -> text("odd")));
    }
    if (flags.contains("--long-names")) {
      specs.add(tool(LONG_NAME, "A long name", readOnly(), (ex, req) -> text("long: " + req.name())));
      specs.add(tool(LONG_NAME_2, "Another long name", readOnly(), (ex, req) -> text("long: " + req.name())));
    }
    specs.add(tool("shadow", "Adds added.tool, then marker.one", readOnly(), (ex, req) -> {
      server.addTool(tool("added.tool", "Added by shadow", readOnly(), (e, r) -> text("the server's added.tool")));
      server.addTool(tool("marker.one", "Added after added.tool", readOnly(), (e, r) -> text("marker")));
      server.notifyToolsListChanged();
      return text("shadowed");
    }));
    specs.add(tool("unshadow", "Removes added.tool, then marker.one", readOnly(), (ex, req) -> {
      server.removeTool("added.tool");
      server.removeTool("marker.one");
      server.notifyToolsListChanged();
      return text("unshadowed");
    }));
    specs.add(tool("break", "Removes drop_db, adds a tool with a bad schema, then marker.two", readOnly(),
        (ex, req) -> {
          server.removeTool("drop_db");
          server.addTool(badSchema("bad_later"));
          server.addTool(tool("marker.two", "Added after bad_later", readOnly(), (e, r) -> text("marker")));
          server.notifyToolsListChanged();
          return text("broken");
        }));
    server = McpServer.sync(transport).serverInfo("test-server", "1")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .jsonMapper(mapper)
        .tools(specs)
        .build();
  }

  /**
   * A tool whose input schema, as the client reads it, is not a valid JSON Schema ({@code "type": "nonsense"}): the
   * SDK's server refuses such a tool, so {@link RawContent} breaks its schema on the way out.
   */
  private static McpServerFeatures.SyncToolSpecification badSchema(String name) {
    McpSchema.Tool t = McpSchema.Tool.builder(name, Map.of("type", "object", "properties",
        Map.of("a", Map.of("type", "string")))).description(RawContent.BAD_SCHEMA).annotations(readOnly()).build();
    return McpServerFeatures.SyncToolSpecification.builder().tool(t).callHandler((ex, req) -> text("bad")).build();
  }

  private static McpSchema.ToolAnnotations readOnly() {
    return new McpSchema.ToolAnnotations(null, true, false, true, false, null);
  }

  /** Not read-only, not destructive (without hints MCP counts a tool as destructive). */
  private static McpSchema.ToolAnnotations harmless() {
    return new McpSchema.ToolAnnotations(null, false, false, false, false, null);
  }

  private static McpServerFeatures.SyncToolSpecification tool(String name, String description,
      McpSchema.ToolAnnotations annotations,
      BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
    McpSchema.Tool.Builder b = McpSchema.Tool.builder(name,
        Map.of("type", "object", "properties", Map.of("text", Map.of("type", "string")))).description(description);
    if (annotations != null) {
      b.annotations(annotations);
    }
    return McpServerFeatures.SyncToolSpecification.builder().tool(b.build()).callHandler(handler).build();
  }

  private static McpServerFeatures.SyncToolSpecification weather() {
    McpSchema.Tool t = McpSchema.Tool.builder("weather.current", Map.of("type", "object", "properties",
            Map.of("city", Map.of("type", "string")), "required", List.of("city")))
        .description("Current weather")
        .outputSchema(Map.of("type", "object", "properties", Map.of("temperature", Map.of("type", "number")),
            "required", List.of("temperature")))
        .annotations(readOnly()).build();
    return McpServerFeatures.SyncToolSpecification.builder().tool(t).callHandler((ex, req) ->
        McpSchema.CallToolResult.builder().addTextContent("21.5 C in " + req.arguments().get("city"))
            .structuredContent(Map.of("temperature", 21.5)).build()).build();
  }

  private static McpSchema.CallToolResult text(String s) {
    return McpSchema.CallToolResult.builder().addTextContent(s).build();
  }

  private static McpSchema.CallToolResult progress(McpSyncServerExchange ex, McpSchema.CallToolRequest req) {
    Object token = req.meta() == null ? null : req.meta().get("progressToken");
    for (int i = 1; i <= 3; i++) {
      if (token != null) {
        ex.progressNotification(new McpSchema.ProgressNotification(token, (double) i, 3.0, "step " + i, null));
      }
    }
    return text("progress done");
  }

  private static McpSchema.CallToolResult hang(McpSyncServerExchange ex, McpSchema.CallToolRequest req) {
    Object progressToken = req.meta() == null ? null : req.meta().get("progressToken");
    String token = String.valueOf(progressToken);
    if (progressToken != null) {
      ex.progressNotification(new McpSchema.ProgressNotification(progressToken, 0.0, null, "started", null));
    }
    CountDownLatch latch = HANGING.computeIfAbsent(token, t -> new CountDownLatch(1));
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return text("hang ended");
  }

  private static McpSchema.CallToolResult evolve(McpSyncServerExchange ex, McpSchema.CallToolRequest req) {
    server.removeTool("fail");
    server.addTool(tool("added.tool", "Added while running", readOnly(), (e, r) -> text("added answers")));
    server.notifyToolsListChanged();
    return text("evolved");
  }

  /** Copies stdin to the server line by line, noting calls and cancellations. */
  private static void tap(OutputStream feed) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        note(line);
        feed.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        feed.flush();
      }
    } catch (IOException e) {
      // the client went away
    } finally {
      try {
        feed.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  private static void note(String line) {
    try {
      JsonNode m = JSON.readTree(line);
      String method = m.path("method").asText("");
      if (method.equals("tools/call")) {
        JsonNode token = m.path("params").path("_meta").path("progressToken");
        if (!token.isMissingNode()) {
          TOKEN_BY_ID.put(m.path("id").asText(), token.asText());
        }
      } else if (method.equals("notifications/cancelled")) {
        String token = TOKEN_BY_ID.getOrDefault(m.path("params").path("requestId").asText(), "?");
        CANCELLED.add(token + ":" + m.path("params").path("reason").asText(""));
        HANGING.computeIfAbsent(token, t -> new CountDownLatch(1)).countDown();
      }
    } catch (IOException | RuntimeException e) {
      // not JSON: the server will answer it
    }
  }

  /**
   * The server's stdout, line by line (one JSON-RPC message a line): a text part {@link #VIDEO} becomes a
   * {@code video} part, {@link #BAD_RESOURCE} an embedded resource with neither text nor blob, and the input schema
   * of a listed tool described {@link #BAD_SCHEMA} is broken, and that of one described {@link #UNREADABLE_TOOL}
   * becomes a string.
   */
  static final class RawContent extends OutputStream {
    static final String VIDEO = "@@video@@";
    static final String BAD_RESOURCE = "@@bad-resource@@";
    static final String NOT_A_RESULT = "@@not-a-result@@";
    static final String BAD_SCHEMA = "@@bad-schema@@";
    static final String UNREADABLE_TOOL = "@@unreadable-tool@@";
    private final OutputStream out;
    private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

    RawContent(OutputStream out) {
      this.out = out;
    }

    @Override
    public synchronized void write(int b) throws IOException {
      line.write(b);
      if (b == '\n') {
        out.write(rewrite(line.toString(StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
        line.reset();
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }

    @Override
    public synchronized void flush() throws IOException {
      out.flush();
    }

    private static String rewrite(String l) {
      if (!l.contains(VIDEO) && !l.contains(BAD_RESOURCE) && !l.contains(NOT_A_RESULT) && !l.contains(BAD_SCHEMA)
          && !l.contains(UNREADABLE_TOOL)) {
        return l;
      }
      try {
        JsonNode m = JSON.readTree(l);
        for (JsonNode tool : m.path("result").path("tools")) {
          if (tool.path("description").asText("").equals(BAD_SCHEMA)) {
            ((com.fasterxml.jackson.databind.node.ObjectNode) tool.path("inputSchema").path("properties").path("a"))
                .put("type", "nonsense");
          } else if (tool.path("description").asText("").equals(UNREADABLE_TOOL)) {
            ((com.fasterxml.jackson.databind.node.ObjectNode) tool).put("inputSchema", "not a schema");
          }
        }
        if (l.contains(NOT_A_RESULT)) {
          ((com.fasterxml.jackson.databind.node.ObjectNode) m.path("result")).put("content", "not a list")
              .put("isError", "perhaps");
          return JSON.writeValueAsString(m) + "\n";
        }
        if (m.path("result").path("content") instanceof com.fasterxml.jackson.databind.node.ArrayNode content) {
          for (int i = 0; i < content.size(); i++) {
            String text = content.get(i).path("text").asText("");
            if (text.equals(VIDEO)) {
              content.set(i, JSON.readTree("{\"type\":\"video\",\"mimeType\":\"video/mp4\",\"data\":\"AAAA\"}"));
            } else if (text.equals(BAD_RESOURCE)) {
              content.set(i, JSON.readTree("{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///x\"}}"));
            }
          }
        }
        return JSON.writeValueAsString(m) + "\n";
      } catch (IOException | RuntimeException e) {
        return l;
      }
    }
  }
}
