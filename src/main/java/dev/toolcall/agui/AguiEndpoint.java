package dev.toolcall.agui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.wire.SessionAccess;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The AG-UI protocol over an {@link Agent}, framework-neutral: {@link #run} takes a run's input (AG-UI's
 * {@code RunAgentInput}, as JSON) and writes the run's events as Server-Sent-Event frames to a {@link FrameSink}.
 *
 * <h2>A run</h2>
 * The thread id is the session (the agent's conversation id; {@code agents} makes or finds the agent of a thread).
 * A run whose last user message is new starts a turn. The run then streams, in order: {@code RUN_STARTED}; per tool
 * call {@code TOOL_CALL_START}, {@code TOOL_CALL_ARGS} (the arguments' JSON) and {@code TOOL_CALL_END} when the call
 * is created, and {@code TOOL_CALL_RESULT} when it ends (the text the model gets: the result, or why it was denied or
 * failed); and at the end one of:
 * <ul>
 *   <li>the turn's answer as {@code TEXT_MESSAGE_START} / {@code TEXT_MESSAGE_CONTENT} / {@code TEXT_MESSAGE_END},
 *       then {@code RUN_FINISHED} with outcome {@code success};</li>
 *   <li>when every open call of the turn waits for a person: per request a legacy {@code CUSTOM} event named
 *       {@code on_interrupt} (its {@code value} is the interrupt as a JSON string), then {@code RUN_FINISHED} with
 *       outcome {@code {type: "interrupt", interrupts: [{id, reason: "tool_call", message, toolCallId,
 *       responseSchema, expiresAt, metadata}]}}; the interrupt's id is the permission request's id;</li>
 *   <li>{@code RUN_ERROR} when the turn failed, or a resume entry could not be applied (nothing moved then).</li>
 * </ul>
 *
 * <h2>Resuming</h2>
 * A later run answers with {@code resume: [{interruptId, status, payload}]}: status {@code resolved} with a payload
 * of {@code responseSchema} ({@code decision}: approve_once, approve_for_session, approve_always or deny;
 * {@code reason}; edited {@code arguments}; the {@code argumentsVersion} answered), or {@code cancelled} (denies a
 * request still open; for one that already ended, by its deadline say, it does nothing). Clients that answer the
 * older way send {@code forwardedProps.command.resume} (the same payload, or the word {@code approve} /
 * {@code deny}), which answers the one open request. Every entry is checked before any is applied: an unknown or
 * foreign id, an answered one, a stale argument version or a malformed payload ends the run with {@code RUN_ERROR}
 * and decides nothing. The run then streams what the turn does next, as above.
 *
 * <h2>Threads</h2>
 * A turn waiting for a person holds no thread: its calls wait in the permission queue and the run's stream has
 * ended with the interrupt. An agent built with {@code suspendOnApproval(true)} ends the turn {@code INTERRUPTED}
 * and the resume run goes on with {@link Agent#resumeWith}; with another agent the turn's stage stays pending and the
 * resume run decides through the permission service. {@link #run}
 * blocks its caller while it streams; one run per thread id streams at a time (a second is refused with 409).
 * Turns run on the endpoint's own daemon threads ({@code toolcall-agui-turn-N}); the endpoint listens inline to the
 * runtime's events and only queues them per thread. Thread-safe.
 *
 * <h2>What does not map</h2>
 * Only the last user message of a run's input is read (the agent keeps the conversation; earlier messages, the
 * input's {@code tools}, {@code context} and {@code state} are not read). The answer is streamed whole at the turn's
 * end, not token by token; there are no {@code STATE_*}, {@code STEP_*} or reasoning events. A call's live output is
 * not streamed.
 *
 * <h2>Failures</h2>
 * What the caller did wrong is a {@link RefusedException} thrown before any frame is written (its status and code
 * say what to answer). Once {@code RUN_STARTED} is written every failure is a frame: a resume entry that cannot be
 * applied, a turn that failed, or a run longer than {@link Builder#maxRunTime} end the run with {@code RUN_ERROR}
 * and its {@code code} ({@code unknown_request}, {@code stale}, {@code turn_failed}, {@code timeout}, ...); a call
 * that was denied or failed is a {@code TOOL_CALL_RESULT} with the text the model read. A sink that throws
 * {@link IOException} ends the run: the exception reaches {@link #run}'s caller, and the turn goes on without the
 * stream (a later run of the thread picks it up). Nothing is logged here.
 */
public final class AguiEndpoint implements AutoCloseable {

  /** How long a run waits, once a call asks for a person, for the turn's other calls to settle. */
  private static final Duration SETTLE = Duration.ofMillis(250);

  private final ToolCallRuntime runtime;
  private final Function<String, Agent> agents;
  private final SessionAccess access;
  private final int maxBodyBytes;
  private final Duration maxRunTime;
  private final ConcurrentHashMap<String, AgentThread> threads = new ConcurrentHashMap<>();
  private final ExecutorService turns;
  private final Subscription subscription;

  private AguiEndpoint(Builder b) {
    this.runtime = b.runtime;
    this.agents = b.agents;
    this.access = b.access;
    this.maxBodyBytes = b.maxBodyBytes;
    this.maxRunTime = b.maxRunTime;
    AtomicInteger n = new AtomicInteger();
    this.turns = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "toolcall-agui-turn-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.subscription = runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent e) {
          AgentThread t = threads.get(e.snapshot().identity().sessionId());
          if (t != null) {
            t.events.offer(e);
          }
        }
      }
    });
  }

  /**
   * An endpoint for the agents of {@code runtime}.
   *
   * @param runtime the runtime the agents run their tool calls on (its permission service answers the resumes)
   * @param agents makes (or finds) the agent of a thread id; its conversation id must be the thread id. Called
   *     once per thread id, on the first run of that thread, on the run's thread
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(ToolCallRuntime runtime, Function<String, Agent> agents) {
    return new Builder(runtime, agents);
  }

  /** The most bytes a run's input may have. */
  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  /** Who may run and resume a thread. */
  public SessionAccess access() {
    return access;
  }

  /**
   * Runs one AG-UI run: checks {@code credential} for the input's thread, applies its resume entries or starts a
   * turn with its new user message, and writes the run's frames to {@code sink} until the run finishes (success,
   * interrupt or error). Returns when the run's last frame is written; when the sink fails (the client left) its
   * {@link IOException} is thrown on, and the turn goes on without the stream. An interrupt of the calling thread
   * ends the stream early, without a last frame, and keeps the interrupt set.
   *
   * @param input the {@code RunAgentInput} JSON
   * @param credential the caller's credential for the thread (a bearer token), or null
   * @param sink where the frames go
   * @throws RefusedException before any frame is written, when the input is malformed or too large, the credential
   *     does not permit the thread, or another run of the thread is streaming
   * @throws IOException from {@code sink}, when the client is gone
   * @throws NullPointerException if {@code input} or {@code sink} is null
   */
  public void run(String input, String credential, FrameSink sink) throws IOException {
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(sink, "sink");
    if (input.length() > maxBodyBytes) {
      throw new RefusedException(413, "too_large", "the input has more than " + maxBodyBytes + " bytes");
    }
    JsonNode in = Wire.parse(input);
    String threadId = in.path("threadId").asText("");
    String runId = in.path("runId").asText("");
    if (threadId.isBlank() || runId.isBlank()) {
      throw new RefusedException(400, "bad_request", "threadId and runId are required");
    }
    JsonNode resume = in.get("resume");
    boolean decides = (resume != null && resume.isArray() && resume.size() > 0)
        || in.path("forwardedProps").path("command").has("resume");
    if (!access.mayRead(threadId, credential) || (decides && !access.mayDecide(threadId, credential))) {
      throw new RefusedException(403, "forbidden", "not allowed for this thread");
    }
    AgentThread t = threads.computeIfAbsent(threadId, id -> new AgentThread(id, agents.apply(id)));
    if (!t.streaming.compareAndSet(false, true)) {
      throw new RefusedException(409, "busy", "another run of this thread is streaming");
    }
    try {
      new Run(t, threadId, runId, in, sink).stream();
    } finally {
      t.streaming.set(false);
    }
  }

  /**
   * Stops listening to the runtime's events. Turns already started go on, and runs still streaming see no further
   * call events (they end by their turn's end or {@code maxRunTime}). The runtime and the agents are the caller's.
   * Idempotent.
   */
  @Override
  public void close() {
    subscription.close();
    turns.shutdown();
  }

  private final class Run {
    final AgentThread t;
    final String threadId;
    final String runId;
    final JsonNode in;
    final FrameSink sink;

    Run(AgentThread t, String threadId, String runId, JsonNode in, FrameSink sink) {
      this.t = t;
      this.threadId = threadId;
      this.runId = runId;
      this.in = in;
      this.sink = sink;
    }

    void stream() throws IOException {
      emit(event("RUN_STARTED").put("threadId", threadId).put("runId", runId));
      try {
        resume();
      } catch (RefusedException e) {
        emit(event("RUN_ERROR").put("message", e.getMessage()).put("code", e.code()));
        return;
      }
      if (t.suspended && t.turn == null) {
        // Nothing answered the suspended turn's requests: announce them again (a client that reconnects).
        List<PermissionRequest> open = new ArrayList<>();
        for (dev.toolcall.conversation.Interrupt i : t.agent.interrupts()) {
          openRequest(i.requestId()).ifPresent(open::add);
        }
        if (!open.isEmpty()) {
          interrupt(open);
          return;
        }
      }
      startTurnIfNew();
      long end = System.nanoTime() + maxRunTime.toNanos();
      long openSince = 0;
      while (true) {
        Object next;
        try {
          next = t.events.poll(openSince == 0 ? 1000 : SETTLE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (next instanceof ToolCallEvent e) {
          onCall(e.snapshot());
        } else if (next instanceof TurnEnd e) {
          if (finish(e)) {
            return;
          }
          continue;
        } else if (next == null && t.turn == null) {
          finishIdle();
          return;
        }
        List<PermissionRequest> open = openRequests();
        if (open.isEmpty()) {
          openSince = 0;
        } else if (t.events.isEmpty() && (allWaiting() || (openSince != 0 && next == null))) {
          interrupt(open);
          return;
        } else if (openSince == 0) {
          openSince = System.nanoTime();
        }
        if (System.nanoTime() - end > 0) {
          emit(event("RUN_ERROR").put("message", "the run took longer than " + maxRunTime).put("code", "timeout"));
          return;
        }
      }
    }

    /** Applies the run's resume entries (AG-UI's, or the legacy forwardedProps.command.resume), all or none. */
    void resume() {
      List<Map.Entry<String, JsonNode>> answers = new ArrayList<>();
      JsonNode resume = in.get("resume");
      JsonNode legacy = in.path("forwardedProps").path("command").get("resume");
      if (resume != null && resume.isArray() && resume.size() > 0) {
        for (JsonNode r : resume) {
          String id = r.path("interruptId").asText("");
          String status = r.path("status").asText("");
          if (status.equals("cancelled")) {
            if (openRequest(id).isPresent()) {
              ObjectNode deny = JsonNodeFactory.instance.objectNode().put("decision", "deny")
                  .put("reason", "the user cancelled the request");
              answers.add(Map.entry(id, deny));
            } else if (!knownCall(id)) {
              throw new RefusedException(404, "unknown_request", "no request " + id + " in this thread");
            }
          } else if (status.equals("resolved")) {
            answers.add(Map.entry(id, payload(r.get("payload"))));
          } else {
            throw new RefusedException(400, "bad_request", "resume status must be resolved or cancelled");
          }
        }
      } else if (legacy != null && !legacy.isNull()) {
        List<PermissionRequest> open = openRequests();
        if (open.size() != 1) {
          throw new RefusedException(409, "ambiguous",
              "forwardedProps.command.resume answers exactly one open request; there are " + open.size());
        }
        answers.add(Map.entry(open.get(0).requestId(), payload(legacy)));
      }
      // Check every entry before deciding any: a bad one must leave everything as it was.
      for (Map.Entry<String, JsonNode> a : answers) {
        PermissionRequest r = openRequest(a.getKey()).orElseThrow(() -> new RefusedException(404, "unknown_request",
            "no open request " + a.getKey() + " in this thread (answered, expired or never made)"));
        JsonNode v = a.getValue().get("argumentsVersion");
        if (v != null && !v.isNull() && v.asInt(-1) != r.argumentsVersion()) {
          throw new RefusedException(409, "stale", "request " + r.requestId() + " was made on other arguments");
        }
        String d = a.getValue().path("decision").asText("");
        if (!List.of(Wire.DECISIONS).contains(d)) {
          throw new RefusedException(400, "bad_request", "payload.decision must be one of "
              + String.join(", ", Wire.DECISIONS));
        }
      }
      if (t.suspended) {
        // A suspended turn goes on through the agent: it applies the decisions and runs the turn's next step.
        List<dev.toolcall.permission.Decision> decisions = new ArrayList<>();
        for (Map.Entry<String, JsonNode> a : answers) {
          decisions.add(Wire.decision(openRequest(a.getKey()).orElseThrow(), a.getValue()));
        }
        t.suspended = false;
        CompletableFuture<TurnResult> f = new CompletableFuture<>();
        t.turn = f;
        turns.execute(() -> t.agent.resumeWith(decisions).whenComplete((r, x) -> {
          t.events.offer(new TurnEnd(r, x));
          f.complete(r);
        }));
        return;
      }
      for (Map.Entry<String, JsonNode> a : answers) {
        Wire.decide(runtime.permissions(), threadId, a.getKey(), a.getValue());
      }
    }

    JsonNode payload(JsonNode p) {
      if (p == null || p.isNull()) {
        throw new RefusedException(400, "bad_request", "a resolved resume entry needs a payload");
      }
      if (p.isTextual()) {
        String w = p.asText().strip().toLowerCase(java.util.Locale.ROOT);
        if (w.equals("approve") || w.equals("yes") || w.equals("approve_once")) {
          return JsonNodeFactory.instance.objectNode().put("decision", "approve_once");
        }
        if (w.equals("deny") || w.equals("no") || w.equals("reject")) {
          return JsonNodeFactory.instance.objectNode().put("decision", "deny");
        }
        throw new RefusedException(400, "bad_request", "a text resume must be approve or deny");
      }
      if (p.isObject() && !p.has("decision") && p.has("approved")) {
        ObjectNode o = ((ObjectNode) p).deepCopy();
        o.put("decision", p.path("approved").asBoolean() ? "approve_once" : "deny");
        o.remove("approved");
        return o;
      }
      if (!p.isObject()) {
        throw new RefusedException(400, "bad_request", "the payload must be an object");
      }
      return p;
    }

    Optional<PermissionRequest> openRequest(String requestId) {
      return runtime.permissions().request(requestId).filter(r -> r.sessionId().equals(threadId));
    }

    boolean knownCall(String requestId) {
      return t.calls.values().stream().anyMatch(c -> requestOf(c).map(r -> r.requestId().equals(requestId))
          .orElse(false)) || seenRequests.contains(requestId);
    }

    void startTurnIfNew() {
      JsonNode messages = in.path("messages");
      String text = null;
      String messageId = null;
      for (JsonNode m : messages) {
        if (m.path("role").asText("").equals("user")) {
          messageId = m.path("id").asText("");
          text = content(m.get("content"));
        }
      }
      if (text == null || t.seenMessages.contains(messageId) || t.turn != null || t.suspended) {
        return;
      }
      t.seenMessages.add(messageId);
      CompletableFuture<TurnResult> f = new CompletableFuture<>();
      t.turn = f;
      String userText = text;
      turns.execute(() -> t.agent.send(userText).whenComplete((r, x) -> {
        t.events.offer(new TurnEnd(r, x));
        f.complete(r);
      }));
    }

    String content(JsonNode c) {
      if (c == null || c.isNull()) {
        return "";
      }
      if (c.isTextual()) {
        return c.asText();
      }
      StringBuilder b = new StringBuilder();
      for (JsonNode part : c) {
        if (part.path("type").asText("").equals("text")) {
          b.append(part.path("text").asText(""));
        }
      }
      return b.toString();
    }

    void onCall(ToolCallSnapshot s) throws IOException {
      ToolCallSnapshot prev = t.calls.get(s.callId());
      if (prev != null && prev.version() >= s.version()) {
        return;
      }
      t.calls.put(s.callId(), s);
      requestOf(s).ifPresent(r -> seenRequests.add(r.requestId()));
      if (t.started.add(s.callId())) {
        emit(event("TOOL_CALL_START").put("toolCallId", s.callId()).put("toolCallName", s.toolName()));
      }
      // A call is created before its arguments are parsed: they stream once set (or once the call moved on).
      if (!t.argsSent.contains(s.callId()) && (!s.arguments().raw().isEmpty() || s.state() != ToolCallState.PENDING)) {
        t.argsSent.add(s.callId());
        if (!s.arguments().raw().isEmpty()) {
          emit(event("TOOL_CALL_ARGS").put("toolCallId", s.callId()).put("delta", s.arguments().raw()));
        }
        emit(event("TOOL_CALL_END").put("toolCallId", s.callId()));
      }
      if (s.isTerminal() && t.ended.add(s.callId())) {
        String content = s.outcomeIfTerminal().map(Outcome::messageForModel).orElse("");
        emit(event("TOOL_CALL_RESULT").put("messageId", "result-" + s.callId()).put("toolCallId", s.callId())
            .put("content", content).put("role", "tool"));
      }
    }

    List<PermissionRequest> openRequests() {
      List<PermissionRequest> out = new ArrayList<>();
      for (ToolCallSnapshot s : t.calls.values()) {
        if (s.state() == ToolCallState.PERMISSION_PENDING) {
          requestOf(s).flatMap(r -> openRequest(r.requestId())).ifPresent(out::add);
        }
      }
      return out;
    }

    boolean allWaiting() {
      return t.calls.values().stream().allMatch(s -> s.isTerminal() || s.state() == ToolCallState.PERMISSION_PENDING);
    }

    void interrupt(List<PermissionRequest> open) throws IOException {
      ArrayNode interrupts = JsonNodeFactory.instance.arrayNode();
      for (PermissionRequest r : open) {
        ObjectNode i = interrupts.addObject();
        i.put("id", r.requestId());
        i.put("reason", "tool_call");
        i.put("message", "Allow " + r.toolName() + "?");
        i.put("toolCallId", r.callId());
        i.set("responseSchema", Wire.responseSchema());
        i.put("expiresAt", r.deadline().toString());
        i.set("metadata", Wire.request(r));
      }
      for (JsonNode i : interrupts) {
        emit(event("CUSTOM").put("name", "on_interrupt").put("value", Wire.text(i)));
      }
      ObjectNode finished = event("RUN_FINISHED").put("threadId", threadId).put("runId", runId);
      finished.putObject("outcome").put("type", "interrupt").set("interrupts", interrupts);
      emit(finished);
    }

    /** Streams the end of a turn; false when the run goes on (a suspended turn that continued at once). */
    boolean finish(TurnEnd e) throws IOException {
      t.turn = null;
      if (e.failure() != null || e.result() == null) {
        emit(event("RUN_ERROR").put("message", "the turn failed").put("code", "turn_failed"));
        return true;
      }
      TurnResult r = e.result();
      if (r.ending() == TurnResult.Ending.INTERRUPTED) {
        t.suspended = true;
        List<PermissionRequest> open = new ArrayList<>();
        for (dev.toolcall.conversation.Interrupt i : r.interrupts()) {
          openRequest(i.requestId()).ifPresent(open::add);
        }
        if (!open.isEmpty()) {
          interrupt(open);
          return true;
        }
        // every request was resolved meanwhile (by its deadline, say): go on at once
        t.suspended = false;
        CompletableFuture<TurnResult> f = new CompletableFuture<>();
        t.turn = f;
        turns.execute(() -> t.agent.resumeWith(List.of()).whenComplete((res, x) -> {
          t.events.offer(new TurnEnd(res, x));
          f.complete(res);
        }));
        return false;
      }
      if (r.ending() == TurnResult.Ending.FAILED) {
        emit(event("RUN_ERROR").put("message", r.text()).put("code", "turn_failed"));
        return true;
      }
      if (!r.text().isEmpty()) {
        String id = "msg-" + UUID.randomUUID();
        emit(event("TEXT_MESSAGE_START").put("messageId", id).put("role", "assistant"));
        emit(event("TEXT_MESSAGE_CONTENT").put("messageId", id).put("delta", r.text()));
        emit(event("TEXT_MESSAGE_END").put("messageId", id));
      }
      ObjectNode finished = event("RUN_FINISHED").put("threadId", threadId).put("runId", runId);
      finished.putObject("outcome").put("type", "success");
      emit(finished);
      return true;
    }

    void finishIdle() throws IOException {
      ObjectNode finished = event("RUN_FINISHED").put("threadId", threadId).put("runId", runId);
      finished.putObject("outcome").put("type", "success");
      emit(finished);
    }

    ObjectNode event(String type) {
      ObjectNode n = JsonNodeFactory.instance.objectNode();
      n.put("type", type);
      n.put("timestamp", System.currentTimeMillis());
      return n;
    }

    void emit(ObjectNode n) throws IOException {
      sink.write(Wire.frame(n));
    }
  }

  // Request ids seen in this endpoint's streams (cancelled resumes of ended requests are accepted for these).
  private final Set<String> seenRequests = ConcurrentHashMap.newKeySet();

  private static Optional<PermissionRequest> requestOf(ToolCallSnapshot s) {
    return s.state() == ToolCallState.PERMISSION_PENDING ? PermissionRequest.of(s) : Optional.empty();
  }

  /** Builds an {@link AguiEndpoint}. Not thread-safe. */
  public static final class Builder {
    private final ToolCallRuntime runtime;
    private final Function<String, Agent> agents;
    private SessionAccess access;
    private int maxBodyBytes = 256 * 1024;
    private Duration maxRunTime = Duration.ofMinutes(10);

    private Builder(ToolCallRuntime runtime, Function<String, Agent> agents) {
      this.runtime = Objects.requireNonNull(runtime, "runtime");
      this.agents = Objects.requireNonNull(agents, "agents");
    }

    /**
     * Who may run a thread (required): e.g. {@link dev.toolcall.wire.SessionTokens}. A run needs
     * {@link SessionAccess#mayRead}; one that carries resume entries needs {@link SessionAccess#mayDecide} too.
     */
    public Builder access(SessionAccess access) {
      this.access = Objects.requireNonNull(access, "access");
      return this;
    }

    /**
     * The most bytes a run's input may have (default 256 KiB).
     *
     * @throws IllegalArgumentException if {@code maxBodyBytes} is under 1024
     */
    public Builder maxBodyBytes(int maxBodyBytes) {
      this.maxBodyBytes = Wire.requireBodyLimit(maxBodyBytes);
      return this;
    }

    /** The longest a run streams before it ends with RUN_ERROR (default 10 minutes). */
    public Builder maxRunTime(Duration maxRunTime) {
      Objects.requireNonNull(maxRunTime, "maxRunTime");
      if (maxRunTime.isNegative() || maxRunTime.isZero()) {
        throw new IllegalArgumentException("maxRunTime must be positive, was " + maxRunTime);
      }
      this.maxRunTime = maxRunTime;
      return this;
    }

    /** The endpoint; it listens to the runtime's events until closed. */
    public AguiEndpoint build() {
      if (access == null) {
        throw new IllegalStateException("access is required: who may run a thread (e.g. SessionTokens.create())");
      }
      return new AguiEndpoint(this);
    }
  }
}
