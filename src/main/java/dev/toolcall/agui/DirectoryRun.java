package dev.toolcall.agui;

import static dev.toolcall.agui.RunFrames.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.ConversationState;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.AgentSnapshot;
import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.ConversationBusyException;
import dev.toolcall.conversation.DecisionReport;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.conversation.UserMessage;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One AG-UI run of an endpoint that serves its threads through an {@link AgentDirectory}
 * ({@link AguiEndpoint.Builder#directory}): the thread's conversation lives in the directory's store, so the run may
 * land on any instance, and nothing of the thread stays in this endpoint between runs.
 *
 * <p>What the run does, decided from its input and the stored conversation: resume entries (or the legacy
 * {@code forwardedProps.command.resume}) are checked against the conversation's open requests, all before any is
 * applied, and given to the turn in one step; a user message the stored conversation does not have yet (the input
 * holds more user messages than the conversation) starts a turn; a run with neither is a client reconnecting: the
 * interrupted turn's open requests are announced again (or, when they were all resolved meanwhile, by a person on the
 * page or by their deadlines, the turn goes on), and an idle conversation is sent whole as {@code MESSAGES_SNAPSHOT}.
 * Another step of the thread under way, here or on another instance, is refused 409 before any frame.
 *
 * <p>The run streams the call events of its own step, published on this instance: {@code TOOL_CALL_START / ARGS /
 * END} for a call the step created, {@code TOOL_CALL_RESULT} for every call that ended during it.
 */
final class DirectoryRun {
  private final ToolCallRuntime runtime;
  private final AgentDirectory directory;
  private final String threadId;
  private final String runId;
  private final JsonNode in;
  private final FrameSink sink;
  private final Duration maxRunTime;
  private final Set<String> started = new HashSet<>();
  private final Set<String> ended = new HashSet<>();

  DirectoryRun(ToolCallRuntime runtime, AgentDirectory directory, String threadId, String runId, JsonNode in,
      FrameSink sink, Duration maxRunTime) {
    this.runtime = runtime;
    this.directory = directory;
    this.threadId = threadId;
    this.runId = runId;
    this.in = in;
    this.sink = sink;
    this.maxRunTime = maxRunTime;
  }

  /** Put on a run's queue of call versions when its step has ended, so the run goes on without waiting a poll out. */
  private static final Object STEP_DONE = new Object();

  void stream() throws IOException {
    LinkedBlockingQueue<Object> calls = new LinkedBlockingQueue<>(); // the calls' versions, then STEP_DONE
    Subscription sub = runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent e && e.snapshot().identity().sessionId().equals(threadId)) {
          calls.offer(e.snapshot());
        }
      }
    });
    try {
      boolean reconnect = false;
      CompletableFuture<TurnResult> step;
      if (decides()) {
        step = directory.run(threadId, agent -> agent.resumeWith(decisions(agent))).toCompletableFuture();
      } else {
        String text = newUserText();
        if (text != null) {
          step = directory.send(threadId, text).toCompletableFuture();
        } else {
          reconnect = true;
          step = directory.run(threadId, agent -> agent.conversation().state()
              == ConversationState.AWAITING_TOOL_APPROVAL ? agent.resumeWith(List.of())
              : CompletableFuture.completedFuture(new TurnResult(TurnResult.Ending.NOT_INTERRUPTED, "", List.of(),
                  List.of()))).toCompletableFuture();
        }
      }
      if (step.isCompletedExceptionally()) { // refused before anything ran: an HTTP status, not a frame
        Throwable x = cause(step);
        if (x instanceof ConversationBusyException) {
          throw new RefusedException(409, "busy", "another run of this thread is under way");
        }
        if (x instanceof RefusedException r) {
          throw r;
        }
      }
      emit(event("RUN_STARTED").put("threadId", threadId).put("runId", runId));
      step.whenComplete((r, t) -> calls.offer(STEP_DONE)); // wakes the loop at once, after the step's last call event
      long end = System.nanoTime() + maxRunTime.toNanos();
      while (!step.isDone()) {
        Object o;
        try {
          o = calls.poll(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (o instanceof ToolCallSnapshot s) {
          onCall(s);
        }
        if (System.nanoTime() - end > 0) {
          emit(event("RUN_ERROR").put("message", "the run took longer than " + maxRunTime).put("code", "timeout"));
          return;
        }
      }
      for (Object o; (o = calls.poll()) != null; ) {
        if (o instanceof ToolCallSnapshot s) {
          onCall(s);
        }
      }
      TurnResult r;
      try {
        r = step.get();
      } catch (ExecutionException e) {
        Throwable x = cause(step);
        if (x instanceof RefusedException refused) {
          emit(event("RUN_ERROR").put("message", refused.getMessage()).put("code", refused.code()));
        } else if (x instanceof ConversationBusyException) {
          emit(event("RUN_ERROR").put("message", "another run of this thread is under way").put("code", "busy"));
        } else {
          emit(event("RUN_ERROR").put("message", "the turn failed").put("code", "turn_failed"));
        }
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      finish(r, reconnect);
    } finally {
      sub.close();
    }
  }

  private static Throwable cause(CompletableFuture<?> f) {
    try {
      f.getNow(null);
      return null;
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    } catch (java.util.concurrent.CancellationException e) {
      return e;
    }
  }

  private boolean decides() {
    JsonNode resume = in.get("resume");
    return resume != null && resume.isArray() && resume.size() > 0
        || in.path("forwardedProps").path("command").has("resume");
  }

  /** The last user message's text when the input holds more user messages than the stored conversation, else null. */
  private String newUserText() {
    int given = 0;
    JsonNode last = null;
    for (JsonNode m : in.path("messages")) {
      if (m.path("role").asText("").equals("user")) {
        given++;
        last = m;
      }
    }
    if (last == null) {
      return null;
    }
    int stored = 0;
    Optional<AgentSnapshot> snap = directory.snapshot(threadId);
    if (snap.isPresent()) {
      for (Message m : snap.get().messages()) {
        if (m instanceof UserMessage) {
          stored++;
        }
      }
    }
    return given > stored ? RunFrames.content(last.get("content")) : null;
  }

  /**
   * The run's answers as decisions on {@code agent}'s open requests, every one checked before any is applied.
   *
   * @throws RefusedException for an answer that cannot be applied (nothing is then)
   */
  private List<Decision> decisions(Agent agent) {
    Map<String, Interrupt> open = new HashMap<>();
    for (Interrupt i : agent.interrupts()) {
      open.put(i.requestId(), i);
    }
    List<Decision> out = new ArrayList<>();
    Set<String> answered = new HashSet<>();
    JsonNode resume = in.get("resume");
    if (resume != null && resume.isArray() && resume.size() > 0) {
      for (JsonNode r : resume) {
        String id = r.path("interruptId").asText("");
        if (!answered.add(id)) {
          throw new RefusedException(400, "bad_request", "request " + id + " is answered twice in one resume");
        }
        String status = r.path("status").asText("");
        Interrupt i = open.get(id);
        if (status.equals("cancelled")) {
          if (i != null) {
            out.add(new Decision.Deny(id, i.argumentsVersion(), "the user cancelled the request"));
          } // a request that is not open (ended by its deadline, say): nothing to cancel, the same for any id
        } else if (status.equals("resolved")) {
          if (i == null) {
            throw unknown(id);
          }
          out.add(Wire.decision(request(i), RunFrames.payload(r.get("payload")), runtime.registry()));
        } else {
          throw new RefusedException(400, "bad_request", "resume status must be resolved or cancelled");
        }
      }
    } else {
      if (open.size() != 1) {
        throw new RefusedException(409, "ambiguous",
            "forwardedProps.command.resume answers exactly one open request; there are " + open.size());
      }
      Interrupt i = open.values().iterator().next();
      out.add(Wire.decision(request(i), RunFrames.payload(in.path("forwardedProps").path("command").get("resume")),
          runtime.registry()));
    }
    return out;
  }

  private static RefusedException unknown(String id) {
    return new RefusedException(404, "unknown_request", "no open request " + id
        + " in this thread (answered, expired or never made)");
  }

  private void emit(ObjectNode n) throws IOException {
    RunFrames.emit(sink, n);
  }

  /**
   * A page's decision on a session served through the directory: one step that checks the answer against the turn's
   * open requests, applies it, and goes on with the turn (the tool runs, the model gets its result); answered once the
   * step has ended. Refused 409 {@code busy} while another step of the session runs, 404 for an id that is not open
   * (the same for another session's), 409 {@code already_answered} when another answer or the deadline won.
   */
  static ObjectNode decide(AgentDirectory directory, ToolCallRuntime runtime, String session, String requestId,
      JsonNode answer) {
    Decision[] made = new Decision[1];
    CompletableFuture<TurnResult> step = directory.run(session, agent -> {
      Interrupt open = agent.interrupts().stream().filter(i -> i.requestId().equals(requestId)).findFirst()
          .orElseThrow(() -> Wire.unknownRequest(requestId));
      made[0] = Wire.decision(DirectoryRun.request(open), answer, runtime.registry());
      return agent.resumeWith(List.of(made[0]));
    }).toCompletableFuture();
    TurnResult r;
    try {
      r = step.get(10, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RefusedException(503, "interrupted", "the server is stopping");
    } catch (java.util.concurrent.TimeoutException e) {
      throw new RefusedException(504, "timeout", "the turn is still running; its result follows on the stream");
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable x = e.getCause();
      if (x instanceof RefusedException refused) {
        throw refused;
      }
      if (x instanceof ConversationBusyException) {
        throw new RefusedException(409, "busy", "the session is busy (another answer or run is under way); try again");
      }
      throw new RefusedException(500, "internal", "the turn failed");
    }
    DecisionReport report = r.decisions().isEmpty() ? null : r.decisions().get(0);
    if (report == null || report.status() != DecisionReport.Status.ACCEPTED) {
      throw new RefusedException(409, "already_answered", report == null ? "already answered" : report.message());
    }
    String state = made[0] instanceof Decision.Deny ? "permission_denied" : "permission_approved";
    return Wire.JSON.createObjectNode().put("result", "won").put("state", state);
  }

  /** The open request an interrupt lists, to build a decision on. */
  static PermissionRequest request(Interrupt i) {
    return new PermissionRequest(i.requestId(), i.callId(), i.sessionId(), i.toolName(), i.arguments(),
        i.argumentsVersion(), i.createdAt(), i.deadline(), 0);
  }

  /** A resume payload in its full form: the legacy words and {@code {approved}} turned into a decision. */
  private void onCall(ToolCallSnapshot s) throws IOException {
    String id = s.callId();
    if (s.version() == 0 && started.add(id)) { // created in this run's step
      emit(event("TOOL_CALL_START").put("toolCallId", id).put("toolCallName", s.toolName()));
    }
    if (started.contains(id) && !s.arguments().raw().isEmpty() || s.state() != ToolCallState.PENDING) {
      if (started.contains(id) && started.add(id + "\u0000args")) {
        if (!s.arguments().raw().isEmpty()) {
          emit(event("TOOL_CALL_ARGS").put("toolCallId", id).put("delta", s.arguments().raw()));
        }
        emit(event("TOOL_CALL_END").put("toolCallId", id));
      }
    }
    if (s.isTerminal() && ended.add(id)) {
      String content = s.outcomeIfTerminal().map(Outcome::messageForModel).orElse("");
      emit(event("TOOL_CALL_RESULT").put("messageId", "result-" + id).put("toolCallId", id)
          .put("content", content).put("role", "tool"));
    }
  }

  private void finish(TurnResult r, boolean reconnect) throws IOException {
    switch (r.ending()) {
      case INTERRUPTED -> {
        List<PermissionRequest> open = new ArrayList<>();
        r.interrupts().forEach(i -> open.add(request(i)));
        RunFrames.interrupt(sink, threadId, runId, open);
      }
      case FAILED -> emit(event("RUN_ERROR").put("message", r.text()).put("code", "turn_failed"));
      default -> {
        if (!r.text().isEmpty()) {
          RunFrames.answer(sink, r.text());
        } else if (reconnect || r.ending() == TurnResult.Ending.NOT_INTERRUPTED) {
          Optional<AgentSnapshot> snap = directory.snapshot(threadId);
          if (snap.isPresent()) {
            emit(snapshot(snap.get().messages()));
          }
        }
        RunFrames.success(sink, threadId, runId);
      }
    }
  }

  /** AG-UI's MESSAGES_SNAPSHOT of the stored conversation: what the thread holds, for a client that reconnects. */
  private ObjectNode snapshot(List<Message> messages) {
    ObjectNode n = event("MESSAGES_SNAPSHOT");
    ArrayNode out = n.putArray("messages");
    int k = 0;
    for (Message m : messages) {
      String id = threadId + "-m" + k++;
      if (m instanceof UserMessage u) {
        out.addObject().put("id", id).put("role", "user").put("content", u.text());
      } else if (m instanceof AssistantMessage a) {
        ObjectNode o = out.addObject().put("id", id).put("role", "assistant").put("content", a.text());
        if (!a.toolCalls().isEmpty()) {
          ArrayNode calls = o.putArray("toolCalls");
          for (ToolCallRequest c : a.toolCalls()) {
            calls.addObject().put("id", c.id()).put("type", "function").putObject("function")
                .put("name", c.name()).put("arguments", c.rawArguments());
          }
        }
      } else if (m instanceof ToolResultMessage t) {
        out.addObject().put("id", id).put("role", "tool").put("toolCallId", t.callId()).put("content", t.content());
      }
    }
    return n;
  }

}
