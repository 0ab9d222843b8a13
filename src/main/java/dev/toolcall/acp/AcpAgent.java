package dev.toolcall.acp;

import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.ToolDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The agent side of the Agent Client Protocol (ACP, protocol version 1): an editor (Zed, a JetBrains IDE, Neovim, or
 * any client of the protocol) runs the application as a subprocess and talks JSON-RPC 2.0 to it, one JSON message per
 * line, over its stdin and stdout; {@link #serve} is that conversation, over any pair of streams.
 *
 * <pre>{@code
 * AcpAgent acp = AcpAgent.builder(runtime, sessionId -> Agent.builder(model, runtime)).build();
 * acp.serve(System.in, System.out);   // until the editor closes stdin; logs must go to stderr
 * }</pre>
 *
 * <h2>What it answers</h2>
 * <ul>
 *   <li>{@code initialize}: protocol version 1 (the client's, when it asks for 1; else 1, the only one this agent
 *       speaks, and the client decides whether to go on), capabilities {@code loadSession: true} and embedded context
 *       in prompts, no authentication. Any other request before it is refused ({@code -32600}).</li>
 *   <li>{@code session/new}: a session id of its own ({@code acp-} and a random UUID) that is the conversation id of
 *       a new {@link Agent}, made by the application's factory; its (empty) conversation is stored at once.</li>
 *   <li>{@code session/load}: the conversation as last stored in {@link Builder#conversations}; its messages are
 *       replayed as {@code session/update} notifications ({@code user_message_chunk}, {@code agent_message_chunk},
 *       and per tool call a {@code tool_call} with its final {@code tool_call_update}) before the answer.</li>
 *   <li>{@code session/prompt}: the prompt's text (text blocks, embedded text resources and resource links) starts a
 *       turn ({@link Agent#send}); the answer comes when the turn ends, with its {@code stopReason}: {@code end_turn};
 *       {@code max_tokens} or {@code refusal} when the model's last response was cut by its token limit or a content
 *       filter; {@code max_turn_requests} for a turn stopped by its round-trip or loop guard; {@code cancelled} for an
 *       aborted turn. A failed turn is a JSON-RPC error ({@code -32603}) carrying the turn's message. One turn per
 *       session at a time: a second prompt meanwhile is refused ({@code -32600}).</li>
 *   <li>{@code session/cancel} (and {@code $/cancel_request} naming a running prompt): aborts the turn
 *       ({@link Agent#abort}): its open permission requests and its calls are cancelled, the tools are interrupted,
 *       and the prompt answers {@code cancelled}.</li>
 * </ul>
 * While a turn runs, the model's text streams as {@code agent_message_chunk}, and each of the session's tool calls
 * as a {@code tool_call} (its id is the library's call id; title, {@link ToolKind kind}, {@code rawInput}), then a
 * {@code tool_call_update} at each change of status: {@code pending} (created, waiting for a decision, approved) ->
 * {@code in_progress} (running) -> {@code completed} or {@code failed} (failed, denied, timed out, cancelled), the last
 * with the text the model reads as its content. Per session these notifications, and the prompt's answer after them,
 * are written in the order the changes took effect.
 *
 * <h2>Permissions</h2>
 * Each permission request of a session's call becomes a {@code session/request_permission} to the editor, with the
 * call and these options; the chosen option decides the request in the runtime's
 * {@link dev.toolcall.permission.PermissionService}:
 * <ul>
 *   <li>{@code allow_once} (kind {@code allow_once}): approve this call;</li>
 *   <li>{@code allow_session} (kind {@code allow_always}, "Allow for this session"): approve, and later calls of the
 *       tool in this session;</li>
 *   <li>{@code allow_always} (kind {@code allow_always}): approve, and store a grant in the runtime's grant store for
 *       every later call of the tool: a later turn does not ask;</li>
 *   <li>{@code reject_once}: deny, with the editor's reason when its answer carries one ({@code _meta.reason}, on the
 *       result or on its {@code outcome}), which the model reads;</li>
 *   <li>{@code reject_always}: deny, and deny every later request of the tool in this session without asking (the
 *       library has no stored deny: a deny that outlives the process is a rule of the
 *       {@link dev.toolcall.permission.PermissionPolicy}).</li>
 * </ul>
 * An answer {@code cancelled} (or the error {@code -32800}) cancels the call, as a cancelled prompt's requests are.
 * Arguments cannot be edited over ACP. A request's deadline stays the library's: when it passes unanswered the
 * library denies the call ({@code permission_timeout}, as always), and the agent withdraws the editor's prompt: it
 * sends {@code $/cancel_request} for its request and the call's {@code tool_call_update} {@code failed}. An answer
 * to a request that was withdrawn, already answered (a replay), never made, or made on another connection is dropped
 * and decides nothing; an answer the agent does not understand (an unknown option, a malformed result) decides
 * nothing either, and the request waits for its deadline.
 *
 * <h2>Hostile input</h2>
 * Malformed JSON ({@code -32700}), a message that is no JSON-RPC request, a batch, or a line longer than
 * {@link Builder#maxMessageBytes} ({@code -32600}, the line skipped), an unknown method ({@code -32601}), wrong
 * parameters ({@code -32602}) and a session this connection does not hold ({@code -32002}, the same answer for a
 * session that does not exist and for one of another connection) are answered as errors; the connection goes on.
 * Unknown notifications are ignored, as JSON-RPC says.
 *
 * <h2>Threads and lifetime</h2>
 * Thread-safe; several connections may be served at once (each {@link #serve} call is one), and a session belongs to
 * the connection that made or loaded it, until that connection ends. {@link #serve} reads on its caller's thread;
 * turns run on the agent's own daemon threads ({@code toolcall-acp-turn-N}); each connection writes on one daemon
 * thread of its own ({@code toolcall-acp-writer-N}). When the input ends (the editor quit), the connection's running
 * turns are aborted and its sessions let go; their conversations stay in the store. The agent listens inline to the
 * runtime's events and only queues them.
 */
public final class AcpAgent implements AutoCloseable {

  final ToolCallRuntime runtime;
  final Function<String, Agent.Builder> agents;
  final ConversationStore conversations;
  final Function<ToolDefinition, ToolKind> kinds;
  final String name;
  final String version;
  final int maxMessageBytes;
  final String owner = "acp/" + ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();
  final Duration storeLease = Duration.ofSeconds(30);
  final ExecutorService turns;
  final AtomicInteger connectionNumbers = new AtomicInteger();
  /** The open sessions of every connection, by session id: a session belongs to one connection at a time. */
  final ConcurrentHashMap<String, Connection> owners = new ConcurrentHashMap<>();
  private final Subscription subscription;

  private AcpAgent(Builder b) {
    this.runtime = b.runtime;
    this.agents = b.agents;
    this.conversations = b.conversations != null ? b.conversations : ConversationStore.inMemory();
    this.kinds = b.kinds;
    this.name = b.name;
    this.version = b.version;
    this.maxMessageBytes = b.maxMessageBytes;
    AtomicInteger n = new AtomicInteger();
    this.turns = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "toolcall-acp-turn-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.subscription = runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent e) {
          Connection c = owners.get(e.sessionId());
          if (c != null) {
            c.onCallEvent(e);
          }
        }
      }
    });
  }

  /**
   * An ACP agent builder.
   *
   * @param runtime the runtime the sessions' agents run their tool calls on; its permission service receives the
   *     editor's decisions, its grant store the "always" grants
   * @param agents the builder of a session's agent (model client, instructions, options, limits), given the session
   *     id; the ACP agent sets the conversation id (or the stored conversation to go on from), a delta listener
   *     ({@link Agent.Builder#onDelta}: the text streamed to the editor) and {@code suspendOnApproval(false)} (the
   *     prompt stays open while the editor decides). Called once per {@code session/new} and {@code session/load}, on
   *     the connection's reading thread
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(ToolCallRuntime runtime, Function<String, Agent.Builder> agents) {
    return new Builder(runtime, agents);
  }

  /**
   * Serves one connection: reads JSON-RPC messages from {@code in}, one per line, and writes the answers and the
   * agent's own messages to {@code out}, until {@code in} ends or this agent is closed. Then the connection's running
   * turns are aborted, what is queued for {@code out} is written (at most a few seconds' wait), and its sessions are
   * let go. The streams are not closed.
   *
   * @throws IOException if reading {@code in} failed (writing failures end the writing only: the editor is gone)
   * @throws NullPointerException if an argument is null
   * @throws IllegalStateException if this agent is closed
   */
  public void serve(InputStream in, OutputStream out) throws IOException {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(out, "out");
    if (turns.isShutdown()) {
      throw new IllegalStateException("this ACP agent is closed");
    }
    Connection c = new Connection(this, out, connectionNumbers.incrementAndGet());
    c.read(in);
  }

  /**
   * Stops listening to the runtime's events and starts no more turns; connections still served see no more tool
   * call events. The runtime, the store and the agents are the caller's. Idempotent.
   */
  @Override
  public void close() {
    subscription.close();
    turns.shutdown();
  }

  @Override
  public String toString() {
    return "AcpAgent[" + name + " " + version + ", " + owners.size() + " open sessions]";
  }

  /** Builds an {@link AcpAgent}. Not thread-safe; each setter checks its value at once, naming the parameter. */
  public static final class Builder {
    private final ToolCallRuntime runtime;
    private final Function<String, Agent.Builder> agents;
    private ConversationStore conversations;
    private Function<ToolDefinition, ToolKind> kinds = d -> d.readOnly() ? ToolKind.READ : ToolKind.OTHER;
    private String name = "toolcall-lifecycle";
    private String version = "1";
    private int maxMessageBytes = 4 * 1024 * 1024;

    private Builder(ToolCallRuntime runtime, Function<String, Agent.Builder> agents) {
      this.runtime = Objects.requireNonNull(runtime, "runtime");
      this.agents = Objects.requireNonNull(agents, "agents");
    }

    /**
     * Where the sessions' conversations are stored after each turn and loaded from by {@code session/load} (default:
     * {@link ConversationStore#inMemory()}, so a session can be loaded again only by this process). A store shared
     * by processes ({@code PostgresCallStore#conversations}) lets a restarted editor load a session an earlier agent
     * process served.
     */
    public Builder conversations(ConversationStore conversations) {
      this.conversations = Objects.requireNonNull(conversations, "conversations");
      return this;
    }

    /**
     * The {@link ToolKind} shown for a tool's calls (default: {@link ToolKind#READ} for a read-only tool, else
     * {@link ToolKind#OTHER}). A function that returns null or throws shows {@link ToolKind#OTHER}.
     */
    public Builder toolKinds(Function<ToolDefinition, ToolKind> kinds) {
      this.kinds = Objects.requireNonNull(kinds, "kinds");
      return this;
    }

    /**
     * The name and version the agent gives in {@code initialize}'s {@code agentInfo} (default
     * {@code toolcall-lifecycle}, {@code 1}).
     *
     * @throws IllegalArgumentException if either is blank
     */
    public Builder agentInfo(String name, String version) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(version, "version");
      if (name.isBlank() || version.isBlank()) {
        throw new IllegalArgumentException("agentInfo name and version must not be blank, were '" + name + "', '"
            + version + "'");
      }
      this.name = name;
      this.version = version;
      return this;
    }

    /**
     * The most bytes one message (one line) may have (default 4 MiB); a longer line is skipped and answered with
     * {@code -32600}.
     *
     * @throws IllegalArgumentException if under 1024
     */
    public Builder maxMessageBytes(int maxMessageBytes) {
      if (maxMessageBytes < 1024) {
        throw new IllegalArgumentException("maxMessageBytes must be at least 1024, was " + maxMessageBytes);
      }
      this.maxMessageBytes = maxMessageBytes;
      return this;
    }

    /** The agent; it listens to the runtime's events until closed. */
    public AcpAgent build() {
      return new AcpAgent(this);
    }
  }
}
