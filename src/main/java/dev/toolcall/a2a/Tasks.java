package dev.toolcall.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ConversationBusyException;
import dev.toolcall.conversation.DecisionReport;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.wire.SessionAccess;
import dev.toolcall.wire.WireFormat;
import dev.toolcall.wire.WireFormatException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task side of the A2A server: a message starts or answers a task, a turn's end is written to the task's row,
 * streams and blocking calls wait on the row. Every write of a row is a compare-and-set on its version
 * ({@link TaskStore}); the conversation itself is the {@link AgentDirectory}'s.
 *
 * <p>Who writes a row: the request that accepts a message (new task, or input-required to working), the completion
 * of the turn it started (working to its end), a cancel, and a deadline continuation (input-required to working when
 * every request's deadline passed). A lost compare-and-set is read again, never overwritten.
 */
final class Tasks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Tasks.class);
  private static final int MAX_HISTORY = 200;
  private static final int MAX_ID = 200;
  private static final int MAX_PARTS = 100;
  private static final int MAX_QUEUED = 10_000;
  private static final long POLL_MILLIS = 250;
  private static final long STORE_READ_MILLIS = 1_000;

  private final AgentDirectory directory;
  private final TaskStore store;
  private final SessionAccess access;
  private final Duration maxWait;
  private final long heartbeatMillis;
  private final ScheduledExecutorService timers;
  /** Open watches (streams, blocking sends, cancels waiting) by context id. */
  private final ConcurrentHashMap<String, Set<Watch>> watches = new ConcurrentHashMap<>();
  /** Tasks whose turn this instance runs now: task id to context id. */
  private final ConcurrentHashMap<String, String> runningHere = new ConcurrentHashMap<>();
  private final Subscription subscription;

  Tasks(ToolCallRuntime runtime, AgentDirectory directory, TaskStore store, SessionAccess access, Duration maxWait,
      long heartbeatMillis) {
    this.directory = directory;
    this.store = store;
    this.access = access;
    this.maxWait = maxWait;
    this.heartbeatMillis = heartbeatMillis;
    this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "toolcall-a2a-timer");
      t.setDaemon(true);
      return t;
    });
    this.subscription = runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent e) {
          offer(e.sessionId(), e);
        }
      }
    });
    timers.scheduleWithFixedDelay(this::sweepCancels, 500, 500, TimeUnit.MILLISECONDS);
  }

  /** What a stream or a wait listens to: call events of its context and the rows this instance writes. */
  static final class Watch {
    final String contextId;
    final BlockingQueue<Object> queue = new LinkedBlockingQueue<>(MAX_QUEUED);

    Watch(String contextId) {
      this.contextId = contextId;
    }
  }

  /** Where a stream's events go. */
  interface Sink {
    /** One StreamResponse (A2A 1.0 JSON). */
    void event(ObjectNode streamResponse) throws IOException;

    /** A keep-alive comment. */
    void heartbeat() throws IOException;
  }

  Watch watch(String contextId) {
    Watch w = new Watch(contextId);
    watches.computeIfAbsent(contextId, k -> ConcurrentHashMap.newKeySet()).add(w);
    return w;
  }

  void unwatch(Watch w) {
    watches.computeIfPresent(w.contextId, (k, set) -> {
      set.remove(w);
      return set.isEmpty() ? null : set;
    });
  }

  private void offer(String contextId, Object o) {
    Set<Watch> set = watches.get(contextId);
    if (set != null) {
      for (Watch w : set) {
        if (!w.queue.offer(o) && o instanceof StoredTask) {
          w.queue.clear(); // a stalled reader: call events may go, a task change must not
          w.queue.offer(o);
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ messages

  /** A user message as read from the request, normalized to A2A 1.0. */
  record Incoming(ObjectNode message, String text, List<JsonNode> data, String taskId, String contextId) {}

  static Incoming incoming(JsonNode params) {
    JsonNode m = params.get("message");
    if (m == null || !m.isObject()) {
      throw invalidParams("params.message is required (a Message object)");
    }
    String role = m.path("role").asText("");
    if (!role.equals("ROLE_USER") && !role.equals("user")) {
      throw invalidParams("message.role must be ROLE_USER (user)");
    }
    String messageId = id(m, "messageId");
    if (messageId == null) {
      throw invalidParams("message.messageId is required");
    }
    String taskId = id(m, "taskId");
    String contextId = id(m, "contextId");
    JsonNode parts = m.get("parts");
    if (parts == null || !parts.isArray() || parts.isEmpty() || parts.size() > MAX_PARTS) {
      throw invalidParams("message.parts must be an array of 1 to " + MAX_PARTS + " parts");
    }
    StringBuilder text = new StringBuilder();
    List<JsonNode> data = new ArrayList<>();
    ArrayNode normalized = A2aJson.JSON.createArrayNode();
    for (JsonNode p : parts) {
      if (!p.isObject()) {
        throw invalidParams("each part must be an object");
      }
      if (p.has("text")) {
        if (!p.get("text").isTextual()) {
          throw invalidParams("a text part's text must be a string");
        }
        if (text.length() > 0) {
          text.append('\n');
        }
        text.append(p.get("text").asText());
        normalized.add(A2aJson.textPart(p.get("text").asText()));
      } else if (p.has("data")) {
        data.add(p.get("data"));
        normalized.add(A2aJson.dataPart(p.get("data")));
      } else {
        throw invalidParams("only text and data parts are read (a part has neither text nor data)");
      }
    }
    ObjectNode msg = A2aJson.JSON.createObjectNode();
    msg.put("messageId", messageId);
    if (contextId != null) {
      msg.put("contextId", contextId);
    }
    if (taskId != null) {
      msg.put("taskId", taskId);
    }
    msg.put("role", "ROLE_USER");
    msg.set("parts", normalized);
    return new Incoming(msg, text.toString(), data, taskId, contextId);
  }

  private static String id(JsonNode m, String field) {
    JsonNode v = m.get(field);
    if (v == null || v.isNull() || (v.isTextual() && v.asText().isEmpty())) {
      return null;
    }
    if (!v.isTextual() || v.asText().length() > MAX_ID || v.asText().isBlank()
        || v.asText().chars().anyMatch(Character::isISOControl)) {
      throw invalidParams("message." + field + " must be a string of 1 to " + MAX_ID + " printable characters");
    }
    return v.asText();
  }

  static RpcException invalidParams(String message) {
    return new RpcException(RpcException.INVALID_PARAMS, message);
  }

  /**
   * Accepts a message: a new task (no task id) whose turn starts now, or the answer of an input-required task. The
   * row is written before this returns; the turn goes on without the caller.
   */
  StoredTask accept(Incoming in, String credential) {
    return in.taskId() == null ? start(in, credential) : answer(in, credential);
  }

  private StoredTask start(Incoming in, String credential) {
    String ctx = in.contextId();
    if (ctx == null) {
      throw invalidParams("message.contextId is required: a context is a conversation, and its credential is"
          + " issued for it");
    }
    if (!access.mayRead(ctx, credential)) {
      throw new RpcException(RpcException.INVALID_REQUEST, "this credential does not permit context " + ctx);
    }
    if (in.data().stream().anyMatch(d -> d.has("decisions"))) {
      throw invalidParams("decisions answer a task: set message.taskId to the task that is input-required");
    }
    if (in.text().isBlank()) {
      throw invalidParams("the message has no text");
    }
    String taskId = UUID.randomUUID().toString();
    ObjectNode json = A2aJson.JSON.createObjectNode();
    json.put("id", taskId);
    json.put("contextId", ctx);
    ObjectNode user = in.message().deepCopy();
    user.put("taskId", taskId);
    user.put("contextId", ctx);
    json.putArray("history").add(user);
    json.putArray("artifacts");
    status(json, TaskState.WORKING, null);
    StoredTask t = new StoredTask(taskId, ctx, 1, TaskState.WORKING, A2aJson.text(json));
    if (!store.create(t)) {
      throw new IllegalStateException("a random task id was taken: " + taskId);
    }
    run(t, null, () -> directory.send(ctx, in.text()));
    return t;
  }

  private StoredTask answer(Incoming in, String credential) {
    StoredTask t = visible(in.taskId(), credential);
    if (in.contextId() != null && !in.contextId().equals(t.contextId())) {
      throw RpcException.taskNotFound(in.taskId());
    }
    if (!access.mayDecide(t.contextId(), credential)) {
      throw new RpcException(RpcException.INVALID_REQUEST, "this credential may read task " + t.taskId()
          + " but not answer it");
    }
    List<Decision> decisions = decisions(in.data());
    if (t.state().isTerminal()) {
      throw new RpcException(RpcException.UNSUPPORTED_OPERATION, "task " + t.taskId() + " is "
          + t.state().legacyName() + ": a message without taskId starts a new task");
    }
    if (t.state() != TaskState.INPUT_REQUIRED) {
      throw new RpcException(RpcException.UNSUPPORTED_OPERATION, "task " + t.taskId() + " is "
          + t.state().legacyName() + ", not waiting for input");
    }
    ObjectNode json = A2aJson.parseStored(t.json());
    JsonNode previous = json.path("status").deepCopy();
    ObjectNode user = in.message().deepCopy();
    user.put("contextId", t.contextId());
    history(json, user);
    status(json, TaskState.WORKING, null);
    StoredTask next = new StoredTask(t.taskId(), t.contextId(), t.version() + 1, TaskState.WORKING,
        A2aJson.text(json));
    if (!store.replace(t, next)) {
      throw new RpcException(RpcException.UNSUPPORTED_OPERATION, "task " + t.taskId()
          + " no longer waits for input: another answer was taken first");
    }
    offer(t.contextId(), next);
    run(next, previous, () -> directory.resumeWith(t.contextId(), decisions));
    return next;
  }

  /** The decisions of a message's data parts, in the wire format; refused whole when malformed. */
  private static List<Decision> decisions(List<JsonNode> data) {
    List<JsonNode> batches = new ArrayList<>();
    for (JsonNode d : data) {
      if (d.isObject() && d.has("decisions")) {
        batches.add(d);
      }
    }
    if (batches.size() != 1) {
      throw invalidParams("an input-required task is answered by a message with one data part"
          + " {\"v\":1,\"decisions\":[{\"requestId\",\"argumentsVersion\",\"decision\",\"reason\"?}]}; it had "
          + batches.size());
    }
    try {
      return WireFormat.parseDecisions(batches.get(0));
    } catch (WireFormatException e) {
      ArrayNode problems = A2aJson.JSON.createArrayNode();
      e.problems().forEach(problems::add);
      throw new RpcException(RpcException.INVALID_PARAMS, e.getMessage(), 200,
          A2aJson.JSON.createObjectNode().set("problems", problems));
    }
  }

  private interface Step {
    CompletionStage<TurnResult> start();
  }

  private void run(StoredTask t, JsonNode previousStatus, Step step) {
    runningHere.put(t.taskId(), t.contextId());
    CompletionStage<TurnResult> turn;
    try {
      turn = step.start();
    } catch (RuntimeException e) {
      turn = CompletableFuture.failedFuture(e);
    }
    turn.whenComplete((r, x) -> {
      runningHere.remove(t.taskId());
      try {
        finish(t.taskId(), r, x, previousStatus);
      } catch (RuntimeException e) {
        log.warn("task {}: its end could not be written: {}", t.taskId(), e.toString());
      }
    });
  }

  /** Writes how the turn of {@code taskId} ended. */
  private void finish(String taskId, TurnResult r, Throwable x, JsonNode previousStatus) {
    for (int attempt = 0; attempt < 20; attempt++) {
      StoredTask t = store.read(taskId).orElse(null);
      if (t == null || t.state().isTerminal()) {
        return; // cancelled (or dropped) meanwhile
      }
      ObjectNode json = A2aJson.parseStored(t.json());
      ArrayNode parts = A2aJson.JSON.createArrayNode();
      TaskState state;
      ObjectNode artifact = null;
      Instant latest = null;
      Throwable cause = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
      if (cause != null) {
        if ((cause instanceof ConversationBusyException || cause instanceof IllegalStateException)
            && previousStatus != null && previousStatus.has("message")) {
          state = TaskState.INPUT_REQUIRED;
          parts.add(A2aJson.textPart("The conversation was busy with another step; nothing was decided. Answer"
              + " again."));
          previousStatus.path("message").path("parts").forEach(p -> {
            if (!p.has("text")) {
              parts.add(p.deepCopy());
            }
          });
          latest = latestDeadline(json);
        } else if (cause instanceof ConversationBusyException || cause instanceof IllegalStateException) {
          state = TaskState.REJECTED;
          parts.add(A2aJson.textPart("Context " + t.contextId() + " has a turn under way (running, or waiting for"
              + " input on another task): answer or cancel that task first."));
        } else {
          state = TaskState.FAILED;
          log.warn("task {}: the turn failed: {}", taskId, cause.toString());
          parts.add(A2aJson.textPart("The turn failed: " + cause.getMessage()));
        }
      } else {
        switch (r.ending()) {
          case INTERRUPTED -> {
            state = TaskState.INPUT_REQUIRED;
            StringBuilder s = new StringBuilder(r.interrupts().size() == 1 ? "A tool call waits for a decision:"
                : r.interrupts().size() + " tool calls wait for decisions:");
            for (Interrupt i : r.interrupts()) {
              s.append("\n- ").append(i.toolName()).append(' ').append(i.arguments().raw()).append(" (until ")
                  .append(i.deadline()).append(')');
              latest = latest == null || i.deadline().isAfter(latest) ? i.deadline() : latest;
            }
            parts.add(A2aJson.textPart(s.toString()));
            r.interrupts().forEach(i -> parts.add(A2aJson.dataPart(WireFormat.interrupt(i))));
          }
          case ABORTED -> {
            state = TaskState.CANCELED;
            parts.add(A2aJson.textPart(r.text().isEmpty() ? "The turn was aborted." : r.text()));
          }
          case FAILED -> {
            state = TaskState.FAILED;
            parts.add(A2aJson.textPart(r.text()));
          }
          case NOT_INTERRUPTED -> {
            state = TaskState.COMPLETED;
            parts.add(A2aJson.textPart("The turn had already gone on; nothing was waiting for these decisions."));
          }
          default -> {
            state = TaskState.COMPLETED;
            parts.add(A2aJson.textPart(r.text()));
            artifact = A2aJson.JSON.createObjectNode();
            artifact.put("artifactId", UUID.randomUUID().toString());
            artifact.put("name", "answer");
            artifact.putArray("parts").add(A2aJson.textPart(r.text()));
          }
        }
        for (DecisionReport d : r.decisions()) {
          parts.add(A2aJson.dataPart(WireFormat.decisionReport(d)));
        }
      }
      ObjectNode message = A2aJson.agentMessage(taskId, t.contextId(), parts);
      status(json, state, message);
      history(json, message);
      if (artifact != null) {
        (json.withArray("artifacts")).add(artifact);
      }
      ObjectNode meta = json.withObject("metadata");
      if (latest != null) {
        meta.put("toolcallLatestDeadline", latest.toString());
      } else {
        meta.remove("toolcallLatestDeadline");
      }
      meta.remove("toolcallCancelRequested");
      StoredTask next = new StoredTask(taskId, t.contextId(), t.version() + 1, state, A2aJson.text(json));
      if (store.replace(t, next)) {
        offer(t.contextId(), next);
        if (latest != null) {
          long delay = Math.max(0, Duration.between(Instant.now(), latest).toMillis()) + 100;
          timers.schedule(() -> continueAfterDeadline(taskId), delay, TimeUnit.MILLISECONDS);
        }
        return;
      }
    }
    log.warn("task {}: its end lost 20 writes in a row and was not written", taskId);
  }

  private static Instant latestDeadline(ObjectNode json) {
    JsonNode d = json.path("metadata").get("toolcallLatestDeadline");
    return d == null ? null : Instant.parse(d.asText());
  }

  /** Goes on with an input-required task whose requests' deadlines all passed (nobody answered in time). */
  private void continueAfterDeadline(String taskId) {
    try {
      StoredTask t = store.read(taskId).orElse(null);
      if (t == null || t.state() != TaskState.INPUT_REQUIRED) {
        return;
      }
      ObjectNode json = A2aJson.parseStored(t.json());
      Instant latest = latestDeadline(json);
      if (latest == null || latest.isAfter(Instant.now())) {
        return;
      }
      JsonNode previous = json.path("status").deepCopy();
      ArrayNode parts = A2aJson.JSON.createArrayNode().add(A2aJson.textPart(
          "Nobody decided before the deadline: the requests were denied and the turn goes on."));
      status(json, TaskState.WORKING, A2aJson.agentMessage(taskId, t.contextId(), parts));
      StoredTask next = new StoredTask(taskId, t.contextId(), t.version() + 1, TaskState.WORKING,
          A2aJson.text(json));
      if (!store.replace(t, next)) {
        return; // answered or cancelled meanwhile
      }
      offer(t.contextId(), next);
      run(next, previous, () -> directory.resumeWith(t.contextId(), List.of()));
    } catch (RuntimeException e) {
      log.warn("task {}: going on after its deadline failed: {}", taskId, e.toString());
    }
  }

  // ------------------------------------------------------------------------------------------- get, cancel

  /** The task, if the credential may read its context; an unknown and a foreign id are answered alike. */
  StoredTask visible(String taskId, String credential) {
    StoredTask t = store.read(taskId).orElse(null);
    if (t == null || !access.mayRead(t.contextId(), credential)) {
      throw RpcException.taskNotFound(taskId);
    }
    if (t.state() == TaskState.INPUT_REQUIRED) {
      Instant latest = latestDeadline(A2aJson.parseStored(t.json()));
      if (latest != null && latest.isBefore(Instant.now())) {
        timers.execute(() -> continueAfterDeadline(taskId)); // the instance that scheduled it may be gone
      }
    }
    return t;
  }

  /** The task's JSON with at most {@code historyLength} messages of history (all when negative). */
  static ObjectNode withHistory(StoredTask t, int historyLength) {
    ObjectNode json = A2aJson.parseStored(t.json());
    ArrayNode h = json.withArray("history");
    while (historyLength >= 0 && h.size() > historyLength) {
      h.remove(0);
    }
    json.remove("metadata");
    return json;
  }

  /**
   * Cancels the task: an input-required one at once (its turn is aborted); a working one by aborting its turn here,
   * or by asking the instance that runs it (a flag on the row it reads within half a second).
   */
  StoredTask cancel(String taskId, String credential) {
    for (int attempt = 0; attempt < 20; attempt++) {
      StoredTask t = visible(taskId, credential);
      if (!access.mayDecide(t.contextId(), credential)) {
        throw new RpcException(RpcException.INVALID_REQUEST, "this credential may read task " + taskId
            + " but not cancel it");
      }
      if (t.state().isTerminal()) {
        throw new RpcException(RpcException.TASK_NOT_CANCELABLE, "task " + taskId + " is " + t.state().legacyName());
      }
      ObjectNode json = A2aJson.parseStored(t.json());
      if (t.state() == TaskState.WORKING) {
        if (runningHere.containsKey(taskId)) {
          return abortAndWait(t);
        }
        json.withObject("metadata").put("toolcallCancelRequested", true);
        StoredTask flagged = new StoredTask(taskId, t.contextId(), t.version() + 1, t.state(), A2aJson.text(json));
        if (!store.replace(t, flagged)) {
          continue;
        }
        return abortAndWait(flagged);
      }
      ArrayNode parts = A2aJson.JSON.createArrayNode().add(A2aJson.textPart("Canceled by the client."));
      ObjectNode message = A2aJson.agentMessage(taskId, t.contextId(), parts);
      status(json, TaskState.CANCELED, message);
      history(json, message);
      StoredTask next = new StoredTask(taskId, t.contextId(), t.version() + 1, TaskState.CANCELED,
          A2aJson.text(json));
      if (store.replace(t, next)) {
        offer(t.contextId(), next);
        directory.abort(t.contextId()).whenComplete((v, x) -> {
          if (x != null) {
            log.warn("task {} was canceled but its turn could not be aborted: {}", taskId, x.toString());
          }
        });
        return next;
      }
    }
    throw new RpcException(RpcException.INTERNAL, "task " + taskId + " changed 20 times while being canceled");
  }

  /** Aborts the turn of a working task (here, or the turn of an instance that died) and waits for its end. */
  private StoredTask abortAndWait(StoredTask t) {
    Watch w = watch(t.contextId());
    try {
      directory.abort(t.contextId()).whenComplete((v, x) -> {
        if (x == null && !runningHere.containsKey(t.taskId())) {
          // Nobody ran the turn (its instance died): the abort took the conversation; the task ends here.
          finish(t.taskId(), new TurnResult(TurnResult.Ending.ABORTED, "The turn was aborted.", List.of(),
              List.of()), null, null);
        }
      });
      return await(w, t, maxWait.compareTo(Duration.ofSeconds(10)) < 0 ? maxWait : Duration.ofSeconds(10), null);
    } catch (IOException e) {
      throw new IllegalStateException(e); // no sink: cannot happen
    } finally {
      unwatch(w);
    }
  }

  /** Aborts here the turns whose task a cancel on another instance flagged. */
  private void sweepCancels() {
    for (var e : runningHere.entrySet()) {
      try {
        StoredTask t = store.read(e.getKey()).orElse(null);
        if (t != null && t.json().contains("\"toolcallCancelRequested\":true")) {
          directory.abort(e.getValue());
        }
      } catch (RuntimeException x) {
        log.debug("reading task {} for a cancel failed", e.getKey(), x);
      }
    }
  }

  // -------------------------------------------------------------------------------------------- waiting

  /**
   * Waits until the task has a version after {@code from}'s that is input-required or terminal, or {@code max}
   * passed; with a sink, streams what happens meanwhile (call events as working status updates, the task's changes)
   * and keeps the stream alive. Returns the task as last read.
   */
  StoredTask await(Watch w, StoredTask from, Duration max, Sink sink) throws IOException {
    long end = System.nanoTime() + max.toNanos();
    long nextRead = System.nanoTime() + STORE_READ_MILLIS * 1_000_000;
    long nextBeat = System.nanoTime() + heartbeatMillis * 1_000_000;
    StoredTask last = from;
    while (true) {
      Object o;
      try {
        o = w.queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return last;
      }
      StoredTask seen = null;
      if (o instanceof StoredTask s && s.taskId().equals(from.taskId())) {
        seen = s;
      } else if (o instanceof ToolCallEvent e && sink != null && last.state() == TaskState.WORKING) {
        sink.event(callUpdate(from, e));
      }
      long now = System.nanoTime();
      if (seen == null && now - nextRead > 0) {
        nextRead = now + STORE_READ_MILLIS * 1_000_000;
        seen = store.read(from.taskId()).orElse(null);
      }
      if (seen != null && seen.version() > last.version()) {
        last = seen;
        if (sink != null) {
          emitChange(seen, sink);
        }
        if (seen.state().isTerminal() || seen.state() == TaskState.INPUT_REQUIRED) {
          return seen;
        }
      }
      if (sink != null && now - nextBeat > 0) {
        nextBeat = now + heartbeatMillis * 1_000_000;
        sink.heartbeat();
      }
      if (now - end > 0) {
        return last;
      }
    }
  }

  private static ObjectNode callUpdate(StoredTask t, ToolCallEvent e) {
    ObjectNode wire = WireFormat.event(e);
    ArrayNode parts = A2aJson.JSON.createArrayNode();
    parts.add(A2aJson.textPart(e.snapshot().toolName() + ": " + e.snapshot().state().wireName()));
    parts.add(A2aJson.dataPart(wire));
    ObjectNode update = A2aJson.JSON.createObjectNode();
    ObjectNode u = update.putObject("statusUpdate");
    u.put("taskId", t.taskId());
    u.put("contextId", t.contextId());
    ObjectNode status = u.putObject("status");
    status.put("state", TaskState.WORKING.wireName());
    status.set("message", A2aJson.agentMessage(t.taskId(), t.contextId(), parts));
    status.put("timestamp", Instant.now().toString());
    return update;
  }

  private static void emitChange(StoredTask t, Sink sink) throws IOException {
    ObjectNode json = A2aJson.parseStored(t.json());
    if (t.state() == TaskState.COMPLETED) {
      JsonNode artifacts = json.path("artifacts");
      if (artifacts.size() > 0) {
        ObjectNode a = A2aJson.JSON.createObjectNode();
        ObjectNode u = a.putObject("artifactUpdate");
        u.put("taskId", t.taskId());
        u.put("contextId", t.contextId());
        u.set("artifact", artifacts.get(artifacts.size() - 1));
        u.put("append", false);
        u.put("lastChunk", true);
        sink.event(a);
      }
    }
    ObjectNode update = A2aJson.JSON.createObjectNode();
    ObjectNode u = update.putObject("statusUpdate");
    u.put("taskId", t.taskId());
    u.put("contextId", t.contextId());
    u.set("status", json.path("status"));
    sink.event(update);
  }

  // ------------------------------------------------------------------------------------------------ helpers

  private static void status(ObjectNode json, TaskState state, ObjectNode message) {
    ObjectNode s = json.putObject("status");
    s.put("state", state.wireName());
    if (message != null) {
      s.set("message", message);
    }
    s.put("timestamp", Instant.now().toString());
  }

  private static void history(ObjectNode json, ObjectNode message) {
    ArrayNode h = json.withArray("history");
    h.add(message);
    while (h.size() > MAX_HISTORY) {
      h.remove(0);
    }
  }

  @Override
  public void close() {
    subscription.close();
    timers.shutdownNow();
  }
}
