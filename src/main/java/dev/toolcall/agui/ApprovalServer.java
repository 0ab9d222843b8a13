package dev.toolcall.agui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import java.util.List;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.presentation.Presenter;
import dev.toolcall.wire.SessionAccess;
import dev.toolcall.wire.SessionTokens;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default server: the approval page and, when given agents, the AG-UI endpoint, on the JDK's own
 * {@code com.sun.net.httpserver.HttpServer} (no dependency), bound to 127.0.0.1.
 *
 * <table>
 *   <caption>Routes</caption>
 *   <tr><th>route</th><th>what</th></tr>
 *   <tr><td>{@code GET /approvals/}</td><td>the page; it reads the session and token from the URL's fragment
 *       ({@link #pageUrl})</td></tr>
 *   <tr><td>{@code GET /api/sessions/{id}/stream?token=}</td><td>Server-Sent Events: {@code snapshot} (every call
 *       of the session as the presentation view model, with the tool's {@code description} and, for a request of a
 *       {@linkplain Builder#transcript transcript} agent, the model's {@code assistantText}; and the session's
 *       conversation as {@code turn} when an agent runs it), then {@code call} per change of a call and
 *       {@code turn} per change of the conversation, each sent once; on a shared store also the changes other
 *       instances store in the session (its conversation's with a {@linkplain Builder#directory directory};
 *       docs/agui.md)</td></tr>
 *   <tr><td>{@code POST /api/sessions/{id}/decisions}</td><td>an answer {@code {requestId, decision, reason,
 *       arguments, argumentsVersion}}; headers {@code X-Toolcall-Token} (the credential) and
 *       {@code Content-Type: application/json}</td></tr>
 *   <tr><td>{@code POST /agui}</td><td>an AG-UI run ({@link AguiEndpoint}); header
 *       {@code Authorization: Bearer <token>}</td></tr>
 * </table>
 *
 * <p>Security: every read and decision is checked by the {@link SessionAccess}; decisions only by POST carrying a
 * custom header (which a cross-site form cannot send, and which a cross-site script may send only after a CORS
 * preflight this server never grants), and a request whose {@code Origin} is not this server's or whose
 * {@code Sec-Fetch-Site} says {@code cross-site} is refused; bodies are bounded ({@link Builder#maxBodyBytes}), and
 * so are open streams ({@link Builder#maxStreams}; one over is answered 503). A refusal changes nothing. A refused
 * request's body is read and dropped (up to 4 MiB, or 16 times the bound if that is more) before the refusal is
 * answered, so the client reads the answer instead of a reset connection; a longer body is answered without being
 * read on, with {@code Connection: close}. A body whose JSON has a key twice in one object is refused (400) naming the
 * key.
 *
 * <p>What it does not do: TLS, and listening beyond the loopback interface (put a reverse proxy in front to reach it
 * from elsewhere); sessions or logins of its own (who may do what is only the {@link SessionAccess}); keeping
 * anything across a restart (the page reconnects and reads the runtime again; tokens of a {@link SessionTokens} are
 * in memory).
 *
 * <p>Failures: a refusal is answered with its status and {@code {error, message}} JSON ({@link RefusedException})
 * and changes nothing; a client that leaves mid-stream is logged at DEBUG; an unexpected exception while handling a
 * request is logged at WARN with the method and path and answered 500 {@code {"error":"internal"}}, and the server
 * goes on. A decision that lost its race (another tab, another instance, the deadline) is a 409, never a second
 * answer.
 *
 * <p>Thread-safe: the JDK server's handlers run on the server's own daemon threads
 * ({@code toolcall-approvals-http-N}); each open stream holds one. {@link #close} stops the server; the runtime is the
 * caller's.
 */
public final class ApprovalServer implements AutoCloseable {

  static {
    dev.toolcall.internal.HttpServers.noDelay(); // an SSE frame must not wait ~40 ms for the client's delayed ACK
  }

  private static final Logger log = LoggerFactory.getLogger(ApprovalServer.class);
  private static final String RESOURCES = "/dev/toolcall/agui/page/";

  private final ToolCallRuntime runtime;
  private final SessionAccess access;
  private final SessionTokens tokens;
  private final int maxBodyBytes;
  /** How much of a refused request's body is read and dropped so that its answer arrives (see drain). */
  private final long drainBytes;
  private final int maxStreams;
  private final long heartbeatMillis;
  private final CallBoard board;
  private final AguiEndpoint agui;
  /** The sessions' directory when the server serves them through one, or null. */
  private final AgentDirectory directory;
  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicInteger streams = new AtomicInteger();
  private final Clock clock;

  private ApprovalServer(Builder b) throws IOException {
    this.runtime = b.runtime;
    this.access = b.access;
    this.tokens = b.access instanceof SessionTokens t ? t : null;
    this.maxBodyBytes = b.maxBodyBytes;
    this.drainBytes = Math.max(4L << 20, 16L * b.maxBodyBytes);
    this.maxStreams = b.maxStreams;
    this.heartbeatMillis = b.heartbeatMillis;
    this.clock = Clock.systemUTC();
    this.board = new CallBoard(runtime, b.presenter, clock, b.transcripts, b.directory);
    this.directory = b.directory;
    this.agui = b.directory != null
        ? AguiEndpoint.builder(runtime, b.directory).access(access).maxBodyBytes(maxBodyBytes).build()
        : b.agents == null ? null
        : AguiEndpoint.builder(runtime, b.agents).access(access).maxBodyBytes(maxBodyBytes).build();
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "toolcall-approvals-http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.server = HttpServer.create(new InetSocketAddress(b.host, b.port), 64);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /**
   * A server for the calls of {@code runtime}.
   *
   * @param runtime whose calls the page shows and whose permission service takes the answers
   * @throws NullPointerException if {@code runtime} is null
   */
  public static Builder builder(ToolCallRuntime runtime) {
    return new Builder(runtime);
  }

  /** The port the server listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The server's base URL, e.g. {@code http://127.0.0.1:8123}. */
  public URI baseUri() {
    return URI.create("http://" + server.getAddress().getHostString() + ":" + port());
  }

  /** The AG-UI endpoint's URL (present only when the server was given agents). */
  public URI aguiUri() {
    return baseUri().resolve("/agui");
  }

  /**
   * The page of {@code sessionId} with its token in the fragment (never sent to a server, nor in a Referer); the
   * session's token is issued if it has none.
   *
   * @throws IllegalStateException if the server's access is not {@link SessionTokens} (use
   *     {@link #pageUrl(String, String)})
   */
  public URI pageUrl(String sessionId) {
    if (tokens == null) {
      throw new IllegalStateException("the server's access issues no tokens: use pageUrl(sessionId, credential)");
    }
    return pageUrl(sessionId, tokens.token(sessionId).orElseGet(() -> tokens.issue(sessionId)));
  }

  /**
   * The page of {@code sessionId} for {@code credential} (which the server's {@link SessionAccess} checks when the
   * page connects, not here).
   *
   * @throws NullPointerException if an argument is null
   */
  public URI pageUrl(String sessionId, String credential) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(credential, "credential");
    return baseUri().resolve("/approvals/#session=" + enc(sessionId) + "&token=" + enc(credential));
  }

  /** How many streams (page streams and AG-UI runs) are open now. */
  public int openStreams() {
    return streams.get();
  }

  /**
   * Stops the server at once; open streams end (pages reconnect to the next server on the same port), waiting up to
   * five seconds for the handler threads. Calls and requests stay in the runtime, unanswered; the runtime is the
   * caller's to close.
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
    board.close();
    if (agui != null) {
      agui.close();
    }
  }

  private void handle(HttpExchange x) throws IOException {
    try {
      route(x);
    } catch (RefusedException e) {
      drain(x);
      ObjectNode body = Wire.JSON.createObjectNode().put("error", e.code()).put("message", e.getMessage());
      send(x, e.status(), "application/json", Wire.text(body));
    } catch (IOException e) {
      log.debug("client left", e);
    } catch (RuntimeException e) {
      log.warn("request failed: {} {}", x.getRequestMethod(), x.getRequestURI().getPath(), e);
      try {
        drain(x);
        send(x, 500, "application/json", "{\"error\":\"internal\",\"message\":\"internal error\"}");
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
    if (path.equals("/approvals") ) {
      x.getResponseHeaders().add("Location", "/approvals/");
      send(x, 302, "text/plain", "");
      return;
    }
    if (path.startsWith("/approvals/")) {
      requireMethod(method, "GET");
      String name = path.substring("/approvals/".length());
      serve(x, name.isEmpty() ? "index.html" : name);
      return;
    }
    if (path.equals("/agui")) {
      requireMethod(method, "POST");
      if (agui == null) {
        throw new RefusedException(404, "not_found", "this server has no AG-UI endpoint");
      }
      sameOrigin(x);
      requireJson(x);
      String body = body(x);
      String auth = x.getRequestHeaders().getFirst("Authorization");
      String credential = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).strip() : null;
      stream(x, sink -> agui.run(body, credential, sink));
      return;
    }
    if (path.startsWith("/api/sessions/")) {
      String rest = path.substring("/api/sessions/".length());
      int slash = rest.indexOf('/');
      if (slash <= 0) {
        throw new RefusedException(404, "not_found", "no such route");
      }
      String session = URLDecoder.decode(rest.substring(0, slash), StandardCharsets.UTF_8);
      String action = rest.substring(slash + 1);
      if (action.equals("stream")) {
        requireMethod(method, "GET");
        String token = query(x.getRequestURI().getRawQuery(), "token");
        if (!access.mayRead(session, token)) {
          throw new RefusedException(403, "forbidden", "not allowed for this session");
        }
        watch(x, session);
        return;
      }
      if (action.equals("decisions")) {
        requireMethod(method, "POST");
        sameOrigin(x);
        String token = x.getRequestHeaders().getFirst("X-Toolcall-Token");
        if (token == null) {
          throw new RefusedException(403, "forbidden", "the X-Toolcall-Token header is required");
        }
        requireJson(x);
        if (!access.mayDecide(session, token)) {
          throw new RefusedException(403, "forbidden", "not allowed for this session");
        }
        JsonNode answer = Wire.parse(body(x));
        JsonNode id = answer.get("requestId");
        if (id == null || !id.isTextual() || id.asText().isBlank()) {
          throw new RefusedException(400, "bad_request", "requestId must be a non-blank string");
        }
        String requestId = id.asText();
        if (directory != null) {
          send(x, 200, "application/json", Wire.text(DirectoryRun.decide(directory, runtime, session, requestId,
              answer)));
          return;
        }
        DecisionResult.Won won;
        try {
          won = (DecisionResult.Won) Wire.decide(runtime.permissions(), runtime.registry(), session, requestId, answer);
        } catch (RefusedException e) {
          // A late answer in this session (another tab, another instance won): say what won. Only within the
          // caller's own session, so an id of another session still looks unknown.
          if (e.code().equals("unknown_request")) {
            board.answered(session, requestId).ifPresent(state -> {
              throw new RefusedException(409, "already_answered", "already answered: " + state.wireName());
            });
          }
          throw e;
        }
        ObjectNode out = Wire.JSON.createObjectNode().put("result", "won")
            .put("state", won.snapshot().state().wireName());
        send(x, 200, "application/json", Wire.text(out));
        return;
      }
    }
    throw new RefusedException(404, "not_found", "no such route");
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw new RefusedException(405, "method_not_allowed", "use " + expected);
    }
  }

  private static void requireJson(HttpExchange x) {
    java.util.List<String> types = x.getRequestHeaders().get("Content-Type");
    if (types == null || types.size() != 1 || !types.get(0).toLowerCase(Locale.ROOT).startsWith("application/json")) {
      throw new RefusedException(415, "unsupported_media_type", "the body must be application/json");
    }
  }

  /** Refuses a request a browser says came from another site. */
  private void sameOrigin(HttpExchange x) {
    String site = x.getRequestHeaders().getFirst("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      throw new RefusedException(403, "cross_site", "cross-site requests are refused");
    }
    String origin = x.getRequestHeaders().getFirst("Origin");
    if (origin != null) {
      String host = x.getRequestHeaders().getFirst("Host");
      if (host == null || !origin.equals("http://" + host)) {
        throw new RefusedException(403, "cross_site", "cross-site requests are refused");
      }
    }
  }

  private String body(HttpExchange x) throws IOException {
    String length = x.getRequestHeaders().getFirst("Content-Length");
    if (length != null) {
      try {
        if (Long.parseLong(length.strip()) > maxBodyBytes) {
          throw new RefusedException(413, "too_large", "the body has more than " + maxBodyBytes + " bytes");
        }
      } catch (NumberFormatException e) {
        throw new RefusedException(400, "bad_request", "bad Content-Length");
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    // not closed here: a refusal drains what is left before it answers (drain)
    InputStream in = x.getRequestBody();
    int r;
    while ((r = in.read(buf)) >= 0) {
      out.write(buf, 0, r);
      if (out.size() > maxBodyBytes) {
        throw new RefusedException(413, "too_large", "the body has more than " + maxBodyBytes + " bytes");
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * Reads and drops what is left of the request body, up to {@link #drainBytes}, before a refusal is answered: a
   * server that answers and closes with the body unread makes the client's TCP stack reset the connection, and the
   * client never sees the answer. A body longer than that is not read on: the answer says {@code Connection: close}.
   */
  private void drain(HttpExchange x) {
    long left = drainBytes;
    byte[] buf = new byte[8192];
    try {
      InputStream in = x.getRequestBody();
      int r = 0;
      while (left > 0 && (r = in.read(buf, 0, (int) Math.min(buf.length, left))) >= 0) {
        left -= r;
      }
      if (r >= 0) {
        x.getResponseHeaders().set("Connection", "close");
      }
    } catch (IOException e) {
      x.getResponseHeaders().set("Connection", "close");
    }
  }

  @FunctionalInterface
  private interface Streamer {
    void stream(FrameSink sink) throws IOException;
  }

  /** Runs {@code s} as an SSE response, within the stream bound; refusals before the first frame stay HTTP errors. */
  private void stream(HttpExchange x, Streamer s) throws IOException {
    if (streams.incrementAndGet() > maxStreams) {
      streams.decrementAndGet();
      throw new RefusedException(503, "too_many_streams", "too many open streams; try again later");
    }
    try {
      boolean[] started = {false};
      OutputStream[] out = {null};
      s.stream(frame -> {
        if (!started[0]) {
          started[0] = true;
          x.getResponseHeaders().add("Content-Type", "text/event-stream; charset=utf-8");
          x.getResponseHeaders().add("Cache-Control", "no-store");
          x.getResponseHeaders().add("X-Content-Type-Options", "nosniff");
          x.sendResponseHeaders(200, 0);
          out[0] = x.getResponseBody();
        }
        out[0].write(frame.getBytes(StandardCharsets.UTF_8));
        out[0].flush();
      });
      if (!started[0]) {
        send(x, 204, "text/plain", "");
      }
    } finally {
      streams.decrementAndGet();
    }
  }

  private void watch(HttpExchange x, String session) throws IOException {
    stream(x, sink -> new PageStream(board, clock, heartbeatMillis).run(session, sink));
  }

  private void serve(HttpExchange x, String name) throws IOException {
    if (!name.matches("[a-z]+\\.(html|js|css)")) {
      throw new RefusedException(404, "not_found", "no such file");
    }
    byte[] bytes;
    try (InputStream in = ApprovalServer.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new RefusedException(404, "not_found", "no such file");
      }
      bytes = in.readAllBytes();
    }
    String type = name.endsWith(".html") ? "text/html; charset=utf-8"
        : name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
    x.getResponseHeaders().add("Content-Security-Policy",
        "default-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    x.getResponseHeaders().add("Referrer-Policy", "no-referrer");
    x.getResponseHeaders().add("X-Frame-Options", "DENY");
    send(x, 200, type, bytes);
  }

  private static void send(HttpExchange x, int status, String type, String body) throws IOException {
    send(x, status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
    x.getResponseHeaders().add("Content-Type", type);
    x.getResponseHeaders().add("Cache-Control", "no-store");
    x.getResponseHeaders().add("X-Content-Type-Options", "nosniff");
    if (status == 204 || body.length == 0) {
      x.sendResponseHeaders(status, -1);
      return;
    }
    x.sendResponseHeaders(status, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private static String query(String raw, String name) {
    if (raw == null) {
      return null;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).equals(name)) {
        return URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** Builds an {@link ApprovalServer}. Not thread-safe. */
  public static final class Builder {
    private final ToolCallRuntime runtime;
    private SessionAccess access;
    private Function<String, Agent> agents;
    private AgentDirectory directory;
    private final java.util.List<Agent> transcripts = new java.util.ArrayList<>();
    private Presenter presenter = Presenter.create();
    private String host = "127.0.0.1";
    private int port;
    private int maxBodyBytes = 64 * 1024;
    private int maxStreams = 256;
    private long heartbeatMillis = 15_000;

    private Builder(ToolCallRuntime runtime) {
      this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    /** Who may read and decide a session (default: a new {@link SessionTokens#create()}). */
    public Builder access(SessionAccess access) {
      this.access = Objects.requireNonNull(access, "access");
      return this;
    }

    /** Serves the AG-UI endpoint at {@code POST /agui} for these agents (by thread id). */
    public Builder agents(Function<String, Agent> agents) {
      this.agents = Objects.requireNonNull(agents, "agents");
      return this;
    }

    /**
     * Serves the sessions of {@code directory} (any instance serves any session, see
     * {@link AguiEndpoint#builder(ToolCallRuntime, dev.toolcall.conversation.AgentDirectory)}): the AG-UI endpoint at
     * {@code POST /agui} runs each run as a step of the directory, and a decision posted on the page for a turn that
     * ended interrupted makes the turn go on (the tool runs, the model gets the result) on whichever instance the POST
     * landed; the POST answers once that step has ended. Replaces {@link #agents}.
     */
    public Builder directory(dev.toolcall.conversation.AgentDirectory directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /**
     * Shows, beside each request of {@code agent}'s conversation, the text the model wrote in the message that asked
     * for the call (so a person sees why the agent asks). The page reads the agent's {@link Agent#messages()} while a
     * request waits; without this, a request shows the tool's description and its arguments only. May be called for
     * several agents.
     */
    public Builder transcript(Agent agent) {
      transcripts.add(Objects.requireNonNull(agent, "agent"));
      return this;
    }

    /** The presenter whose theme and view model the page shows (default {@link Presenter#create()}). */
    public Builder presenter(Presenter presenter) {
      this.presenter = Objects.requireNonNull(presenter, "presenter");
      return this;
    }

    /** The port (default 0: any free port); the server always binds 127.0.0.1. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in 0..65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * The most bytes a request body may have (default 64 KiB).
     *
     * @throws IllegalArgumentException if {@code maxBodyBytes} is under 1024
     */
    public Builder maxBodyBytes(int maxBodyBytes) {
      this.maxBodyBytes = Wire.requireBodyLimit(maxBodyBytes);
      return this;
    }

    /** The most streams open at once, page streams and AG-UI runs together (default 256). */
    public Builder maxStreams(int maxStreams) {
      if (maxStreams < 1) {
        throw new IllegalArgumentException("maxStreams must be positive, was " + maxStreams);
      }
      this.maxStreams = maxStreams;
      return this;
    }

    /**
     * Starts the server: it listens when this returns.
     *
     * @throws IOException if the port cannot be bound (taken, say)
     */
    public ApprovalServer start() throws IOException {
      if (access == null) {
        access = SessionTokens.create();
      }
      return new ApprovalServer(this);
    }
  }
}
