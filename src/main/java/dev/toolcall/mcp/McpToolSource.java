package dev.toolcall.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.ToolCallRuntime;
import dev.toolcall.tool.OutcomeUnknownException;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolContent;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolException;
import dev.toolcall.tool.ToolInvocation;
import dev.toolcall.tool.ToolRegistry;
import dev.toolcall.tool.ToolResult;
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
import java.util.Optional;
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
 *   <li>Results: text, images, audio, resource links and embedded resources become {@link ToolContent} parts,
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
 * <p>Thread-safe. {@link #close()} ends the connection; calls still in flight then fail.
 */
public final class McpToolSource implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(McpToolSource.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);
  /** The library's version (from the resource the build writes), told to servers as the client's version. */
  private static final String VERSION = readVersion();

  private final String serverName;
  private final String prefix;
  private final boolean trustReadOnlyHints;
  private final BiConsumer<McpSchema.Tool, ToolDefinition.Builder> customize;
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
  private LinkedHashMap<String, Entry> current = new LinkedHashMap<>();
  private ToolCallRuntime attached; // written under applying and lock
  /** Server tools left out for a reason that stays until the server changes them; guarded by applying. */
  private Map<String, McpSchema.Tool> rejected = Map.of();
  /** Names of this source's tools left out because the runtime has another tool of that name; guarded by applying. */
  private final java.util.Set<String> clashes = new java.util.HashSet<>();

  /** One server tool and the {@link Tool} made of it (kept while the server's description does not change). */
  private record Entry(McpSchema.Tool spec, Tool tool) {}

  /** A call the server is running. */
  private record InFlight(ToolInvocation invocation, CompletableFuture<ToolResult> result) {}

  private McpToolSource(Builder b) {
    this.serverName = b.serverName;
    this.prefix = b.prefix == null ? b.serverName + "." : b.prefix;
    this.trustReadOnlyHints = b.trustReadOnlyHints;
    this.customize = b.customize;
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
        LinkedHashMap<String, Entry> first = entries(tools, Map.of());
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
   * {@code StdioClientTransport}, {@code HttpClientStreamableHttpTransport}, ...).
   */
  public static Builder builder(String serverName, McpClientTransport transport) {
    return new Builder(serverName, transport);
  }

  /** The server's name as given to the builder. */
  public String serverName() {
    return serverName;
  }

  /** The server's tools as they are now, in the server's order. */
  public List<Tool> tools() {
    synchronized (lock) {
      return current.values().stream().map(Entry::tool).toList();
    }
  }

  /** Whether the server was found gone (a failed liveness check); calls fail at once from then on. */
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
      LinkedHashMap<String, Entry> tools;
      synchronized (lock) {
        if (closed) {
          throw new IllegalStateException("MCP tool source '" + serverName + "' is closed");
        }
        if (attached != null) {
          throw new IllegalStateException("MCP tool source '" + serverName + "' is attached to a runtime already");
        }
        tools = current;
      }
      runtime.updateTools(r -> reconcile(r, tools, true));
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

  /**
   * The entries for the server's list {@code specs}: an unchanged tool keeps its entry (and {@link Tool}); a new or
   * changed one is mapped and its schemas compiled. A tool the library cannot take (its name, a schema that is not
   * valid, a name another of the server's tools maps to as well) is left out, with a warning the first time it is
   * seen as it is. Called under {@code applying}.
   */
  private LinkedHashMap<String, Entry> entries(List<McpSchema.Tool> specs, Map<String, Entry> before) {
    LinkedHashMap<String, Entry> next = new LinkedHashMap<>();
    Map<String, McpSchema.Tool> nowRejected = new LinkedHashMap<>();
    java.util.Set<String> names = new java.util.HashSet<>();
    List<Entry> fresh = new ArrayList<>();
    for (McpSchema.Tool spec : specs) {
      Entry old = before.get(spec.name());
      if (old != null && old.spec.equals(spec)) {
        next.put(spec.name(), old);
        names.add(old.tool.definition().name());
        continue;
      }
      if (next.containsKey(spec.name())) {
        reject(nowRejected, spec, "the server lists a tool of that name twice");
        continue;
      }
      try {
        McpTool tool = new McpTool(definition(spec), spec.name());
        if (!names.add(tool.definition().name())) {
          reject(nowRejected, spec, "another of the server's tools is named '" + tool.definition().name() + "' here");
          continue;
        }
        Entry e = new Entry(spec, tool);
        next.put(spec.name(), e);
        fresh.add(e);
      } catch (IllegalArgumentException e) { // a name the library cannot take
        reject(nowRejected, spec, e.getMessage());
      }
    }
    for (Map.Entry<Entry, String> invalid : invalidSchemas(fresh).entrySet()) {
      next.remove(invalid.getKey().spec.name());
      reject(nowRejected, invalid.getKey().spec, invalid.getValue());
    }
    rejected = nowRejected;
    return next;
  }

  /**
   * The entries among {@code fresh} whose schemas do not compile, with what is wrong (all are compiled at once, and
   * only when that fails one by one).
   */
  private static Map<Entry, String> invalidSchemas(List<Entry> fresh) {
    if (fresh.isEmpty()) {
      return Map.of();
    }
    try {
      ToolRegistry.of(fresh.stream().map(Entry::tool).toList());
      return Map.of();
    } catch (IllegalArgumentException some) {
      Map<Entry, String> invalid = new LinkedHashMap<>();
      for (Entry e : fresh) {
        String problem = schemaProblem(e.tool);
        if (problem != null) {
          invalid.put(e, problem);
        }
      }
      return invalid;
    }
  }

  /** What is wrong with {@code tool}'s schemas, or null when they compile. */
  private static String schemaProblem(Tool tool) {
    try {
      ToolRegistry.of(tool);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private void reject(Map<String, McpSchema.Tool> nowRejected, McpSchema.Tool spec, String why) {
    if (!spec.equals(rejected.get(spec.name())) && !spec.equals(nowRejected.get(spec.name()))) {
      log.warn("MCP server '{}': tool '{}' left out: {}", serverName, spec.name(), why);
    }
    nowRejected.putIfAbsent(spec.name(), spec);
  }

  private void onToolsChanged(List<McpSchema.Tool> tools) {
    synchronized (applying) {
      ToolCallRuntime rt;
      LinkedHashMap<String, Entry> next;
      synchronized (lock) {
        if (closed) {
          return;
        }
        rt = attached;
      }
      next = entries(tools, current);
      synchronized (lock) {
        current = next;
      }
      if (rt != null) {
        try {
          rt.updateTools(r -> reconcile(r, next, false));
        } catch (RuntimeException e) {
          log.warn("MCP server '{}': its changed tool list could not be applied to the runtime", serverName, e);
        }
      }
    }
  }

  /**
   * The runtime's registry {@code r} with this source's tools made {@code tools}: each added, or put in place of
   * this source's tool of that name; each of this source's tools no longer listed removed. A name another tool of
   * the runtime has is refused: {@code attaching}, by throwing (nothing changes); else the tool is left out with a
   * warning (once, until the clash ends). Tools of the runtime that are not this source's are never touched. Runs
   * inside {@link ToolCallRuntime#updateTools}, under {@code applying}.
   */
  private ToolRegistry reconcile(ToolRegistry r, Map<String, Entry> tools, boolean attaching) {
    List<Tool> put = new ArrayList<>();
    java.util.Set<String> wanted = new java.util.HashSet<>();
    java.util.Set<String> clashing = new java.util.HashSet<>();
    for (Entry e : tools.values()) {
      String name = e.tool.definition().name();
      wanted.add(name);
      Tool there = r.contains(name) && r.canonicalName(name).equals(name) ? r.require(name) : null;
      if (there == e.tool) {
        continue;
      }
      if (there == null || isMine(there)) {
        put.add(e.tool);
      } else if (attaching) {
        throw new IllegalArgumentException("tool name '" + name + "' of MCP server '" + serverName
            + "' is taken in the runtime; give the source another prefix");
      } else {
        clashing.add(name);
        if (!clashes.contains(name)) {
          log.warn("MCP server '{}': tool '{}' left out: the name is taken in the runtime by {}; give the source"
              + " another prefix", serverName, name, there);
        }
      }
    }
    clashes.clear();
    clashes.addAll(clashing);
    List<String> remove = new ArrayList<>();
    for (Tool t : r.tools()) {
      if (isMine(t) && !wanted.contains(t.definition().name())) {
        remove.add(t.definition().name());
      }
    }
    return r.without(remove.toArray(String[]::new)).with(put.toArray(Tool[]::new));
  }

  private boolean isMine(Tool t) {
    return t instanceof McpTool m && m.source() == this;
  }

  ToolDefinition definition(McpSchema.Tool spec) {
    String description = spec.description() != null ? spec.description()
        : spec.title() != null ? spec.title() : "";
    ToolDefinition.Builder b = ToolDefinition.builder(runtimeName(prefix, spec.name())).description(description);
    if (spec.inputSchema() != null) {
      b.parameters(JSON.valueToTree(spec.inputSchema()));
    }
    if (spec.outputSchema() != null) {
      JsonNode output = JSON.valueToTree(spec.outputSchema());
      b.outputSchema(output);
    }
    McpSchema.ToolAnnotations a = spec.annotations();
    boolean readOnly = a != null && Boolean.TRUE.equals(a.readOnlyHint());
    boolean destructive = !readOnly && (a == null || a.destructiveHint() == null || a.destructiveHint());
    b.readOnly(readOnly).idempotent(a != null && Boolean.TRUE.equals(a.idempotentHint()))
        .requiresApproval(!(readOnly && trustReadOnlyHints));
    if (customize != null) {
      customize.accept(spec, b);
    }
    if (destructive) {
      b.requiresApproval(true); // a destructive tool always asks
    }
    return b.build();
  }

  /**
   * The runtime's name for the server tool {@code name}: {@code prefix + name}; when that is longer than the 128
   * characters a tool name may have, {@code prefix}, {@code name} cut to fit, {@code _} and 8 hex digits of the
   * whole {@code name}'s hash (the same on every connection; names that differ only past the cut stay apart). Calls
   * reach the server under its own name.
   */
  static String runtimeName(String prefix, String name) {
    String full = prefix + name;
    int max = 128;
    int keep = max - prefix.length() - 9;
    if (full.length() <= max || keep < 1) {
      return full; // fits, or cannot be made to fit: the definition refuses it
    }
    return prefix + name.substring(0, keep) + "_" + String.format(Locale.ROOT, "%08x", name.hashCode());
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
      ToolResult out = result(r);
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
