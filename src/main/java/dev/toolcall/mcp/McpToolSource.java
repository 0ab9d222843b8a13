package dev.toolcall.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.OutcomeUnknownException;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.tool.ToolInvocation;
import dev.toolcall.ToolResult;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The tools of one MCP server as {@link Tool}s that run under the lifecycle: permissions, timeouts, cancellation,
 * events. Connect with {@link #builder}, then either take {@link #tools()} into a runtime's builder or
 * {@link #attach} the source to a runtime, which adds its tools and follows the server's {@code tools/list_changed}.
 *
 * <h2>What maps</h2>
 * <ul>
 *   <li>Names: {@code prefix + server tool name} (default prefix: the server name and a dot), as MCP allows; the
 *       model sees the registry's alias ({@code weather.get_forecast} becomes {@code weather_get_forecast}). A name
 *       the prefix makes longer than 128 characters is cut to fit and ends with {@code _} and 8 hex digits of a hash
 *       of the server's name; calls still reach the server under its own name.
 *   <li>A tool the library cannot take (a name it does not allow, a schema that is not a valid JSON Schema) is left
 *       out with a warning; the server's other tools are used.
 *   <li>Definitions: the description (else the title), the input schema as the parameters (unchanged), the output
 *       schema, and the hints: {@code readOnlyHint} makes the tool read-only (it may run beside other reads);
 *       {@code idempotentHint} idempotent; a destructive tool ({@code destructiveHint} true, or absent on a tool
 *       that is not read-only, as MCP defaults it) always asks, whatever {@code customize} says. Every tool asks
 *       unless it is read-only and {@link Builder#trustReadOnlyHints} is on (hints are the server's word).
 *   <li>Arguments pass through as the model sent them, checked first against the server's schema.
 *   <li>Results: text, images, audio, resource links and embedded resources become {@link dev.toolcall.ToolContent} parts,
 *       structured content the {@link ToolResult#structured() structured value}; {@code isError} ends the call
 *       FAILED ({@code tool_error}) with the server's text for the model.
 *   <li>Cancellation (the person cancelled, the call timed out, its turn ended) sends the server
 *       {@code notifications/cancelled} with the request's id and the reason.
 *   <li>Progress notifications become the call's live output, one line each ({@code [2/3] copying}).
 *   <li>A server that stops answering while calls run (checked by {@code ping} every
 *       {@link Builder#livenessInterval}) fails those calls with {@code outcome_unknown}: the action may or may not
 *       have happened. Later calls fail at once with {@code tool_error} saying the server is disconnected.
 * </ul>
 *
 * <h2>What does not map</h2>
 * Resources, prompts, sampling, elicitation, roots and logging (not tools); icons, {@code _meta} and the annotations
 * of content parts; a content part the SDK cannot read (a text part in its place tells the model what was left out).
 * The model reads text: an image or audio part is a placeholder in the text, and the parts themselves are in the
 * call's result. After {@code tools/list_changed} the list the SDK hands over is taken as it is (pagination is
 * followed only at connect). docs/integrations.md has the whole table and the reasons.
 *
 * <h2>Failures</h2>
 * What the server does wrong ends the call, never throws into the runtime, with a message for the model naming the
 * server: {@code isError} and a JSON-RPC error ({@code McpError}) are FAILED {@code tool_error}; a call the server
 * may have run but whose end is not known (no answer within {@link Builder#requestTimeout}, a result the SDK
 * cannot read, the server found gone, the source closed while the call ran) is FAILED {@code outcome_unknown}, which
 * the runtime never retries. Logged at WARN by this class: a tool left out (with why, once until the server changes
 * it), a changed tool list that could not be applied, an unreadable result, and a server found gone. Exceptions
 * come only at set-up: invalid builder settings, a server that cannot be reached at {@link Builder#connect()}, and
 * {@link #attach} twice, after {@link #close()} or with a name the runtime has already.
 *
 * <p>Thread-safe: calls run concurrently; {@link #attach} and the changes a {@code tools/list_changed} brings are
 * applied one at a time. The SDK's threads deliver results, progress and list changes. {@link #close()} ends the
 * connection; calls still in flight then fail as {@code outcome_unknown}.
 */
public final class McpToolSource implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(McpToolSource.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);
  /** The library's version (from the resource the build writes), told to servers as the client's version. */
  private static final String VERSION = readVersion();

  private final String serverName;
  /** The server's tools mapped, and the runtime's registry reconciled with them; used under applying. */
  private final ToolList toolList;
  private final Duration livenessInterval;
  private final CancellingTransport transport;
  private final McpAsyncClient client;
  private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();
  private final AtomicLong tokens = new AtomicLong();
  private final AtomicBoolean pinging = new AtomicBoolean();
  private final Object lock = new Object();
  /** Serialises the changes this source makes to its runtime (attach, each tool-list change); taken before lock. */
  private final Object applying = new Object();
  private final Disposable liveness;
  private volatile String disconnected; // why, once the server is gone
  private volatile boolean closed;
  /** The server's tools this source uses, by server tool name; written under applying and lock, read under lock. */
  private LinkedHashMap<String, ToolList.Entry> current = new LinkedHashMap<>();
  private ToolCallRuntime attached; // written under applying and lock

  /** A call the server is running. */
  private record InFlight(ToolInvocation invocation, CompletableFuture<ToolResult> result) {}

  private McpToolSource(Builder b) {
    this.serverName = b.serverName;
    this.toolList = new ToolList(this, b.serverName, b.prefix == null ? b.serverName + "." : b.prefix,
        b.trustReadOnlyHints, b.customize);
    this.livenessInterval = b.livenessInterval;
    this.transport = new CancellingTransport(b.transport);
    this.client = McpClient.async(transport)
        .clientInfo(McpSchema.Implementation.builder("toolcall-lifecycle", VERSION).build())
        .requestTimeout(b.requestTimeout)
        .initializationTimeout(b.initializationTimeout)
        .progressConsumer(n -> {
          onProgress(n);
          return Mono.empty();
        })
        .toolsChangeConsumer(tools -> {
          onToolsChanged(tools);
          return Mono.empty();
        })
        .build();
    try {
      client.initialize().block(b.initializationTimeout.plusSeconds(1));
      List<McpSchema.Tool> tools = listAll();
      synchronized (applying) {
        LinkedHashMap<String, ToolList.Entry> first = toolList.entries(tools, Map.of());
        synchronized (lock) {
          current = first;
        }
      }
    } catch (RuntimeException e) {
      client.close();
      throw new IllegalStateException("could not connect to MCP server '" + serverName + "': " + describe(e), e);
    }
    this.liveness = Flux.interval(livenessInterval, livenessInterval).subscribe(t -> checkLiveness());
  }

  /**
   * Starts a connection to the server {@code serverName} over {@code transport} (a
   * {@code StdioClientTransport}, {@code HttpClientStreamableHttpTransport}, ...). Nothing is sent until
   * {@link Builder#connect()}; the source owns the transport from then on and closes it.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code serverName} is not a name MCP allows (it prefixes the tool names)
   */
  public static Builder builder(String serverName, McpClientTransport transport) {
    return new Builder(serverName, transport);
  }

  /** The server's name as given to the builder. */
  public String serverName() {
    return serverName;
  }

  /**
   * The server's tools as they are now, in the server's order, without those left out; an immutable copy that a
   * later {@code tools/list_changed} does not change. Pass it to {@code ToolCallRuntime.Builder.tools} to use the
   * tools as they were at connect, or {@link #attach} the source to follow the server.
   */
  public List<Tool> tools() {
    synchronized (lock) {
      return current.values().stream().map(ToolList.Entry::tool).toList();
    }
  }

  /**
   * Whether the server was found gone (a ping unanswered while calls ran); calls fail at once from then on, with
   * {@code tool_error}. A source does not reconnect: connect a new one.
   */
  public boolean isDisconnected() {
    return disconnected != null;
  }

  /**
   * Adds this server's tools to {@code runtime} and keeps them current: when the server announces
   * {@code tools/list_changed}, the runtime's tool set changes with it (added, removed, replaced; see
   * {@link ToolCallRuntime#updateTools}). One runtime per source.
   *
   * <p>The source only ever touches the tools it added: a tool a later change brings whose name another tool of the
   * runtime has (the runtime's own, or another source's) is left out with a warning, and a tool the server removes
   * is removed from the runtime only while it is still this source's. A server tool this library cannot take (a
   * name it does not allow, an input or output schema that is not a valid JSON Schema) is left out with a warning;
   * the server's other tools are added.
   *
   * @throws IllegalStateException if the source is attached already, or closed
   * @throws IllegalArgumentException if a tool's name is taken in the runtime (nothing is added then)
   */
  public McpToolSource attach(ToolCallRuntime runtime) {
    Objects.requireNonNull(runtime, "runtime");
    synchronized (applying) {
      LinkedHashMap<String, ToolList.Entry> tools;
      synchronized (lock) {
        if (closed) {
          throw new IllegalStateException("MCP tool source '" + serverName + "' is closed");
        }
        if (attached != null) {
          throw new IllegalStateException("MCP tool source '" + serverName + "' is attached to a runtime already");
        }
        tools = current;
      }
      runtime.updateTools(r -> toolList.reconcile(r, tools, true));
      synchronized (lock) {
        attached = runtime;
      }
    }
    return this;
  }

  /**
   * Closes the connection (waiting up to 5 s for a graceful close, which stops a stdio server's process); calls
   * still in flight fail, and the tools stay in an attached runtime. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    liveness.dispose();
    failAll("The connection to MCP server '" + serverName + "' was closed while the call ran; it may or may not have"
        + " taken effect.");
    try {
      client.closeGracefully().block(CLOSE_GRACE);
      transport.closeGracefully().block(CLOSE_GRACE); // a stdio server is stopped and waited for
    } catch (RuntimeException e) {
      log.debug("MCP server '{}' did not close gracefully", serverName, e);
      client.close();
    }
  }

  // ------------------------------------------------------------------------------------------------ tool list

  private List<McpSchema.Tool> listAll() {
    List<McpSchema.Tool> all = new ArrayList<>();
    String cursor = null;
    do {
      McpSchema.ListToolsResult page = client.listTools(cursor).block();
      if (page == null) {
        break;
      }
      all.addAll(page.tools());
      cursor = page.nextCursor();
    } while (cursor != null);
    return all;
  }

  private void onToolsChanged(List<McpSchema.Tool> tools) {
    synchronized (applying) {
      ToolCallRuntime rt;
      LinkedHashMap<String, ToolList.Entry> next;
      synchronized (lock) {
        if (closed) {
          return;
        }
        rt = attached;
      }
      next = toolList.entries(tools, current);
      synchronized (lock) {
        current = next;
      }
      if (rt != null) {
        try {
          rt.updateTools(r -> toolList.reconcile(r, next, false));
        } catch (RuntimeException e) {
          log.warn("MCP server '{}': its changed tool list could not be applied to the runtime", serverName, e);
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ calls

  /** One server tool. */
  private final class McpTool implements Tool {
    private final ToolDefinition definition;
    private final String serverToolName;

    McpTool(ToolDefinition definition, String serverToolName) {
      this.definition = definition;
      this.serverToolName = serverToolName;
    }

    @Override
    public ToolDefinition definition() {
      return definition;
    }

    @Override
    public CompletionStage<ToolResult> execute(ToolInvocation invocation) {
      return call(serverToolName, invocation);
    }

    McpToolSource source() {
      return McpToolSource.this;
    }

    @Override
    public String toString() {
      return "McpTool[" + serverName + ": " + serverToolName + "]";
    }
  }

  /** The {@link Tool} of the server tool {@code serverToolName}, defined as {@code definition}. */
  Tool tool(ToolDefinition definition, String serverToolName) {
    return new McpTool(definition, serverToolName);
  }

  /** Whether {@code t} is one of this source's tools. */
  boolean owns(Tool t) {
    return t instanceof McpTool m && m.source() == this;
  }

  @SuppressWarnings("unchecked")
  private CompletionStage<ToolResult> call(String toolName, ToolInvocation invocation) {
    CompletableFuture<ToolResult> result = new CompletableFuture<>();
    String gone = disconnected;
    if (gone != null || closed) {
      result.completeExceptionally(new ToolException("The MCP server '" + serverName + "' is disconnected"
          + (gone == null ? "." : " (" + gone + ").") + " Its tools cannot run now."));
      return result;
    }
    JsonNode args = invocation.arguments().asJson();
    Map<String, Object> arguments = args.isObject() ? JSON.convertValue(args, Map.class) : Map.of();
    String token = "toolcall-" + tokens.incrementAndGet();
    McpSchema.CallToolRequest request = McpSchema.CallToolRequest.builder(toolName).arguments(arguments)
        .progressToken(token).build();
    inFlight.put(token, new InFlight(invocation, result));
    Disposable d = client.callTool(request).subscribe(
        r -> complete(result, r),
        e -> result.completeExceptionally(failure(e)));
    invocation.onCancel(() -> {
      if (!result.isDone()) {
        transport.cancel(token, "The call was cancelled by the client.");
        d.dispose();
        result.cancel(false);
      }
    });
    result.whenComplete((r, e) -> {
      inFlight.remove(token);
      transport.forget(token);
    });
    return result;
  }

  private void complete(CompletableFuture<ToolResult> result, McpSchema.CallToolResult r) {
    try {
      ToolResult out = McpResults.result(r);
      if (Boolean.TRUE.equals(r.isError())) {
        String text = out.content().isBlank() ? "The MCP server reported an error without a message." : out.content();
        result.completeExceptionally(new ToolException(text));
      } else {
        result.complete(out);
      }
    } catch (RuntimeException e) {
      result.completeExceptionally(new ToolException("The MCP server '" + serverName + "' sent a result that could"
          + " not be read: " + describe(e), e));
    }
  }

  private Throwable failure(Throwable e) {
    String gone = disconnected;
    if (gone != null || closed) {
      return new OutcomeUnknownException("The MCP server '" + serverName + "' disconnected while the call ran; it"
          + " may or may not have taken effect.", e);
    }
    CancellingTransport.UnreadableResultException unreadable = unreadable(e);
    if (unreadable != null) {
      log.warn("MCP server '{}' sent a tools/call result that could not be read", serverName, unreadable.getCause());
      return new OutcomeUnknownException("The MCP server '" + serverName + "' answered the call, but its result could"
          + " not be read (" + unreadable.getMessage() + "), so whether it succeeded is not known; it may or may not"
          + " have taken effect.", e);
    }
    if (e instanceof McpError m) {
      return new ToolException("The MCP server '" + serverName + "' refused the call: " + describe(m), e);
    }
    if (e instanceof TimeoutException || e.getCause() instanceof TimeoutException) {
      return new OutcomeUnknownException("The MCP server '" + serverName + "' did not answer in time; the call may"
          + " or may not have taken effect.", e);
    }
    return new ToolException("The call to MCP server '" + serverName + "' failed: " + describe(e), e);
  }

  private static CancellingTransport.UnreadableResultException unreadable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CancellingTransport.UnreadableResultException u) {
        return u;
      }
    }
    return null;
  }

  private void onProgress(McpSchema.ProgressNotification n) {
    InFlight f = n.progressToken() == null ? null : inFlight.get(String.valueOf(n.progressToken()));
    if (f == null) {
      return;
    }
    StringBuilder line = new StringBuilder("[");
    line.append(number(n.progress()));
    if (n.total() != null) {
      line.append('/').append(number(n.total()));
    }
    line.append(']');
    if (n.message() != null && !n.message().isBlank()) {
      line.append(' ').append(n.message());
    }
    f.invocation.output(line.append('\n').toString());
  }

  private static String number(Double d) {
    if (d == null) {
      return "?";
    }
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString(d.longValue()) : String.format(Locale.ROOT, "%.2f",
        d);
  }

  private void checkLiveness() {
    if (inFlight.isEmpty() || disconnected != null || closed || !pinging.compareAndSet(false, true)) {
      return;
    }
    client.ping().timeout(livenessInterval.multipliedBy(2)).subscribe(
        ok -> pinging.set(false),
        e -> {
          pinging.set(false);
          onDisconnected(e);
        });
  }

  private void onDisconnected(Throwable e) {
    if (closed) {
      return;
    }
    disconnected = e instanceof TimeoutException ? "it did not answer a ping" : describe(e);
    log.warn("MCP server '{}' is disconnected ({}); failing {} call(s) in flight", serverName, disconnected,
        inFlight.size());
    failAll("The MCP server '" + serverName + "' disconnected while the call ran; it may or may not have taken"
        + " effect.");
  }

  private void failAll(String message) {
    for (InFlight f : List.copyOf(inFlight.values())) {
      f.result.completeExceptionally(new OutcomeUnknownException(message));
    }
  }

  private static String readVersion() {
    try (java.io.InputStream in = McpToolSource.class.getResourceAsStream("/dev/toolcall/toolcall.properties")) {
      java.util.Properties p = new java.util.Properties();
      if (in != null) {
        p.load(in);
      }
      String v = p.getProperty("version", "");
      return v.isBlank() || v.startsWith("${") ? "unknown" : v;
    } catch (java.io.IOException | IllegalArgumentException e) {
      return "unknown";
    }
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }

  /** Connects to one MCP server. Not thread-safe; each setter checks its value at once. */
  public static final class Builder {
    private final String serverName;
    private final McpClientTransport transport;
    private String prefix;
    private boolean trustReadOnlyHints;
    private BiConsumer<McpSchema.Tool, ToolDefinition.Builder> customize;
    private Duration requestTimeout = Duration.ofHours(1);
    private Duration initializationTimeout = Duration.ofSeconds(30);
    private Duration livenessInterval = Duration.ofSeconds(2);

    private Builder(String serverName, McpClientTransport transport) {
      Objects.requireNonNull(serverName, "serverName");
      if (!ToolDefinition.NAME.matcher(serverName).matches()) {
        throw new IllegalArgumentException("serverName '" + serverName + "' must match " + ToolDefinition.NAME
            + " (it prefixes the tool names)");
      }
      this.serverName = serverName;
      this.transport = Objects.requireNonNull(transport, "transport");
    }

    /** What goes before each server tool's name (default: the server name and a dot); may be empty. */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /** Whether read-only tools (by the server's {@code readOnlyHint}) run without asking (default false). */
    public Builder trustReadOnlyHints(boolean trust) {
      this.trustReadOnlyHints = trust;
      return this;
    }

    /**
     * Adjusts each tool's definition after the mapping (timeouts, retry policy, approval); a destructive tool asks
     * whatever this sets.
     */
    public Builder customize(BiConsumer<McpSchema.Tool, ToolDefinition.Builder> customize) {
      this.customize = Objects.requireNonNull(customize, "customize");
      return this;
    }

    /**
     * How long the SDK waits for an answer to one request (default 1 hour: the runtime's tool timeout is what
     * limits a call; this only bounds a request the runtime does not).
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "requestTimeout");
      return this;
    }

    /** How long the connection may take to initialise (default 30 s). */
    public Builder initializationTimeout(Duration timeout) {
      this.initializationTimeout = positive(timeout, "initializationTimeout");
      return this;
    }

    /**
     * How often the server is pinged while calls run (default 2 s); a ping unanswered for twice this marks the
     * server disconnected and fails its calls in flight.
     */
    public Builder livenessInterval(Duration interval) {
      this.livenessInterval = positive(interval, "livenessInterval");
      return this;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + d);
      }
      return d;
    }

    /**
     * Connects, initialises the session and lists the server's tools.
     *
     * @throws IllegalStateException naming the server, when it cannot be reached or initialised
     * @throws IllegalArgumentException if the prefix makes a name MCP does not allow
     */
    public McpToolSource connect() {
      if (prefix != null && !prefix.isEmpty() && !ToolDefinition.NAME.matcher(prefix).matches()) {
        throw new IllegalArgumentException("prefix '" + prefix + "' must match " + ToolDefinition.NAME);
      }
      return new McpToolSource(this);
    }
  }
}
