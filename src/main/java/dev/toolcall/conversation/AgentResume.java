package dev.toolcall.conversation;

import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationReasons;
import dev.toolcall.ConversationState;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An agent's durability across a restart: what {@link Agent#snapshot()} keeps of the turn's open calls, and how
 * {@link Agent#resume(List)} goes on with the restored turn from the state the conversation was in: the restored
 * calls are matched to the last model response's open calls, and the turn goes on with the step of
 * {@link TurnSteps} that state calls for (which awaits the calls without holding a thread). Package-private; it works
 * on the agent's state under the agent's lock, as {@link Suspensions} does.
 */
final class AgentResume {
  /** What the model is told of a call of the resumed turn that neither snapshot holds. */
  static final String LOST = "Outcome unknown: the process restarted while this call was under way and its result was"
      + " lost; it may have run. Check its effects before calling it again.";

  private final Agent agent;

  AgentResume(Agent agent) {
    this.agent = agent;
  }

  /**
   * The conversation of an agent built to resume from {@code c}: restored with its wall-clock times, its ticks moved
   * onto {@code ticker} (the instant it was created lies as far back on the ticker as on the clock).
   */
  static Conversation restore(ConversationSnapshot c, dev.toolcall.event.EventBus bus, java.time.Clock clock,
      dev.toolcall.Ticker ticker) {
    long now = ticker.read();
    long created = now - Math.max(0, java.time.Duration.between(c.createdAt(), clock.instant()).toNanos());
    ConversationSnapshot mapped = new ConversationSnapshot(c.conversationId(), c.createdAt(), created, c.state(),
        c.version(), c.detail(), c.turn(), c.roundTrips(), c.reason(), created + (c.tick() - c.createdTick()), null);
    return Conversation.restore(mapped, bus, ticker);
  }

  /** See {@link Agent#snapshot()}. */
  AgentSnapshot snapshot() {
    synchronized (agent.lock) {
      List<ToolResultMessage> answered = new ArrayList<>();
      Turn t = agent.ends.current;
      Suspensions.Parked parked = agent.suspensions.parked();
      if (t != null && (!t.ended || parked != null && parked.turn() == t)) {
        for (int i = 0; i < t.open.size(); i++) {
          ToolCallRequest c = t.open.get(i);
          ToolCall call = t.callOf(i);
          dev.toolcall.ToolCallSnapshot s = call == null ? null : call.snapshot();
          ToolResultMessage known = t.given.get(c.id());
          if (t.refusals[i] != null) {
            answered.add(new ToolResultMessage(c.id(), c.name(), t.refusals[i], true));
          } else if (known != null) { // known when the snapshot this turn resumed from was taken
            answered.add(known);
          } else if (s != null && s.isTerminal()) {
            CallResult r = new CallResult(s);
            answered.add(new ToolResultMessage(c.id(), c.name(), r.messageForModel(), r.isError()));
          }
        }
      }
      return new AgentSnapshot(agent.conversation.snapshot(), agent.messages, answered);
    }
  }

  /** See {@link Agent#resume(List)}. */
  CompletionStage<TurnResult> resume(List<Batch> owed) {
    Objects.requireNonNull(owed, "owed");
    Map<String, java.util.ArrayDeque<ToolCall>> restored = new HashMap<>(); // by the provider's id, in order
    for (Batch b : owed) {
      for (ToolCall c : b.calls()) {
        if (c.sessionId().equals(agent.conversation.id())) {
          restored.computeIfAbsent(c.identity().label(), k -> new java.util.ArrayDeque<>()).add(c);
        }
      }
    }
    Turn t = new Turn(false);
    ConversationState from;
    synchronized (agent.lock) {
      from = agent.conversation.state();
      if (agent.suspensions.parked() != null) {
        return CompletableFuture.failedFuture(new IllegalStateException("conversation " + agent.conversation.id()
            + " has an interrupted turn: go on with it with resumeWith(decisions)"));
      }
      Turn running = agent.ends.current;
      if (!from.isBusy() || (running != null && !running.ended)) {
        return CompletableFuture.failedFuture(new IllegalStateException("no turn to resume: conversation "
            + agent.conversation.id() + " is " + from.wireName() + (running != null && !running.ended
            ? " and a turn is running" : "")));
      }
      agent.ends.current = t;
      List<ToolCallRequest> open = openCalls();
      t.open(open);
      Map<String, ToolResultMessage> given = new HashMap<>();
      for (ToolResultMessage m : agent.resumeAnswers) {
        given.put(m.callId(), m);
      }
      Map<String, ToolCall> mine = new LinkedHashMap<>();
      for (int i = 0; i < open.size(); i++) {
        ToolCallRequest c = open.get(i);
        if (given.containsKey(c.id())) {
          continue;
        }
        java.util.ArrayDeque<ToolCall> labelled = restored.get(c.id());
        ToolCall call = labelled == null ? null : labelled.poll();
        if (call != null) {
          mine.put(c.id(), call);
        } else {
          t.refusals[i] = LOST;
        }
      }
      given.keySet().retainAll(open.stream().map(ToolCallRequest::id).toList());
      t.given = given;
      t.resumed = mine;
    }
    agent.steps.guarded(t, () -> resumeFrom(t, from));
    return t.result.minimalCompletionStage();
  }

  /** The calls of the last assistant message without a result after it. Under agent.lock. */
  List<ToolCallRequest> openCalls() {
    for (int i = agent.messages.size() - 1; i >= 0; i--) {
      Message m = agent.messages.get(i);
      if (m instanceof AssistantMessage a) {
        return i == agent.messages.size() - 1 ? a.toolCalls() : List.of();
      }
      if (m instanceof UserMessage) {
        return List.of();
      }
    }
    return List.of();
  }

  /** The step the restored turn goes on with, from the state the conversation was in. */
  private void resumeFrom(Turn t, ConversationState from) {
    TurnSteps steps = agent.steps;
    List<ToolCall> calls;
    synchronized (agent.lock) {
      calls = List.copyOf(t.resumed.values());
    }
    switch (from) {
      case AWAITING_TOOL_APPROVAL -> {
        if (!agent.suspend || !agent.suspensions.suspendResumed(t, calls)) {
          steps.afterDecided(t, calls);
        }
      }
      case PROCESSING_LLM_RESPONSE -> {
        if (steps.step(t, from, ConversationState.EXECUTING_TOOLS, ConversationReasons.TOOLS_STARTED)) {
          steps.afterTools(t, calls);
        }
      }
      case EXECUTING_TOOLS -> steps.afterTools(t, calls);
      case TRANSIENT_FAILURE -> {
        boolean tools = !t.open.isEmpty();
        if (steps.step(t, from, tools ? ConversationState.EXECUTING_TOOLS : ConversationState.AWAITING_LLM_RESPONSE,
            ConversationReasons.RETRYING)) {
          if (tools) {
            steps.afterTools(t, calls);
          } else {
            steps.requestModel(t);
          }
        }
      }
      case PROCESSING_TOOL_RESULTS, HANDLING_TOOL_ERROR -> {
        synchronized (agent.lock) {
          t.closeOut(agent.messages, agent.answeredIds);
        }
        if (steps.step(t, from, ConversationState.GENERATING_RESPONSE, ConversationReasons.CONTINUING)) {
          steps.continueOrStop(t);
        }
      }
      case GENERATING_RESPONSE -> {
        synchronized (agent.lock) {
          t.closeOut(agent.messages, agent.answeredIds);
        }
        steps.continueOrStop(t);
      }
      case PROCESSING_USER_MESSAGE -> {
        if (steps.step(t, from, ConversationState.AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED)) {
          steps.requestModel(t);
        }
      }
      case AWAITING_LLM_RESPONSE -> steps.requestModel(t);
      default -> agent.ends.finish(t, TurnResult.Ending.FAILED, "Nothing to resume from " + from.wireName() + ".",
          () -> agent.conversation.stopTurn(TurnSteps.INTERNAL_ERROR));
    }
  }

  /** Completes once none of {@code calls} waits for a decision (each was decided, or ended). */
  CompletableFuture<Void> whenDecided(List<ToolCall> calls) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    java.util.function.BooleanSupplier decided = () -> calls.stream().allMatch(c -> {
      ToolCallState s = c.state();
      return s != ToolCallState.PENDING && s != ToolCallState.PERMISSION_PENDING;
    });
    if (decided.getAsBoolean()) {
      done.complete(null);
      return done;
    }
    Set<String> ids = new HashSet<>();
    calls.forEach(c -> ids.add(c.callId()));
    dev.toolcall.event.Subscription[] sub = new dev.toolcall.event.Subscription[1];
    sub[0] = agent.runtime.events().subscribe(new dev.toolcall.event.EventListener() {
      @Override
      public void onStateChanged(dev.toolcall.event.ToolCallEvent.StateChanged e) {
        if (ids.contains(e.snapshot().callId()) && e.snapshot().identity().sessionId().equals(agent.conversation.id())
            && decided.getAsBoolean() && done.complete(null)) {
          CompletableFuture.runAsync(() -> sub[0].close()); // not from inside its own delivery
        }
      }
    });
    if (decided.getAsBoolean() && done.complete(null)) {
      sub[0].close();
    }
    return done;
  }
}
