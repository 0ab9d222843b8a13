package dev.toolcall.acp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentSnapshot;
import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ModelDelta;
import dev.toolcall.conversation.StopReason;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.conversation.UserMessage;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import java.io.ByteArrayOutputStream;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * One ACP connection (one editor). Three kinds of thread touch it:
 * - the reading thread (the caller of AcpAgent.serve) parses each line and answers requests; it applies the editor's
 *   permission answers (a remove from `asked` decides which of answer and withdrawal wins) and aborts turns;
 * - the turn threads run Agent.send and answer the prompt when the turn ends;
 * - one writer thread writes every outgoing message, in the order they were queued, and owns `calls` (what the editor
 *   was told about each tool call), so the runtime's events, the model's deltas and the prompt answers reach the
 *   editor in the order they happened, and the listener that queues them never blocks the thread that changed a call.
 */
final class Connection {
  private static final Logger log = LoggerFactory.getLogger(AcpAgent.class);
  static final int PROTOCOL_VERSION = 1;
  static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;
  static final int NOT_FOUND = -32002;
  static final int REQUEST_CANCELLED = -32800;

  private final AcpAgent acp;
  private final OutputStream out;
  private final ExecutorService writer;
  private final Executor afterTurn;
  private volatile boolean writable = true;
  private volatile boolean initialized;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  /** The open {@code session/request_permission} requests, by their JSON-RPC id; an answer or a withdrawal removes. */
  private final Map<Long, Asked> asked = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  /** What the editor was told of each call, by session and call id; only the writer thread touches it. */
  private final Map<String, CallView> calls = new HashMap<>();

  /** A session of this connection. */
  static final class Session {
    final String id;
    Agent agent; // set once, before the session is published in `sessions`
    /** Tools whose requests this session denies without asking (reject_always). */
    final Set<String> rejected = ConcurrentHashMap.newKeySet();
    /** The JSON-RPC id of the prompt whose turn runs, or null. */
    final AtomicReference<JsonNode> prompt = new AtomicReference<>();
    volatile boolean cancelled;
    volatile StopReason lastStop;

    Session(String id) {
      this.id = id;
    }
  }

  /** A permission request the editor was asked. */
  record Asked(long rpcId, Session session, PermissionRequest request) {}

  /** The editor's view of one call; writer thread only. */
  static final class CallView {
    long version = -1;
    boolean announced;
    boolean argsShown;
    int argsVersion = -1;
    String status;
    Long askedId;
    String askedRequest;
    int askedVersion;
    String settledRequest; // a request this agent decided itself (reject_always): never asked
  }

