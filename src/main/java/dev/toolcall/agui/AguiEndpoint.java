package dev.toolcall.agui;

import static dev.toolcall.agui.RunFrames.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ConversationState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionKind;
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
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
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
 *   <li>once the model's response is complete and every call of it waits for a person, is approved and held, or has
 *       ended (for an agent that suspends: once its turn ended {@code INTERRUPTED}, never on the calls' events
 *       alone): per open request of the response a legacy {@code CUSTOM} event named
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
 * say what to answer): input that is not JSON, has a key twice in one object, or is not the documented shape
 * ({@code threadId} and {@code runId} non-blank strings, {@code messages} and {@code resume} arrays,
 * {@code forwardedProps} an object, ...) is 400 naming the field, before the credential is checked. Once {@code RUN_STARTED} is written every failure is a frame: a resume entry that cannot be
 * applied, a turn that failed, or a run longer than {@link Builder#maxRunTime} end the run with {@code RUN_ERROR}
 * and its {@code code} ({@code unknown_request}, {@code stale}, {@code turn_failed}, {@code timeout}, ...); a call
 * that was denied or failed is a {@code TOOL_CALL_RESULT} with the text the model read. A sink that throws
 * {@link IOException} ends the run: the exception reaches {@link #run}'s caller, and the turn goes on without the
 * stream (a later run of the thread picks it up). Nothing is logged here.
 */
public final class AguiEndpoint implements AutoCloseable {

  private final ToolCallRuntime runtime;
  private final Function<String, Agent> agents;
  /** Where the threads live when they are served through a directory (any instance serves any thread), or null. */
  private final dev.toolcall.conversation.AgentDirectory directory;
  private final SessionAccess access;
  private final int maxBodyBytes;
  private final Duration maxRunTime;
  private final ConcurrentHashMap<String, AgentThread> threads = new ConcurrentHashMap<>();
  private final ExecutorService turns;
  private final Subscription subscription;
  // How a turn's end reaches its thread's queue: at once; a test holds it back to open the window after a turn ended.
  private final java.util.function.Consumer<Runnable> turnEnds;

  private AguiEndpoint(Builder b) {
    this.runtime = b.runtime;
    this.agents = b.agents;
    this.directory = b.directory;
    this.access = b.access;
    this.maxBodyBytes = b.maxBodyBytes;
    this.maxRunTime = b.maxRunTime;
    this.turnEnds = b.turnEnds;
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
        } else if (event instanceof ConversationEvent e) {
          AgentThread t = threads.get(e.snapshot().conversationId());
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
    return new Builder(runtime, Objects.requireNonNull(agents, "agents"), null);
  }

  /**
   * An endpoint whose threads live in {@code directory}'s store: any instance with such an endpoint on the same store
   * serves any run of any thread (behind a load balancer without sticky sessions), and nothing of a thread stays in
   * this endpoint between runs. The thread id is the conversation id. Each run is one step of the directory: a second
   * run of a thread while one is under way, on any instance, is refused 409 {@code busy}; a run with resume entries
   * checks them all against the conversation's open requests before any is applied; a run whose input holds more user
   * messages than the stored conversation starts a turn with the last one; a run with neither (a client that
   * reconnects) announces the interrupted turn's open requests again, goes on with the turn when they were all
   * resolved meanwhile (by a person on the page, or by their deadlines), or, for an idle thread, sends the stored
   * conversation as {@code MESSAGES_SNAPSHOT}. The run streams the events of the calls its own step drives.
   *
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(ToolCallRuntime runtime, dev.toolcall.conversation.AgentDirectory directory) {
    return new Builder(runtime, null, Objects.requireNonNull(directory, "directory"));
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
    RunInput.check(in);
    String threadId = in.get("threadId").asText();
    String runId = in.get("runId").asText();
    JsonNode resume = in.get("resume");
    boolean decides = (resume != null && resume.isArray() && resume.size() > 0)
        || in.path("forwardedProps").path("command").has("resume");
    if (!access.mayRead(threadId, credential) || (decides && !access.mayDecide(threadId, credential))) {
      throw new RefusedException(403, "forbidden", "not allowed for this thread");
    }
    if (directory != null) {
      new DirectoryRun(runtime, directory, threadId, runId, in, sink, maxRunTime).stream();
      return;
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
      boolean resumed;
      try {
        resumed = resume();
      } catch (RefusedException e) {
        emit(event("RUN_ERROR").put("message", e.getMessage()).put("code", e.code()));
        return;
      }
      if (!resumed && t.turn == null && suspends()
          && t.agent.conversation().state() == ConversationState.AWAITING_TOOL_APPROVAL) {
        // A suspended turn and a run that answers nothing (a client that reconnects): announce its open requests
        // again, or, when they were all resolved otherwise (their deadlines), go on with the turn.
        List<PermissionRequest> open = open(t.agent.interrupts());
        if (!open.isEmpty()) {
          interrupt(open);
          return;
        }
        continueSuspended(List.of());
      }
      startTurnIfNew();
      long end = System.nanoTime() + maxRunTime.toNanos();
      while (true) {
        if (t.events.isEmpty() && !suspends() && t.turn != null && responseWaits()) {
          List<PermissionRequest> open = openRequests();
          if (!open.isEmpty()) {
            interrupt(open);
            return;
          }
        }
        Object next;
        try {
          next = t.events.poll(1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (next instanceof ToolCallEvent e) {
          onCall(e.snapshot());
        } else if (next instanceof ConversationEvent e) {
          t.conversation = e.to();
        } else if (next instanceof TurnEnd e) {
          if (finish(e)) {
            return;
          }
        } else if (next == null && t.turn == null) {
          RunFrames.success(sink, threadId, runId);
          return;
        }
        if (System.nanoTime() - end > 0) {
          emit(event("RUN_ERROR").put("message", "the run took longer than " + maxRunTime).put("code", "timeout"));
          return;
        }
      }
    }

    boolean suspends() {
      return t.agent.suspendsOnApproval();
    }

    /**
     * Whether the turn's latest response is complete and every call of it has come to rest for the approval phase:
     * the conversation (as its events arrived, after the response's calls were created) is awaiting_tool_approval,
     * and each call waits for a person, is approved and held, needs no permission and is held, or has ended.
     */
    boolean responseWaits() {
      if (t.conversation != ConversationState.AWAITING_TOOL_APPROVAL) {
        return false;
      }
      for (ToolCallSnapshot s : t.calls.values()) {
        boolean rests = s.isTerminal() || s.state() == ToolCallState.PERMISSION_PENDING
            || s.state() == ToolCallState.PERMISSION_APPROVED
            || (s.state() == ToolCallState.PENDING && !needsApproval(s.toolName()));
        if (!rests) {
          return false;
        }
      }
      return true;
    }

    boolean needsApproval(String toolName) {
      return runtime.registry().find(toolName).map(tool -> tool.definition().requiresApproval()).orElse(false);
    }

    /**
     * Applies the run's resume entries (AG-UI's, or the legacy forwardedProps.command.resume), all or none: every
     * entry is checked and turned into a decision before the first is applied. Returns whether there were any.
     */
    boolean resume() {
      JsonNode resume = in.get("resume");
      JsonNode legacy = in.path("forwardedProps").path("command").get("resume");
      boolean entries = resume != null && resume.isArray() && resume.size() > 0;
      if (!entries && (legacy == null || legacy.isNull())) {
        return false;
      }
      // The requests this run may answer, as they are now: a suspended turn's (asked of the agent, not of what this
      // endpoint last streamed), else the thread's open requests in the permission service.
      List<Interrupt> parked = suspends() ? t.agent.interrupts() : List.of();
      boolean viaAgent = !parked.isEmpty();
      List<Decision> decisions = new ArrayList<>();
      Set<String> answered = new HashSet<>();
      if (entries) {
        for (JsonNode r : resume) {
          String id = r.get("interruptId").asText();
          if (!answered.add(id)) {
            throw new RefusedException(400, "bad_request", "request " + id + " is answered twice in one resume");
          }
          String status = r.get("status").asText();
          Optional<PermissionRequest> request = answerable(id, parked, viaAgent);
          if (status.equals("cancelled")) {
            if (request.isPresent()) {
              decisions.add(Decision.deny(request.get(), "the user cancelled the request"));
            } else if (!t.requests.contains(id)) {
              throw Wire.unknownRequest(id);
            }
            // a request of this thread that already ended (by its deadline, say): nothing to cancel
          } else {
            PermissionRequest open = request.orElseThrow(() -> Wire.unknownRequest(id));
            decisions.add(checked(open, RunFrames.payload(r.get("payload")), parked));
          }
        }
      } else {
        List<PermissionRequest> open = viaAgent ? open(parked) : openRequests();
        if (open.size() != 1) {
          throw new RefusedException(409, "ambiguous",
              "forwardedProps.command.resume answers exactly one open request; there are " + open.size());
        }
        decisions.add(checked(open.get(0), RunFrames.payload(legacy), parked));
      }
      if (viaAgent) {
        continueSuspended(decisions);
        return true;
      }
      // Every entry passed: apply them. One can still lose a race decided in between (another tab, the deadline):
      // the others are applied, and the run says which lost.
      List<String> lost = new ArrayList<>();
      for (Decision d : decisions) {
        try {
          Wire.decided(d.requestId(), runtime.permissions().decide(d.requestId(), d));
        } catch (RefusedException e) {
          lost.add(d.requestId() + ": " + e.getMessage());
        }
      }
      if (!lost.isEmpty()) {
        throw new RefusedException(409, "already_answered", "decided meanwhile by someone else (the other answers"
            + " were applied): " + String.join("; ", lost));
      }
      return true;
    }

    /** The open request {@code id} of this thread that a resume may answer, if any. */
    Optional<PermissionRequest> answerable(String id, List<Interrupt> parked, boolean viaAgent) {
      if (viaAgent && parked.stream().noneMatch(i -> i.requestId().equals(id))) {
        return Optional.empty();
      }
      return openRequest(id);
    }

    /** {@link Wire#decision}, and for a suspended turn also the kinds its agent allows. */
    Decision checked(PermissionRequest r, JsonNode answer, List<Interrupt> parked) {
      Decision d = Wire.decision(r, answer, runtime.registry());
      for (Interrupt i : parked) {
        if (i.requestId().equals(r.requestId()) && !i.allowed().contains(DecisionKind.of(d))) {
          throw new RefusedException(400, "bad_request", "request " + r.requestId() + " does not allow "
              + DecisionKind.of(d).wireName());
        }
      }
      return d;
    }

    /** Goes on with the agent's suspended turn through {@link Agent#resumeWith}; its end supersedes any earlier. */
    void continueSuspended(List<Decision> decisions) {
      CompletableFuture<TurnResult> f = new CompletableFuture<>();
      t.turn = f;
      turns.execute(() -> t.agent.resumeWith(decisions).whenComplete((r, x) -> {
        turnEnds.accept(() -> t.events.offer(new TurnEnd(f, r, x)));
        f.complete(r);
      }));
    }

    List<PermissionRequest> open(List<Interrupt> interrupts) {
      List<PermissionRequest> out = new ArrayList<>();
      for (Interrupt i : interrupts) {
        openRequest(i.requestId()).ifPresent(out::add);
      }
      return out;
    }

    Optional<PermissionRequest> openRequest(String requestId) {
      return runtime.permissions().request(requestId).filter(r -> r.sessionId().equals(threadId));
    }

    void startTurnIfNew() {
      JsonNode messages = in.path("messages");
      String text = null;
      String messageId = null;
      for (JsonNode m : messages) {
        if (m.path("role").asText("").equals("user")) {
          messageId = m.path("id").asText("");
          text = RunFrames.content(m.get("content"));
        }
      }
      if (text == null || t.seenMessages.contains(messageId) || t.turn != null || t.agent.isResponding()) {
        return;
      }
      t.seenMessages.add(messageId);
      CompletableFuture<TurnResult> f = new CompletableFuture<>();
      t.turn = f;
      String userText = text;
      turns.execute(() -> t.agent.send(userText).whenComplete((r, x) -> {
        turnEnds.accept(() -> t.events.offer(new TurnEnd(f, r, x)));
        f.complete(r);
      }));
    }

    void onCall(ToolCallSnapshot s) throws IOException {
      ToolCallSnapshot prev = t.calls.get(s.callId());
      if (prev != null && prev.version() >= s.version()) {
        return;
      }
      t.calls.put(s.callId(), s);
      requestOf(s).ifPresent(r -> t.requests.add(r.requestId()));
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

    void emit(ObjectNode n) throws IOException {
      RunFrames.emit(sink, n);
    }

    void interrupt(List<PermissionRequest> open) throws IOException {
      RunFrames.interrupt(sink, threadId, runId, open);
    }

    /**
     * Streams the end of a turn; false when the run goes on (a turn superseded by a later one of this thread, or a
     * suspended turn whose requests were all resolved meanwhile, which goes on at once).
     */
    boolean finish(TurnEnd e) throws IOException {
      if (e.turn() != t.turn) {
        return false; // a turn this thread has gone on from (resumed after a run that left early)
      }
      t.turn = null;
      if (e.failure() != null || e.result() == null) {
        emit(event("RUN_ERROR").put("message", "the turn failed").put("code", "turn_failed"));
        return true;
      }
      TurnResult r = e.result();
      if (r.ending() == TurnResult.Ending.INTERRUPTED) {
        List<PermissionRequest> open = open(t.agent.interrupts());
        if (!open.isEmpty()) {
          interrupt(open);
          return true;
        }
        // every request was resolved meanwhile (by its deadline, say): go on at once
        continueSuspended(List.of());
        return false;
      }
      if (r.ending() == TurnResult.Ending.FAILED) {
        emit(event("RUN_ERROR").put("message", r.text()).put("code", "turn_failed"));
        return true;
      }
      if (r.ending() != TurnResult.Ending.NOT_INTERRUPTED) {
        RunFrames.answer(sink, r.text());
      }
      RunFrames.success(sink, threadId, runId);
      return true;
    }

  }

  private static Optional<PermissionRequest> requestOf(ToolCallSnapshot s) {
    return s.state() == ToolCallState.PERMISSION_PENDING ? PermissionRequest.of(s) : Optional.empty();
  }

  /** Builds an {@link AguiEndpoint}. Not thread-safe. */
  public static final class Builder {
    private final ToolCallRuntime runtime;
    private final Function<String, Agent> agents;
    private final dev.toolcall.conversation.AgentDirectory directory;
    private SessionAccess access;
    private int maxBodyBytes = 256 * 1024;
    private Duration maxRunTime = Duration.ofMinutes(10);
    private java.util.function.Consumer<Runnable> turnEnds = Runnable::run;

    private Builder(ToolCallRuntime runtime, Function<String, Agent> agents,
        dev.toolcall.conversation.AgentDirectory directory) {
      this.runtime = Objects.requireNonNull(runtime, "runtime");
      this.agents = agents;
      this.directory = directory;
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

    /** For tests: runs each delivery of a turn's end to its thread (default: at once, on the turn's thread). */
    Builder turnEnds(java.util.function.Consumer<Runnable> turnEnds) {
      this.turnEnds = Objects.requireNonNull(turnEnds, "turnEnds");
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
