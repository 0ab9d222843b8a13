package dev.toolcall.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * A client transport that remembers the JSON-RPC id of each {@code tools/call} by its progress token, so that a
 * cancelled call can be named to the server in {@code notifications/cancelled}: the SDK's client has no way to send
 * that notification, so it goes out through the transport here.
 *
 * <p>It also reads a {@code tools/call} result the SDK cannot read whole (the SDK reads a result through its
 * transport's {@link #unmarshalFrom}): each content part it cannot read (a type it does not know, such as
 * {@code "video"}, or a malformed part) is replaced, in its place, by a text part saying what was left out, and the
 * rest is read as usual. A result that still cannot be read becomes an {@link UnreadableResultException} with a
 * message for the model. In the same way, a {@code tools/list} page with a tool it cannot read loses that tool (with
 * a warning naming it), not the whole list. Everything else is passed through.
 */
final class CancellingTransport implements McpClientTransport {
  static final String CANCELLED = "notifications/cancelled";
  private static final Logger log = LoggerFactory.getLogger(CancellingTransport.class);

  private final McpClientTransport inner;
  private final Map<Object, Object> requestIds = new ConcurrentHashMap<>();
  private final Map<Object, Boolean> cancelledEarly = new ConcurrentHashMap<>();
  /** The tools of the last list that could not be read (name and why), so each is warned of once. */
  private volatile Set<String> unreadableTools = Set.of();

  CancellingTransport(McpClientTransport inner) {
    this.inner = inner;
  }

  @Override
  public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    return inner.connect(handler);
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCRequest r && McpSchema.METHOD_TOOLS_CALL.equals(r.method())
        && r.params() instanceof McpSchema.CallToolRequest call && call.meta() != null) {
      Object token = call.meta().get("progressToken");
      if (token != null) {
        if (cancelledEarly.remove(token) != null) {
          return Mono.empty(); // cancelled before it was sent: the server never hears of it, so it never runs
        }
        requestIds.put(token, r.id());
      }
    }
    return inner.sendMessage(message);
  }

  /**
   * Forgets the call with {@code token} (it ended). A mark of a call cancelled before it was sent stays until its
   * request comes by (a disposed request usually never does; the mark is a few bytes).
   */
  void forget(Object token) {
    requestIds.remove(token);
  }

  /**
   * Tells the server the call with {@code token} is cancelled. When its request has not been sent yet, it never
   * will be (false is returned).
   */
  boolean cancel(Object token, String reason) {
    Object id = requestIds.remove(token);
    if (id == null) {
      cancelledEarly.put(token, Boolean.TRUE);
      return false;
    }
    inner.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, CANCELLED,
        Map.of("requestId", id, "reason", reason))).subscribe(v -> { }, e -> { });
    return true;
  }

  @Override
  public void setExceptionHandler(Consumer<Throwable> handler) {
    inner.setExceptionHandler(handler);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return inner.closeGracefully();
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    if (McpSchema.ListToolsResult.class.equals(typeRef.getType())) {
      return toolList(data, typeRef);
    }
    if (!McpSchema.CallToolResult.class.equals(typeRef.getType())) {
      return inner.unmarshalFrom(data, typeRef);
    }
    try {
      return inner.unmarshalFrom(data, typeRef);
    } catch (RuntimeException whole) {
      if (data instanceof Map<?, ?> result && result.get("content") instanceof List<?> parts) {
        Map<Object, Object> readable = new LinkedHashMap<>(result);
        List<Object> kept = new ArrayList<>(parts.size());
        for (Object part : parts) {
          try {
            inner.unmarshalFrom(part, CONTENT);
            kept.add(part);
          } catch (RuntimeException e) {
            log.debug("MCP tools/call result: a part could not be read and is left out: {}", e.getMessage());
            kept.add(Map.of("type", "text", "text", leftOut(part)));
          }
        }
        readable.put("content", kept);
        try {
          return inner.unmarshalFrom(readable, typeRef);
        } catch (RuntimeException e) {
          whole.addSuppressed(e);
        }
      }
      throw new UnreadableResultException(whole);
    }
  }

  private static final TypeRef<McpSchema.Content> CONTENT = new TypeRef<>() { };
  private static final TypeRef<McpSchema.Tool> TOOL = new TypeRef<>() { };

  /**
   * A {@code tools/list} page; when it cannot be read whole, each tool that cannot be read is left out (with a
   * warning, once while it stays so) and the others are read.
   */
  private <T> T toolList(Object data, TypeRef<T> typeRef) {
    try {
      T all = inner.unmarshalFrom(data, typeRef);
      unreadableTools = Set.of();
      return all;
    } catch (RuntimeException whole) {
      if (!(data instanceof Map<?, ?> page) || !(page.get("tools") instanceof List<?> tools)) {
        throw whole;
      }
      List<Object> kept = new ArrayList<>(tools.size());
      Set<String> unreadable = new HashSet<>();
      for (Object tool : tools) {
        try {
          inner.unmarshalFrom(tool, TOOL);
          kept.add(tool);
        } catch (RuntimeException e) {
          String name = tool instanceof Map<?, ?> m && m.get("name") instanceof String n ? bounded(n) : "?";
          String why = name + ": " + e.getMessage();
          unreadable.add(why);
          if (!unreadableTools.contains(why)) {
            log.warn("MCP server tool '{}' left out: this client cannot read its description ({})", name,
                bounded(String.valueOf(e.getMessage()), 300));
          }
        }
      }
      unreadableTools = Set.copyOf(unreadable);
      Map<Object, Object> readable = new LinkedHashMap<>(page);
      readable.put("tools", kept);
      return inner.unmarshalFrom(readable, typeRef);
    }
  }

  /** What the model reads in place of a part that could not be read: its type (and MIME type), never its data. */
  static String leftOut(Object part) {
    String type = part instanceof Map<?, ?> m && m.get("type") instanceof String t ? "'" + bounded(t) + "'" : null;
    String mime = part instanceof Map<?, ?> m && m.get("mimeType") instanceof String t ? bounded(t) : null;
    return "[a part" + (type == null ? " of no known type" : " of type " + type)
        + (mime == null ? "" : " (" + mime + ")") + " was left out: this client cannot read it]";
  }

  /** Server text in a note for the model or a log line, kept short. */
  private static String bounded(String s) {
    return bounded(s, 64);
  }

  private static String bounded(String s, int max) {
    return s.length() <= max ? s : s.substring(0, Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max) + "…";
  }

  /**
   * A {@code tools/call} result that cannot be read even part by part (its shape is not a result's); the message is
   * for the model and names no Java type, the cause holds the mapper's error.
   */
  static final class UnreadableResultException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableResultException(Throwable cause) {
      super("the server's result is not a tools/call result this client can read", cause);
    }
  }

  @Override
  public List<String> protocolVersions() {
    return inner.protocolVersions();
  }
}
