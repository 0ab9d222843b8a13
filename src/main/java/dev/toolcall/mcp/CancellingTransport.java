package dev.toolcall.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * A client transport that remembers the JSON-RPC id of each {@code tools/call} by its progress token, so that a
 * cancelled call can be named to the server in {@code notifications/cancelled}: the SDK's client has no way to send
 * that notification, so it goes out through the transport here. Everything else is passed through.
 */
final class CancellingTransport implements McpClientTransport {
  static final String CANCELLED = "notifications/cancelled";

  private final McpClientTransport inner;
  private final Map<Object, Object> requestIds = new ConcurrentHashMap<>();
  private final Map<Object, Boolean> cancelledEarly = new ConcurrentHashMap<>();

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
    return inner.unmarshalFrom(data, typeRef);
  }

  @Override
  public List<String> protocolVersions() {
    return inner.protocolVersions();
  }
}
