package dev.toolcall.a2a;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.wire.SessionAccess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An A2A (Agent2Agent) server for the agents of an {@link AgentDirectory}, on the JDK's own
 * {@code com.sun.net.httpserver.HttpServer} (no dependency): JSON-RPC 2.0 over HTTP with Server-Sent Events, A2A
 * protocol 1.0, and the 0.3 method names for older clients.
 *
 * <table>
 *   <caption>Routes</caption>
 *   <tr><th>route</th><th>what</th></tr>
 *   <tr><td>{@code GET /.well-known/agent-card.json}</td><td>the agent card: name, description, version, skills,
 *       {@code capabilities.streaming: true}, and the JSON-RPC interface ({@link #endpointUri()}) for protocol 1.0
 *       and 0.3</td></tr>
 *   <tr><td>{@code POST /a2a}</td><td>JSON-RPC: {@code SendMessage} ({@code message/send}),
 *       {@code SendStreamingMessage} ({@code message/stream}), {@code GetTask} ({@code tasks/get}),
 *       {@code CancelTask} ({@code tasks/cancel}), {@code SubscribeToTask} ({@code tasks/resubscribe}); header
 *       {@code Authorization: Bearer <credential>}</td></tr>
 * </table>
 *
 * <h2>Tasks and turns</h2>
 * A context is a conversation: a message's {@code contextId} is the conversation id of the directory, and the
 * message must carry it (its credential is issued for it, so the server never chooses one). A message without
 * {@code taskId} starts a task whose turn is {@link AgentDirectory#send}. The task is {@code working} while the turn
 * runs and ends:
 * <ul>
 *   <li>{@code input-required} when the turn needs a person: the status message carries a text part listing the
 *       requests and, per request, a data part holding the wire format's {@code interrupt}
 *       ({@link dev.toolcall.wire.WireFormat#interrupt}); the task is answered by a message on the same task
 *       ({@code taskId} and {@code contextId}) with one data part {@code {"v":1,"decisions":[...]}}
 *       ({@link dev.toolcall.wire.WireFormat#parseDecisions}), resumed with {@link AgentDirectory#resumeWith} on
 *       whichever instance the message reached. When every request's deadline passes unanswered, the requests are
 *       denied (as always) and the task goes on by itself;</li>
 *   <li>{@code completed} with the answer as an artifact named {@code answer} and as the status message;</li>
 *   <li>{@code failed} when the turn failed; {@code canceled} after {@code CancelTask} (the turn aborted);
 *       {@code rejected} when the context had a turn under way (answer or cancel its task first).</li>
 * </ul>
 * The status message of the task after an answer carries one {@code decision.result} data part per decision, as
 * {@link dev.toolcall.conversation.Agent#resumeWith} reported it: each decision is checked on its own and only the
 * accepted ones change anything (a replayed, foreign, stale or disallowed one is reported and ignored; when a request
 * stays open the task is {@code input-required} again). A message whose decisions do not parse is refused whole
 * ({@code -32602}, the wire format's problems in the error's data) and nothing is decided.
 *
 * <p>A message answering a task that no longer waits for input (another client's answer was taken first, the
 * deadline moved it on, it ended) is refused ({@code -32004}); of two answers racing, exactly one is taken (a
 * compare-and-set on the task's row). {@code SendMessage} returns when the task is {@code input-required} or has
 * ended (or at once with {@code configuration.returnImmediately}); streams end there too. While a turn runs here, a
 * stream carries each change of its tool calls as a {@code working} status update (a text part and the wire
 * format's event as a data part).
 *
 * <h2>Any instance</h2>
 * The tasks are in a {@link TaskStore}; give every instance the same one ({@link TaskStore#jdbc}) and the same
 * conversation store (in the directory), and a task started on one instance is read, answered, streamed
 * ({@code SubscribeToTask}) and cancelled on any. Call events stream only from the instance that runs the turn; other
 * instances stream the task's changes (read every second). A cancel of a turn running on another instance is a flag
 * on the task's row that instance reads within half a second.
 *
 * <h2>Security and bad input</h2>
 * Every method is checked by the {@link SessionAccess} for the task's context: reading ({@code GetTask},
 * {@code SubscribeToTask}, starting a turn) needs {@link SessionAccess#mayRead}, answering and cancelling
 * {@link SessionAccess#mayDecide}. An unknown task id and one of a context the credential may not read are answered
 * alike ({@code -32001} task not found). Bodies are bounded ({@link Builder#maxBodyBytes}, 413), so are open streams
 * ({@link Builder#maxStreams}, 503); a request a browser marks cross-site ({@code Origin} not this server's, or
 * {@code Sec-Fetch-Site: cross-site}) is refused (403) and no CORS is granted; the body must be
 * {@code application/json} (415). Malformed JSON and duplicate keys are {@code -32700}, a request that is not a
 * JSON-RPC 2.0 call {@code -32600} (batches included), an unknown method {@code -32601}, bad params {@code -32602}.
 * A refusal changes nothing.
 *
 * <h2>What is not implemented</h2>
 * Push notifications ({@code -32003}), {@code ListTasks} and the extended card ({@code -32601}), file and URL parts
 * (refused), the REST and gRPC bindings, and streaming the answer token by token (it arrives whole at the turn's
 * end). TLS and logins are a reverse proxy's and the {@link SessionAccess}'s business.
 *
 * <p>Thread-safe. Handlers run on the server's daemon threads ({@code toolcall-a2a-http-N}); a stream or a blocking
 * send holds one while it waits. {@link #close} stops the server; the runtime, directory and store are the caller's.
 */
public final class A2aServer implements AutoCloseable {

  static {
    dev.toolcall.internal.HttpServers.noDelay(); // an SSE frame must not wait ~40 ms for the client's delayed ACK
  }

  private static final Logger log = LoggerFactory.getLogger(A2aServer.class);
  static final String CARD_PATH = "/.well-known/agent-card.json";
  static final String ENDPOINT = "/a2a";

  private final Builder config;
  private final Tasks tasks;
  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicInteger streams = new AtomicInteger();

  private A2aServer(Builder b) throws IOException {
    this.config = b;
    this.tasks = new Tasks(b.runtime, b.directory, b.store, b.access, b.maxWait, b.heartbeat.toMillis());
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "toolcall-a2a-http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.server = HttpServer.create(new InetSocketAddress(b.host, b.port), 64);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /**
   * A server builder.
   *
   * @param runtime the runtime the directory's agents run their calls on (its events become status updates)
   * @param directory the agents, found by conversation id (the A2A context id); build their agents with the same
   *     runtime
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(ToolCallRuntime runtime, AgentDirectory directory) {
    return new Builder(runtime, directory);
  }

  /** The port the server listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The server's base URL, e.g. {@code http://127.0.0.1:8123} (the agent card is under it). */
  public URI baseUri() {
    return URI.create("http://" + server.getAddress().getHostString() + ":" + port());
  }

  /** The JSON-RPC endpoint's URL as the agent card announces it. */
  public URI endpointUri() {
    return (config.publicUri != null ? config.publicUri : baseUri()).resolve(ENDPOINT);
  }

  /** How many streams are open now. */
  public int openStreams() {
    return streams.get();
  }

  /**
   * Stops the server at once: open streams end (clients resubscribe, to this or another instance); turns under way
   * go on and write their end to the task store. Waits up to five seconds for the handler threads.
   */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    tasks.close();
  }

  @Override
  public String toString() {
    return "A2aServer[" + baseUri() + "]";
  }

  // ----------------------------------------------------------------------------------------------------- HTTP

  private void handle(HttpExchange x) throws IOException {
    try {
      route(x);
    } catch (RpcException e) {
      reply(x, e.httpStatus(), error(null, e));
    } catch (IOException e) {
      log.debug("client left", e);
    } catch (RuntimeException e) {
      log.warn("request failed: {} {}", x.getRequestMethod(), x.getRequestURI().getPath(), e);
      try {
        reply(x, 500, error(null, new RpcException(RpcException.INTERNAL, "internal error")));
      } catch (IOException ignored) {
        // the client is gone
      }
    } finally {
      x.close();
    }
  }

  private void route(HttpExchange x) throws IOException {
    String path = x.getRequestURI().getRawPath();
    String method = x.getRequestMethod();
    if (path.equals(CARD_PATH) || path.equals("/.well-known/agent.json")) {
      if (!method.equals("GET")) {
        throw new RpcException(RpcException.INVALID_REQUEST, "use GET", 405, null);
      }
      send(x, 200, A2aJson.text(card()).getBytes(StandardCharsets.UTF_8));
      return;
    }
    if (!path.equals(ENDPOINT)) {
      throw new RpcException(RpcException.INVALID_REQUEST, "no such route: the endpoint is " + ENDPOINT, 404, null);
    }
    if (!method.equals("POST")) {
      throw new RpcException(RpcException.INVALID_REQUEST, "use POST", 405, null);
    }
    sameOrigin(x);
    List<String> types = x.getRequestHeaders().get("Content-Type");
    if (types == null || types.size() != 1 || !types.get(0).toLowerCase(Locale.ROOT).startsWith("application/json")) {
      throw new RpcException(RpcException.INVALID_REQUEST, "the body must be application/json", 415, null);
    }
    String version = x.getRequestHeaders().getFirst("A2A-Version");
    if (version != null && !version.isBlank() && !version.strip().startsWith("1.0")
        && !version.strip().startsWith("0.3")) {
      throw new RpcException(RpcException.VERSION_NOT_SUPPORTED, "A2A-Version " + version.strip()
          + " is not supported: this server speaks 1.0 (and the 0.3 method names)");
    }
    String body = body(x);
    String auth = x.getRequestHeaders().getFirst("Authorization");
    String credential = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).strip() : null;
    call(x, body, credential);
  }

  /** The methods, by their 1.0 and 0.3 names. */
  private enum Method {
    SEND("SendMessage", "message/send"),
    STREAM("SendStreamingMessage", "message/stream"),
    GET("GetTask", "tasks/get"),
    CANCEL("CancelTask", "tasks/cancel"),
    SUBSCRIBE("SubscribeToTask", "tasks/resubscribe");

    final String name;
    final String legacy;

    Method(String name, String legacy) {
      this.name = name;
      this.legacy = legacy;
    }
  }

  private void call(HttpExchange x, String body, String credential) throws IOException {
    JsonNode request;
    try {
      request = A2aJson.STRICT.readTree(body);
    } catch (JsonProcessingException e) {
      throw new RpcException(RpcException.PARSE_ERROR, "the body is not valid JSON: " + e.getOriginalMessage());
    }
    if (request == null || !request.isObject()) {
      throw new RpcException(RpcException.INVALID_REQUEST, request != null && request.isArray()
          ? "batches are not supported: send one request per call" : "the body must be a JSON-RPC request object");
    }
    JsonNode id = request.get("id");
    if (id != null && !id.isTextual() && !id.isIntegralNumber() && !id.isNull()) {
      throw new RpcException(RpcException.INVALID_REQUEST, "id must be a string, an integer or null");
    }
    try {
      if (!"2.0".equals(request.path("jsonrpc").textValue())) {
        throw new RpcException(RpcException.INVALID_REQUEST, "jsonrpc must be \"2.0\"");
      }
      if (id == null) {
        throw new RpcException(RpcException.INVALID_REQUEST, "id is required (A2A has no notifications)");
      }
      JsonNode methodNode = request.get("method");
      if (methodNode == null || !methodNode.isTextual()) {
        throw new RpcException(RpcException.INVALID_REQUEST, "method must be a string");
      }
      String name = methodNode.asText();
      Method method = null;
      boolean legacy = false;
      for (Method m : Method.values()) {
        if (m.name.equals(name) || m.legacy.equals(name)) {
          method = m;
          legacy = m.legacy.equals(name);
        }
      }
      if (method == null) {
        if (name.contains("PushNotification") || name.startsWith("tasks/pushNotificationConfig")) {
          throw new RpcException(RpcException.PUSH_NOT_SUPPORTED, "push notifications are not supported");
        }
        throw new RpcException(RpcException.METHOD_NOT_FOUND, "method not found: " + name);
      }
      JsonNode params = request.get("params");
      if (params == null || !params.isObject()) {
        throw new RpcException(RpcException.INVALID_PARAMS, "params must be an object");
      }
      dispatch(x, id, method, legacy, params, credential);
    } catch (RpcException e) {
      reply(x, e.httpStatus(), error(id, e));
    }
  }

  private void dispatch(HttpExchange x, JsonNode id, Method method, boolean legacy, JsonNode params,
      String credential) throws IOException {
    switch (method) {
      case SEND -> {
        Tasks.Incoming in = Tasks.incoming(params);
        Tasks.Watch w = tasks.watch(in.contextId() != null ? in.contextId() : "");
        try {
          StoredTask t = tasks.accept(in, credential);
          if (w.contextId.isEmpty()) {
            tasks.unwatch(w);
            w = tasks.watch(t.contextId());
          }
          JsonNode cfg = params.path("configuration");
          boolean immediately = cfg.path("returnImmediately").asBoolean(false)
              || (cfg.path("blocking").isBoolean() && !cfg.path("blocking").asBoolean()); // 0.3 says blocking
          if (!immediately) {
            t = tasks.await(w, t, config.maxWait, null);
          }
          int historyLength = params.path("configuration").path("historyLength").asInt(-1);
          ObjectNode task = Tasks.withHistory(t, historyLength);
          ObjectNode result;
          if (legacy) {
            result = A2aJson.legacyTask(task);
          } else {
            result = A2aJson.JSON.createObjectNode();
            result.set("task", task);
          }
          reply(x, 200, result(id, result));
        } finally {
          tasks.unwatch(w);
        }
      }
      case STREAM -> {
        Tasks.Incoming in = Tasks.incoming(params);
        stream(x, id, legacy, in.contextId(), () -> tasks.accept(in, credential));
      }
      case SUBSCRIBE -> {
        String taskId = taskId(params);
        StoredTask t = tasks.visible(taskId, credential);
        if (t.state().isTerminal()) {
          throw new RpcException(RpcException.UNSUPPORTED_OPERATION, "task " + taskId + " is "
              + t.state().legacyName() + ": there is nothing to subscribe to");
        }
        stream(x, id, legacy, t.contextId(), () -> tasks.visible(taskId, credential));
      }
      case GET -> {
        StoredTask t = tasks.visible(taskId(params), credential);
        ObjectNode task = Tasks.withHistory(t, params.path("historyLength").asInt(-1));
        reply(x, 200, result(id, legacy ? A2aJson.legacyTask(task) : task));
      }
      case CANCEL -> {
        StoredTask t = tasks.cancel(taskId(params), credential);
        ObjectNode task = Tasks.withHistory(t, -1);
        reply(x, 200, result(id, legacy ? A2aJson.legacyTask(task) : task));
      }
      default -> throw new IllegalStateException(method.toString());
    }
  }

  private static String taskId(JsonNode params) {
    JsonNode v = params.get("id");
    if (v == null || !v.isTextual() || v.asText().isBlank() || v.asText().length() > 200) {
      throw Tasks.invalidParams("params.id must be the task's id");
    }
    return v.asText();
  }

  private interface Start {
    StoredTask start();
  }

  /** Accepts (or reads) the task, then streams it until it waits for input or ends. */
  private void stream(HttpExchange x, JsonNode id, boolean legacy, String contextId, Start start) throws IOException {
    if (streams.incrementAndGet() > config.maxStreams) {
      streams.decrementAndGet();
      throw new RpcException(RpcException.INTERNAL, "too many open streams; try again later", 503, null);
    }
    Tasks.Watch w = tasks.watch(contextId != null ? contextId : "");
    try {
      StoredTask t = start.start();
      x.getResponseHeaders().add("Content-Type", "text/event-stream; charset=utf-8");
      x.getResponseHeaders().add("Cache-Control", "no-store");
      x.getResponseHeaders().add("X-Content-Type-Options", "nosniff");
      x.sendResponseHeaders(200, 0);
      OutputStream out = x.getResponseBody();
      Tasks.Sink sink = new Tasks.Sink() {
        @Override
        public void event(ObjectNode streamResponse) throws IOException {
          JsonNode r = legacy ? A2aJson.legacyEvent(streamResponse) : streamResponse;
          out.write(("data: " + A2aJson.text(result(id, r)) + "\n\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }

        @Override
        public void heartbeat() throws IOException {
          out.write(": ping\n\n".getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      };
      ObjectNode first = A2aJson.JSON.createObjectNode();
      first.set("task", Tasks.withHistory(t, -1));
      sink.event(first);
      tasks.await(w, t, config.maxWait, sink);
      out.close();
    } finally {
      tasks.unwatch(w);
      streams.decrementAndGet();
    }
  }

  private ObjectNode card() {
    ObjectNode c = A2aJson.JSON.createObjectNode();
    c.put("name", config.name);
    c.put("description", config.description);
    c.put("version", config.version);
    var interfaces = c.putArray("supportedInterfaces");
    interfaces.addObject().put("url", endpointUri().toString()).put("protocolBinding", "JSONRPC")
        .put("protocolVersion", "1.0");
    interfaces.addObject().put("url", endpointUri().toString()).put("protocolBinding", "JSONRPC")
        .put("protocolVersion", "0.3");
    c.putObject("capabilities").put("streaming", true).put("pushNotifications", false)
        .put("extendedAgentCard", false);
    c.putArray("defaultInputModes").add("text/plain").add("application/json");
    c.putArray("defaultOutputModes").add("text/plain").add("application/json");
    var skills = c.putArray("skills");
    for (Skill s : config.skills) {
      ObjectNode o = skills.addObject().put("id", s.id).put("name", s.name).put("description", s.description);
      o.putArray("tags").add("tools").add("approvals");
    }
    return c;
  }

  /** Refuses a request a browser says came from another site. */
  private static void sameOrigin(HttpExchange x) {
    String site = x.getRequestHeaders().getFirst("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      throw new RpcException(RpcException.INVALID_REQUEST, "cross-site requests are refused", 403, null);
    }
    String origin = x.getRequestHeaders().getFirst("Origin");
    if (origin != null) {
      String host = x.getRequestHeaders().getFirst("Host");
      if (host == null || !origin.equals("http://" + host)) {
        throw new RpcException(RpcException.INVALID_REQUEST, "cross-site requests are refused", 403, null);
      }
    }
  }

  private String body(HttpExchange x) throws IOException {
    int max = config.maxBodyBytes;
    String length = x.getRequestHeaders().getFirst("Content-Length");
    if (length != null) {
      long n;
      try {
        n = Long.parseLong(length.strip());
      } catch (NumberFormatException e) {
        throw new RpcException(RpcException.INVALID_REQUEST, "bad Content-Length", 400, null);
      }
      if (n > max) {
        throw new RpcException(RpcException.INVALID_REQUEST, "the body has more than " + max + " bytes", 413, null);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try (InputStream in = x.getRequestBody()) {
      int r;
      while ((r = in.read(buf)) >= 0) {
        out.write(buf, 0, r);
        if (out.size() > max) {
          throw new RpcException(RpcException.INVALID_REQUEST, "the body has more than " + max + " bytes", 413,
              null);
        }
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static ObjectNode result(JsonNode id, JsonNode result) {
    ObjectNode o = A2aJson.JSON.createObjectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id);
    o.set("result", result);
    return o;
  }

  private static ObjectNode error(JsonNode id, RpcException e) {
    ObjectNode o = A2aJson.JSON.createObjectNode();
    o.put("jsonrpc", "2.0");
    if (id == null) {
      o.putNull("id");
    } else {
      o.set("id", id);
    }
    ObjectNode err = o.putObject("error");
    err.put("code", e.code());
    err.put("message", e.getMessage());
    if (e.data() != null) {
      err.set("data", e.data());
    }
    return o;
  }

  private static void reply(HttpExchange x, int status, ObjectNode body) throws IOException {
    send(x, status, A2aJson.text(body).getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange x, int status, byte[] body) throws IOException {
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.getResponseHeaders().add("Cache-Control", "no-store");
    x.getResponseHeaders().add("X-Content-Type-Options", "nosniff");
    x.sendResponseHeaders(status, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private record Skill(String id, String name, String description) {}

  /** Builds an {@link A2aServer}. Not thread-safe; each setter checks its value at once. */
  public static final class Builder {
    private final ToolCallRuntime runtime;
    private final AgentDirectory directory;
    private SessionAccess access;
    private TaskStore store = TaskStore.inMemory();
    private String name = "toolcall agent";
    private String description = "An agent whose tool calls may need a person's approval (input-required).";
    private String version = "1.0.0";
    private final List<Skill> skills = new ArrayList<>();
    private String host = "127.0.0.1";
    private int port;
    private URI publicUri;
    private int maxBodyBytes = 256 * 1024;
    private int maxStreams = 256;
    private Duration maxWait = Duration.ofMinutes(10);
    private Duration heartbeat = Duration.ofSeconds(15);

    private Builder(ToolCallRuntime runtime, AgentDirectory directory) {
      this.runtime = Objects.requireNonNull(runtime, "runtime");
      this.directory = Objects.requireNonNull(directory, "directory");
    }

    /**
     * Who may read a context's tasks and answer or cancel them (required): e.g.
     * {@link dev.toolcall.wire.SessionTokens}, whose token for a context id the client sends as a bearer token.
     */
    public Builder access(SessionAccess access) {
      this.access = Objects.requireNonNull(access, "access");
      return this;
    }

    /** Where the tasks live (default {@link TaskStore#inMemory()}; share {@link TaskStore#jdbc} among instances). */
    public Builder tasks(TaskStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** The agent card's name, description and version. */
    public Builder card(String name, String description, String version) {
      this.name = requireText(name, "name");
      this.description = requireText(description, "description");
      this.version = requireText(version, "version");
      return this;
    }

    /** Adds a skill to the agent card (at least one is listed: a default one when none is added). */
    public Builder skill(String id, String name, String description) {
      skills.add(new Skill(requireText(id, "id"), requireText(name, "name"), requireText(description, "description")));
      return this;
    }

    /** The address to bind (default {@code 127.0.0.1}: put a reverse proxy with TLS in front to reach it). */
    public Builder host(String host) {
      this.host = requireText(host, "host");
      return this;
    }

    /** The port (default 0: any free port). */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in 0..65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * The URL clients reach this server by, written in the agent card (default: the server's own address); set it
     * behind a proxy or load balancer.
     */
    public Builder publicUri(URI publicUri) {
      this.publicUri = Objects.requireNonNull(publicUri, "publicUri");
      return this;
    }

    /**
     * The most bytes a request body may have (default 256 KiB).
     *
     * @throws IllegalArgumentException if under 1024
     */
    public Builder maxBodyBytes(int maxBodyBytes) {
      if (maxBodyBytes < 1024) {
        throw new IllegalArgumentException("maxBodyBytes must be at least 1024, was " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /**
     * The most streams open at once (default 256; one over is answered 503).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxStreams(int maxStreams) {
      if (maxStreams < 1) {
        throw new IllegalArgumentException("maxStreams must be positive, was " + maxStreams);
      }
      this.maxStreams = maxStreams;
      return this;
    }

    /**
     * The longest a blocking {@code SendMessage} or a stream waits for the task to need input or end (default 10
     * minutes); then it answers the task as it is (a stream ends; the client resubscribes).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxWait(Duration maxWait) {
      Objects.requireNonNull(maxWait, "maxWait");
      if (maxWait.isNegative() || maxWait.isZero()) {
        throw new IllegalArgumentException("maxWait must be positive, was " + maxWait);
      }
      this.maxWait = maxWait;
      return this;
    }

    /**
     * How often an idle stream sends a keep-alive comment (default 15 seconds).
     *
     * @throws IllegalArgumentException if under 100 milliseconds
     */
    public Builder heartbeat(Duration heartbeat) {
      Objects.requireNonNull(heartbeat, "heartbeat");
      if (heartbeat.compareTo(Duration.ofMillis(100)) < 0) {
        throw new IllegalArgumentException("heartbeat must be at least 100 ms, was " + heartbeat);
      }
      this.heartbeat = heartbeat;
      return this;
    }

    /**
     * Starts the server: it listens when this returns.
     *
     * @throws IllegalStateException if no {@link #access} was given
     * @throws IOException if the port cannot be bound
     */
    public A2aServer start() throws IOException {
      if (access == null) {
        throw new IllegalStateException("access is required: who may use a context (e.g. SessionTokens.create())");
      }
      if (skills.isEmpty()) {
        skills.add(new Skill("chat", "Chat with tools", "Answers a message, running tools a person may have to"
            + " approve first (the task is input-required then)."));
      }
      return new A2aServer(this);
    }

    private static String requireText(String s, String name) {
      Objects.requireNonNull(s, name);
      if (s.isBlank()) {
        throw new IllegalArgumentException(name + " must not be blank");
      }
      return s;
    }
  }
}
