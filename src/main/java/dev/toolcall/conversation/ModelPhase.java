package dev.toolcall.conversation;

import dev.toolcall.fsm.TransitionResult;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A turn's model requests: sending one (the streamed deltas to {@link StreamedCalls} and the agent's listener), its
 * response or failure, and the transient failures retried after {@link TurnGuards#modelRetryDelay} until the limits
 * stop them. Package-private; it works on the agent's state under the agent's lock, as {@link ToolPhase} does.
 */
final class ModelPhase {
  private final Agent agent;

  ModelPhase(Agent agent) {
    this.agent = agent;
  }

  void request(Turn t) {
    ModelRequest request;
    synchronized (agent.lock) {
      if (!agent.live(t)) {
        return;
      }
      request = new ModelRequest(agent.messages, agent.runtime.registry().modelDefinitions(), agent.instructions, agent.options);
      t.stream = null; // the previous response's calls are in t.batch
    }
    Consumer<ModelDelta> listener = d -> {
      agent.guarded(t, () -> agent.streams.onDelta(t, d));
      if (agent.deltaListener != null) {
        agent.deltaListener.accept(d);
      }
    };
    CompletionStage<ModelResponse> stage;
    try {
      stage = agent.model.stream(request, listener);
      if (stage == null) {
        stage = CompletableFuture.failedFuture(ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
            "the model client returned no stage"));
      }
    } catch (RuntimeException | Error e) { // a model client that throws an Error too ends the turn, never hangs it
      stage = CompletableFuture.failedFuture(ModelException.from(e));
    }
    boolean live;
    synchronized (agent.lock) {
      live = agent.live(t);
      if (live) {
        t.modelRequest = stage;
      }
    }
    if (!live) { // the turn ended while the request was being sent: it is not wanted
      ModelClients.cancel(stage);
      return;
    }
    CompletionStage<ModelResponse> sent = stage;
    stage.whenComplete((response, e) -> agent.guarded(t, () -> {
      synchronized (agent.lock) {
        if (t.modelRequest == sent) {
          t.modelRequest = null;
        }
      }
      if (e != null) {
        agent.streams.dropStream(t, "the model's response failed before it was complete");
        onModelError(t, ModelException.from(e));
      } else if (response == null) {
        agent.streams.dropStream(t, "the model's response failed before it was complete");
        onModelError(t, ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
            "the model client returned no response"));
      } else {
        agent.streams.onResponse(t, response);
      }
    }));
  }

  void onModelError(Turn t, ModelException e) {
    if (e.mustNotContinue()) {
      agent.finish(t, TurnResult.Ending.MODEL_SWITCHED, "The model cannot continue this turn on its own: " + e.getMessage()
          + " Send a message to go on.", () -> agent.conversation.stopTurn(ConversationReasons.MODEL_SWITCHED));
      return;
    }
    if (!e.isTransient()) {
      String error = "The model request failed: " + e.getMessage();
      agent.finish(t, TurnResult.Ending.FAILED, error, () -> agent.conversation.fail(ConversationState.AWAITING_LLM_RESPONSE,
          error));
      return;
    }
    TransitionResult<ConversationSnapshot> r;
    synchronized (agent.lock) {
      if (!agent.live(t)) {
        return;
      }
      r = agent.conversation.transientFailure(ConversationState.AWAITING_LLM_RESPONSE, e.getMessage());
    }
    if (!r.won()) {
      agent.stoppedOutside(t);
      return;
    }
    int retryCount = r.snapshot().retryCount();
    Optional<Duration> delay = TurnGuards.modelRetryDelay(agent.limits, e, retryCount, agent.random.getAsDouble());
    if (delay.isEmpty()) {
      String error = "The model request failed " + retryCount + " times in a row; the last error: " + e.getMessage();
      agent.finish(t, TurnResult.Ending.FAILED, error, () -> agent.conversation.fail(ConversationState.TRANSIENT_FAILURE,
          error));
      return;
    }
    Agent.log.debug("conversation {}: model request failed transiently ({}), retry {} in {}", agent.conversation.id(),
        e.getMessage(), retryCount, delay.get());
    CompletableFuture.delayedExecutor(delay.get().toNanos(), TimeUnit.NANOSECONDS).execute(() -> agent.guarded(t, () -> {
      if (agent.step(t, ConversationState.TRANSIENT_FAILURE, ConversationState.AWAITING_LLM_RESPONSE,
          ConversationReasons.RETRYING)) {
        request(t);
      }
    }));
  }

  /** In generating_response: the next model request, unless the round-trip limit stops the turn. */
  void continueOrStop(Turn t) {
    GuardDecision d = TurnGuards.checkRoundTrip(agent.limits, agent.conversation.snapshot().roundTrips());
    if (!d.allowed()) {
      agent.finish(t, TurnResult.Ending.ROUND_TRIP_LIMIT, d.message(),
          () -> agent.conversation.stopTurn(ConversationReasons.ROUND_TRIP_LIMIT));
    } else if (agent.step(t, ConversationState.GENERATING_RESPONSE, ConversationState.AWAITING_LLM_RESPONSE,
        ConversationReasons.MODEL_REQUESTED)) {
      request(t);
    }
  }
}