  Connection(AcpAgent acp, OutputStream out, int number) {
    this.acp = acp;
    this.out = out;
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "toolcall-acp-writer-" + number);
      t.setDaemon(true);
      return t;
    });
    this.afterTurn = r -> {
      try {
        acp.turns.execute(r);
      } catch (RejectedExecutionException e) {
        r.run();
      }
    };
  }

  // --- reading ------------------------------------------------------------------------------------------------------

  void read(InputStream in) throws IOException {
    InputStream bin = in instanceof BufferedInputStream ? in : new BufferedInputStream(in);
    try {
      while (true) {
        Object line = readLine(bin);
        if (line == null) {
          return;
        }
        if (line == OVERSIZED) {
          error(NullNode.instance, INVALID_REQUEST, "the message is longer than " + acp.maxMessageBytes
              + " bytes; it was skipped");
          continue;
        }
        String text = (String) line;
        if (!text.isBlank()) {
          handle(text);
        }
      }
    } finally {
      end();
    }
  }

  private static final Object OVERSIZED = new Object();

  /** The next line (without its end), {@link #OVERSIZED} for one over the limit (read to its end), null at the end. */
  private Object readLine(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(256);
    boolean over = false;
    boolean any = false;
    int c;
    while ((c = in.read()) != -1) {
      any = true;
      if (c == '\n') {
        break;
      }
      if (!over) {
        if (b.size() >= acp.maxMessageBytes) {
          over = true;
          b = new ByteArrayOutputStream(0);
        } else {
          b.write(c);
        }
      }
    }
    if (!any) {
      return null;
    }
    if (over) {
      return OVERSIZED;
    }
    String s = b.toString(StandardCharsets.UTF_8);
    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
  }

  /** A refusal of a request: answered as a JSON-RPC error. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int code;

    Refused(int code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }

  private void handle(String text) {
    JsonNode msg;
    try {
      msg = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      error(NullNode.instance, PARSE_ERROR, "Parse error: the message is not JSON");
      return;
    }
    if (msg == null || !msg.isObject()) {
      error(NullNode.instance, INVALID_REQUEST, msg != null && msg.isArray()
          ? "batches are not supported: send one JSON-RPC message per line" : "a message must be a JSON object");
      return;
    }
    JsonNode id = msg.get("id");
    boolean validId = id != null && (id.isTextual() || id.isIntegralNumber());
    if (!msg.path("jsonrpc").asText("").equals("2.0")) {
      error(validId ? id : NullNode.instance, INVALID_REQUEST, "jsonrpc must be \"2.0\"");
      return;
    }
    JsonNode method = msg.get("method");
    if (method == null) {
      if (id != null && (msg.has("result") || msg.has("error"))) {
        onResponse(msg);
      } else {
        error(validId ? id : NullNode.instance, INVALID_REQUEST, "a request needs a method");
      }
      return;
    }
    if (!method.isTextual()) {
      error(validId ? id : NullNode.instance, INVALID_REQUEST, "method must be a string");
      return;
    }
    if (id != null && !validId) {
      error(NullNode.instance, INVALID_REQUEST, "id must be a string or an integer");
      return;
    }
    JsonNode params = msg.get("params");
    try {
      if (id == null) {
        notification(method.asText(), params);
      } else {
        request(id, method.asText(), params);
      }
    } catch (Refused r) {
      if (id != null) {
        error(id, r.code, r.getMessage());
      }
    } catch (RuntimeException e) {
      log.warn("ACP {} failed", method.asText(), e);
      if (id != null) {
        error(id, INTERNAL_ERROR, "internal error: " + e);
      }
    }
  }

  private void request(JsonNode id, String method, JsonNode params) {
    if (!initialized && !method.equals("initialize")) {
      throw new Refused(INVALID_REQUEST, "the connection is not initialized: send initialize first");
    }
    switch (method) {
      case "initialize" -> initialize(id, object(params));
      case "session/new" -> newSession(id, object(params));
      case "session/load" -> load(id, object(params));
      case "session/prompt" -> prompt(id, object(params));
      case "authenticate" -> throw new Refused(INVALID_PARAMS, "this agent offers no authentication methods");
      default -> throw new Refused(METHOD_NOT_FOUND, "Method not found: " + method);
    }
  }

  private void notification(String method, JsonNode params) {
    if (!initialized) {
      return;
    }
    if (method.equals("session/cancel") && params != null && params.path("sessionId").isTextual()) {
      cancel(sessions.get(params.get("sessionId").asText()));
    } else if (method.equals("$/cancel_request") && params != null && params.has("requestId")) {
      JsonNode requestId = params.get("requestId");
      for (Session s : sessions.values()) {
        if (requestId.equals(s.prompt.get())) {
          cancel(s);
        }
      }
    } else {
      log.debug("ACP notification {} ignored", method);
    }
  }

  private static ObjectNode object(JsonNode params) {
    if (params == null || !params.isObject()) {
      throw new Refused(INVALID_PARAMS, "params must be an object");
    }
    return (ObjectNode) params;
  }

  private static String text(ObjectNode params, String field) {
    JsonNode v = params.get(field);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      throw new Refused(INVALID_PARAMS, field + " must be a non-empty string");
    }
    return v.asText();
  }

  private static void checkSessionSetup(ObjectNode params) {
    String cwd = text(params, "cwd");
    boolean absolute;
    try {
      absolute = Path.of(cwd).isAbsolute();
    } catch (InvalidPathException e) {
      absolute = false;
    }
    if (!absolute) {
      throw new Refused(INVALID_PARAMS, "cwd must be an absolute path");
    }
    JsonNode mcp = params.get("mcpServers");
    if (mcp != null && !mcp.isNull() && !mcp.isArray()) {
      throw new Refused(INVALID_PARAMS, "mcpServers must be an array");
    }
  }

  private Session session(ObjectNode params) {
    Session s = sessions.get(text(params, "sessionId"));
    if (s == null) {
      throw new Refused(NOT_FOUND, "no session " + params.get("sessionId").asText() + " on this connection");
    }
    return s;
  }

  // --- the methods --------------------------------------------------------------------------------------------------

  private void initialize(JsonNode id, ObjectNode params) {
    JsonNode v = params.get("protocolVersion");
    if (v == null || !v.isIntegralNumber() || v.asLong() < 0 || v.asLong() > 65535) {
      throw new Refused(INVALID_PARAMS, "protocolVersion must be an integer from 0 to 65535");
    }
    initialized = true;
    ObjectNode r = F.objectNode();
    r.put("protocolVersion", PROTOCOL_VERSION);
    ObjectNode caps = r.putObject("agentCapabilities");
    caps.put("loadSession", true);
    caps.putObject("promptCapabilities").put("image", false).put("audio", false).put("embeddedContext", true);
    caps.putObject("mcpCapabilities").put("http", false).put("sse", false);
    r.putArray("authMethods");
    r.putObject("agentInfo").put("name", acp.name).put("version", acp.version);
    result(id, r);
  }

  private void newSession(JsonNode id, ObjectNode params) {
    checkSessionSetup(params);
    String sessionId = "acp-" + UUID.randomUUID();
    Session s = open(sessionId, null);
    persist(s);
    result(id, F.objectNode().put("sessionId", sessionId));
  }

  private void load(JsonNode id, ObjectNode params) {
    String sessionId = text(params, "sessionId");
    checkSessionSetup(params);
    Session s = sessions.get(sessionId);
    if (s == null) {
      Connection other = acp.owners.get(sessionId);
      Optional<AgentSnapshot> stored = other != null ? Optional.empty()
          : acp.conversations.read(sessionId).flatMap(ConversationStore.Stored::snapshot);
      if (stored.isEmpty()) {
        throw new Refused(NOT_FOUND, "no session " + sessionId + " on this connection");
      }
      if (stored.get().conversation().state().isBusy()) {
        throw new Refused(INTERNAL_ERROR, "session " + sessionId + " was stored in the middle of a turn and cannot"
            + " be loaded here");
      }
      s = open(sessionId, stored.get());
    }
    if (s.prompt.get() != null) {
      throw new Refused(INVALID_REQUEST, "a turn of session " + sessionId + " is under way");
    }
    List<Message> history = s.agent.messages();
    Session loaded = s;
    submit(() -> {
      for (Message m : history) {
        replay(loaded.id, m);
      }
      write(response(id).set("result", F.objectNode()));
    });
  }

  /** Builds the session's agent and makes the session this connection's. */
  private Session open(String sessionId, AgentSnapshot from) {
    Session s = new Session(sessionId);
    if (acp.owners.putIfAbsent(sessionId, this) != null) {
      throw new Refused(NOT_FOUND, "no session " + sessionId + " on this connection");
    }
    try {
      Agent.Builder b = acp.agents.apply(sessionId);
      if (b == null) {
        throw new IllegalStateException("the agent factory returned null for session " + sessionId);
      }
      if (from != null) {
        b.resume(from);
      } else {
        b.conversationId(sessionId);
      }
      s.agent = b.suspendOnApproval(false).onDelta(d -> onDelta(s, d)).build();
    } catch (RuntimeException e) {
      acp.owners.remove(sessionId, this);
      throw e;
    }
    sessions.put(sessionId, s);
    return s;
  }

  private void prompt(JsonNode id, ObjectNode params) {
    Session s = session(params);
    String text = promptText(params.get("prompt"));
    if (!s.prompt.compareAndSet(null, id)) {
      throw new Refused(INVALID_REQUEST, "a turn of session " + s.id + " is under way; cancel it or wait");
    }
    s.cancelled = false;
    s.lastStop = null;
    try {
      acp.turns.execute(() -> {
        CompletionStage<TurnResult> turn;
        try {
          turn = s.agent.send(text);
        } catch (RuntimeException e) {
          turn = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        turn.whenCompleteAsync((r, x) -> finish(s, id, r, x), afterTurn);
      });
    } catch (RejectedExecutionException e) {
      s.prompt.set(null);
      throw new Refused(INTERNAL_ERROR, "the agent is closing");
    }
  }

  /** The text of a prompt's content blocks. */
  private static String promptText(JsonNode prompt) {
    if (prompt == null || !prompt.isArray() || prompt.isEmpty()) {
      throw new Refused(INVALID_PARAMS, "prompt must be a non-empty array of content blocks");
    }
    StringBuilder b = new StringBuilder();
    for (JsonNode block : prompt) {
      String type = block.path("type").asText("");
      String part;
      switch (type) {
        case "text" -> {
          if (!block.path("text").isTextual()) {
            throw new Refused(INVALID_PARAMS, "a text block needs text");
          }
          part = block.get("text").asText();
        }
        case "resource_link" -> {
          if (!block.path("uri").isTextual()) {
            throw new Refused(INVALID_PARAMS, "a resource_link block needs a uri");
          }
          part = "[" + block.path("name").asText(block.get("uri").asText()) + "](" + block.get("uri").asText() + ")";
        }
        case "resource" -> {
          JsonNode r = block.path("resource");
          if (!r.path("text").isTextual()) {
            throw new Refused(INVALID_PARAMS, "only text resources are accepted in a prompt");
          }
          part = "<resource uri=\"" + r.path("uri").asText("") + "\">\n" + r.get("text").asText() + "\n</resource>";
        }
        case "image", "audio" -> throw new Refused(INVALID_PARAMS, "this agent does not accept " + type
            + " blocks (see its promptCapabilities)");
        default -> throw new Refused(INVALID_PARAMS, "unknown content block type '" + type + "'");
      }
      if (b.length() > 0) {
        b.append("\n\n");
      }
      b.append(part);
    }
    if (b.toString().isBlank()) {
      throw new Refused(INVALID_PARAMS, "the prompt has no text");
    }
    return b.toString();
  }

  /** Answers the prompt of a turn that ended. */
  private void finish(Session s, JsonNode id, TurnResult r, Throwable x) {
    persist(s);
    boolean cancelled = s.cancelled;
    s.prompt.set(null);
    if (x != null) {
      error(id, INTERNAL_ERROR, "the turn failed: " + x);
      return;
    }
    String stop = switch (r.ending()) {
      case ABORTED -> "cancelled";
      case ROUND_TRIP_LIMIT, LOOP_DETECTED -> "max_turn_requests";
      case ANSWERED -> s.lastStop == StopReason.MAX_TOKENS ? "max_tokens"
          : s.lastStop == StopReason.CONTENT_FILTER ? "refusal" : "end_turn";
      default -> "end_turn";
    };
    if (cancelled) {
      stop = "cancelled"; // the editor sent session/cancel: the protocol wants this answer whatever won the race
    } else if (r.ending() == TurnResult.Ending.FAILED) {
      error(id, INTERNAL_ERROR, "the turn failed: " + r.text());
      return;
    }
    if (r.ending() != TurnResult.Ending.ANSWERED && r.ending() != TurnResult.Ending.ABORTED && !cancelled
        && !r.text().isEmpty()) {
      send(update(s.id, chunk("agent_message_chunk", r.text())));
    }
    result(id, F.objectNode().put("stopReason", stop));
  }

  private void cancel(Session s) {
    if (s == null || s.prompt.get() == null) {
      return;
    }
    s.cancelled = true;
    s.agent.abort();
  }

  /** Writes the session's conversation to the store (so session/load finds it), between turns. */
  private void persist(Session s) {
    try {
      ConversationStore.Step step = acp.conversations.take(s.id, acp.owner, acp.storeLease);
      if (step instanceof ConversationStore.Taken t) {
        acp.conversations.put(t, s.agent.snapshot());
      } else {
        log.warn("ACP session {}: its conversation is held by another instance; this turn was not stored", s.id);
      }
    } catch (RuntimeException e) {
      log.warn("ACP session {}: storing the conversation failed: {}", s.id, e.toString());
    }
  }

  private void onDelta(Session s, ModelDelta d) {
    if (d instanceof ModelDelta.Text t && !t.text().isEmpty()) {
      send(update(s.id, chunk("agent_message_chunk", t.text())));
    } else if (d instanceof ModelDelta.ResponseCompleted c) {
      s.lastStop = c.stopReason();
    }
  }

  // --- permission answers -------------------------------------------------------------------------------------------

  private void onResponse(JsonNode msg) {
    JsonNode id = msg.get("id");
    Asked a = id.isIntegralNumber() ? asked.remove(id.asLong()) : null;
    if (a == null) {
      log.debug("ACP answer to no open request of this connection (id {}) dropped", id);
      return;
    }
    PermissionRequest req = a.request();
    if (msg.has("error")) {
      if (msg.path("error").path("code").asInt() == REQUEST_CANCELLED) {
        cancelCall(a);
      } else {
        log.warn("ACP session {}: the editor answered the permission request for {} with an error ({}); the request"
            + " waits for its deadline", a.session().id, req.toolName(), msg.get("error"));
      }
      return;
    }
    JsonNode result = msg.path("result");
    JsonNode outcome = result.path("outcome");
    String kind = outcome.path("outcome").asText("");
    if (kind.equals("cancelled")) {
      if (!a.session().cancelled) {
        cancelCall(a);
      }
      return;
    }
    String option = kind.equals("selected") ? outcome.path("optionId").asText("") : "";
    String reason = reason(result, outcome);
    Decision d = switch (option) {
      case "allow_once" -> Decision.approveOnce(req);
      case "allow_session" -> Decision.approveForSession(req);
      case "allow_always" -> Decision.approveAlways(req);
      case "reject_once" -> Decision.deny(req, reason);
      case "reject_always" -> Decision.deny(req, reason);
      default -> null;
    };
    if (d == null) {
      log.warn("ACP session {}: the editor's answer to the permission request for {} names no option offered ({});"
          + " nothing was decided, the request waits for its deadline", a.session().id, req.toolName(), result);
      return;
    }
    if (option.equals("reject_always")) {
      a.session().rejected.add(req.toolName());
    }
    DecisionResult won = acp.runtime.permissions().decide(req.requestId(), d);
    if (!(won instanceof DecisionResult.Won)) {
      log.debug("ACP session {}: the editor's answer came too late: {}", a.session().id, won);
    }
  }

  private static String reason(JsonNode result, JsonNode outcome) {
    for (JsonNode meta : new JsonNode[] {outcome.path("_meta"), result.path("_meta")}) {
      JsonNode r = meta.path("reason");
      if (r.isTextual() && !r.asText().isBlank()) {
        String s = r.asText().strip();
        return s.length() > 2000 ? s.substring(0, 2000) : s;
      }
    }
    return "";
  }

  private void cancelCall(Asked a) {
    acp.runtime.scheduler().call(a.request().sessionId(), a.request().callId())
        .ifPresent(c -> c.cancel("the editor cancelled the permission request"));
  }

  // --- tool calls, on the writer thread -----------------------------------------------------------------------------

  void onCallEvent(ToolCallEvent e) {
    Session s = sessions.get(e.sessionId());
    if (s != null) {
      ToolCallSnapshot snap = e.snapshot();
      submit(() -> callChanged(s, snap));
    }
  }

  private void callChanged(Session s, ToolCallSnapshot snap) {
    CallView v = calls.computeIfAbsent(s.id + '\u0000' + snap.callId(), k -> new CallView());
    if (snap.version() <= v.version) {
      return;
    }
    v.version = snap.version();
    boolean argsKnown = !snap.arguments().raw().isEmpty() || snap.state() != ToolCallState.PENDING;
    if (!v.announced) {
      ObjectNode u = F.objectNode().put("sessionUpdate", "tool_call").put("toolCallId", snap.callId())
          .put("title", title(snap.toolName(), argsKnown ? snap.arguments().raw() : ""))
          .put("kind", kind(snap.toolName())).put("status", "pending");
      if (argsKnown) {
        u.set("rawInput", rawInput(snap));
      }
      write(update(s.id, u));
      v.announced = true;
      v.status = "pending";
      v.argsShown = argsKnown;
      v.argsVersion = snap.argumentsVersion();
    } else if (argsKnown && (!v.argsShown || v.argsVersion != snap.argumentsVersion())) {
      write(update(s.id, F.objectNode().put("sessionUpdate", "tool_call_update").put("toolCallId", snap.callId())
          .put("title", title(snap.toolName(), snap.arguments().raw())).<ObjectNode>set("rawInput", rawInput(snap))));
      v.argsShown = true;
      v.argsVersion = snap.argumentsVersion();
    }
    Optional<PermissionRequest> req = PermissionRequest.of(snap);
    if (v.askedId != null && (req.isEmpty() || !req.get().requestId().equals(v.askedRequest)
        || req.get().argumentsVersion() != v.askedVersion)) {
      withdraw(v.askedId); // decided elsewhere, denied at its deadline, cancelled, or its arguments changed
      v.askedId = null;
    }
    if (req.isPresent() && v.askedId == null && !req.get().requestId().equals(v.settledRequest)) {
      PermissionRequest r = req.get();
      if (s.rejected.contains(r.toolName())) {
        v.settledRequest = r.requestId();
        acp.runtime.permissions().decide(r.requestId(), Decision.deny(r,
            "The user rejected every call of this tool for this session."));
      } else {
        ask(s, v, r, snap);
      }
    }
    String status = status(snap.state());
    if (!status.equals(v.status)) {
      ObjectNode u = F.objectNode().put("sessionUpdate", "tool_call_update").put("toolCallId", snap.callId())
          .put("status", status);
      snap.outcomeIfTerminal().map(Outcome::messageForModel).filter(m -> !m.isEmpty())
          .ifPresent(m -> u.set("content", content(m)));
      write(update(s.id, u));
      v.status = status;
    }
  }

  private void ask(Session s, CallView v, PermissionRequest r, ToolCallSnapshot snap) {
    long id = ids.incrementAndGet();
    asked.put(id, new Asked(id, s, r));
    v.askedId = id;
    v.askedRequest = r.requestId();
    v.askedVersion = r.argumentsVersion();
    ObjectNode params = F.objectNode().put("sessionId", s.id);
    params.putObject("toolCall").put("toolCallId", r.callId()).put("title", title(r.toolName(), r.arguments().raw()))
        .put("kind", kind(r.toolName())).put("status", "pending").set("rawInput", rawInput(snap));
    ArrayNode options = params.putArray("options");
    option(options, "allow_once", "Allow once", "allow_once");
    option(options, "allow_session", "Allow for this session", "allow_always");
    option(options, "allow_always", "Always allow", "allow_always");
    option(options, "reject_once", "Reject", "reject_once");
    option(options, "reject_always", "Reject for this session", "reject_always");
    params.putObject("_meta").put("expiresAt", r.deadline().toString());
    ObjectNode msg = F.objectNode().put("jsonrpc", "2.0").put("id", id).put("method", "session/request_permission");
    msg.set("params", params);
    write(msg);
  }

  private static void option(ArrayNode options, String id, String name, String kind) {
    options.addObject().put("optionId", id).put("name", name).put("kind", kind);
  }

  /** Takes back a request the editor was asked and has not answered: {@code $/cancel_request}, answer ignored. */
  private void withdraw(long rpcId) {
    if (asked.remove(rpcId) != null) {
      ObjectNode msg = F.objectNode().put("jsonrpc", "2.0").put("method", "$/cancel_request");
      msg.putObject("params").put("requestId", rpcId);
      write(msg);
    }
  }

  private static String status(ToolCallState s) {
    return switch (s) {
      case PENDING, PERMISSION_PENDING, PERMISSION_APPROVED -> "pending";
      case RUNNING -> "in_progress";
      case COMPLETED -> "completed";
      case FAILED, PERMISSION_DENIED, CANCELLED -> "failed";
    };
  }

  private String kind(String toolName) {
    try {
      ToolKind k = acp.runtime.registry().find(toolName).map(Tool::definition).map(acp.kinds).orElse(ToolKind.OTHER);
      return (k == null ? ToolKind.OTHER : k).wireName();
    } catch (RuntimeException e) {
      return ToolKind.OTHER.wireName();
    }
  }

  /** The tool's name, and the first text value of its arguments when they are a JSON object (a command, a path). */
  static String title(String toolName, String rawArguments) {
    String detail = rawArguments.strip();
    try {
      JsonNode args = rawArguments.isBlank() ? null : JSON.readTree(rawArguments);
      if (args != null && args.isObject()) {
        detail = "";
        for (JsonNode v : args) {
          if (v.isTextual()) {
            detail = v.asText();
            break;
          }
        }
      }
    } catch (JsonProcessingException e) {
      // shown as the raw text
    }
    detail = detail.replaceAll("\\s+", " ").strip();
    if (detail.length() > 80) {
      detail = detail.substring(0, 79) + "…";
    }
    return detail.isEmpty() ? toolName : toolName + ": " + detail;
  }

  private static JsonNode rawInput(ToolCallSnapshot snap) {
    try {
      return snap.arguments().asJson();
    } catch (RuntimeException e) {
      return F.textNode(snap.arguments().raw());
    }
  }

  private static ArrayNode content(String text) {
    ArrayNode a = F.arrayNode();
    a.addObject().put("type", "content").putObject("content").put("type", "text").put("text", text);
    return a;
  }

  private static ObjectNode chunk(String kind, String text) {
    ObjectNode u = F.objectNode().put("sessionUpdate", kind);
    u.putObject("content").put("type", "text").put("text", text);
    return u;
  }

  /** Writes one stored message as the notifications a live turn would have sent (writer thread). */
  private void replay(String sessionId, Message m) {
    if (m instanceof UserMessage u) {
      write(update(sessionId, chunk("user_message_chunk", u.text())));
    } else if (m instanceof AssistantMessage a) {
      if (!a.text().isEmpty()) {
        write(update(sessionId, chunk("agent_message_chunk", a.text())));
      }
      for (ToolCallRequest c : a.toolCalls()) {
        ObjectNode u = F.objectNode().put("sessionUpdate", "tool_call").put("toolCallId", c.id())
            .put("title", title(c.name(), c.rawArguments())).put("kind", kind(c.name())).put("status", "pending");
        try {
          u.set("rawInput", c.rawArguments().isBlank() ? F.objectNode() : JSON.readTree(c.rawArguments()));
        } catch (JsonProcessingException e) {
          u.put("rawInput", c.rawArguments());
        }
        write(update(sessionId, u));
      }
    } else if (m instanceof ToolResultMessage r) {
      ObjectNode u = F.objectNode().put("sessionUpdate", "tool_call_update").put("toolCallId", r.callId())
          .put("status", r.isError() ? "failed" : "completed");
      if (!r.content().isEmpty()) {
        u.set("content", content(r.content()));
      }
      write(update(sessionId, u));
    }
  }

  // --- writing ------------------------------------------------------------------------------------------------------

  private static ObjectNode update(String sessionId, ObjectNode update) {
    ObjectNode msg = F.objectNode().put("jsonrpc", "2.0").put("method", "session/update");
    msg.putObject("params").put("sessionId", sessionId).set("update", update);
    return msg;
  }

  private static ObjectNode response(JsonNode id) {
    ObjectNode msg = F.objectNode().put("jsonrpc", "2.0");
    msg.set("id", id);
    return msg;
  }

  private void result(JsonNode id, JsonNode result) {
    send(response(id).set("result", result));
  }

  private void error(JsonNode id, int code, String message) {
    ObjectNode msg = response(id);
    msg.putObject("error").put("code", code).put("message", message);
    send(msg);
  }

  private void send(ObjectNode msg) {
    submit(() -> write(msg));
  }

  private void submit(Runnable r) {
    try {
      writer.execute(r);
    } catch (RejectedExecutionException e) {
      log.debug("ACP connection ended; a message was not written");
    }
  }

  /** Writes one message as one line (writer thread). */
  private void write(ObjectNode msg) {
    if (!writable) {
      return;
    }
    try {
      out.write(JSON.writeValueAsBytes(msg));
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      writable = false;
      log.debug("ACP output failed; the editor is gone: {}", e.toString());
    }
  }

  /** The input ended: abort the running turns, write what is queued, let the sessions go. */
  private void end() {
    for (Session s : sessions.values()) {
      try {
        cancel(s);
      } catch (RuntimeException e) {
        log.warn("ACP session {}: aborting its turn at the end of the connection failed", s.id, e);
      }
    }
    asked.clear();
    writer.shutdown();
    try {
      writer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (String id : sessions.keySet()) {
      acp.owners.remove(id, this);
    }
  }
}
