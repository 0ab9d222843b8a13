package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.tool.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The steps of an {@link Agent}'s turns, in the order the conversation machine of seed 03 takes them: a turn starts
 * ({@code processing_user_message}); the model is asked ({@code awaiting_llm_response}, {@code transient_failure}
 * while a failed request waits to be retried) and the calls it streams are taken as they come; its response is
 * handled ({@code processing_llm_response}); the tool phase lets the calls' tools start
 * ({@code awaiting_tool_approval}, {@code executing_tools}); the batch's end is handled
 * ({@code processing_tool_results}, {@code handling_tool_error}); the model is asked again
 * ({@code generating_response}) or the turn ends. Read top to bottom, this class is the turn.
 *
 * <p>The one owner of a turn's steps: every step that moves the conversation is here, and every stage the turn waits
 * on (the model's response, the batch's authorization, the batch's end) completes into a method here; the ends of
 * every batch land in {@link #onBatchDone}. The helpers it uses take no step themselves: {@link TurnEnds} knows which
 * turn is live and ends a turn once, {@link StreamedCalls} assembles the streamed calls on the batch (with
 * {@link TurnGuards} for each), {@link Turn} keeps the turn's state, {@link BatchEnd} reads a batch's results,
 * {@link ToolRetryWatch} shows the batch's tool retries on the conversation, {@link Suspensions} parks a turn that
 * waits for a person, {@link AgentResume} picks the step a restored turn goes on from.
 *
 * <p>One instance per agent; the turn's state is the {@link Turn} each step is given. Every change of the conversation
 * and every read or write of a turn's guarded fields holds the agent's lock, and a step first checks that its turn
 * is still {@link TurnEnds#live live}, so nothing of an ended turn touches the conversation or the messages. Steps
 * run on the threads that complete the turn's stages (the caller, the model client's, the tools', a delayed executor
 * for model retries), one step of a turn at a time, each through {@link #guarded}.
 */
final class TurnSteps {
  /** A user command started a turn. */
  static final Reason USER_COMMAND = Reason.of("user_command", "user ran a command");
  /** A user command's tool call ended; the turn ends without the model. */
  static final Reason COMMAND_DONE = Reason.of("command_done", "user command done");
  /** The loop itself failed (a bug); the turn ends. */
  static final Reason INTERNAL_ERROR = Reason.of("internal_error", "the turn loop failed");
  /** What the model is told about the other calls of a response in which a call repeated in a loop. */
  static final String LOOP_NOT_RUN = "Not run: the turn was stopped because a tool call repeated in a loop.";

  private final Agent agent;
  private final Object lock;
  private final Conversation conversation;
  private final List<Message> messages;
  private final TurnEnds ends;
  final StreamedCalls streams;

  TurnSteps(Agent agent, TurnEnds ends) {
    this.agent = agent;
    this.lock = agent.lock;
    this.conversation = agent.conversation;
    this.messages = agent.messages;
    this.ends = ends;
    this.streams = new StreamedCalls(agent, ends);
  }

  // --- processing_user_message: a turn starts ---------------------------------------------------------------------

  /** See {@link Agent#send}. */
  CompletionStage<TurnResult> send(String userText) {
    Turn t = new Turn(false);
    Turn superseded;
    synchronized (lock) {
      TransitionResult<ConversationSnapshot> r = conversation.startTurn(ConversationReasons.USER_MESSAGE);
      if (!r.won()) {
        return TurnEnds.refused(r.snapshot());
      }
      superseded = ends.replaceWith(t);
      messages.add(new UserMessage(userText));
    }
    ends.completeSuperseded(superseded);
    guarded(t, () -> {
      if (step(t, ConversationState.PROCESSING_USER_MESSAGE, ConversationState.AWAITING_LLM_RESPONSE,
          ConversationReasons.MODEL_REQUESTED)) {
        requestModel(t);
      }
    });
    return t.result.minimalCompletionStage();
  }

  /** See {@link Agent#runCommand(CallRequest, CommandFollowUp)}: {@code req} is scheduled, {@code asked} answered. */
  CompletionStage<TurnResult> command(CallRequest req, ToolCallRequest asked, CommandFollowUp followUp) {
    Turn t = new Turn(followUp == CommandFollowUp.RESULT_ONLY);
    Turn superseded;
    synchronized (lock) {
      TransitionResult<ConversationSnapshot> r = conversation.startTurn(USER_COMMAND);
      if (!r.won()) {
        return TurnEnds.refused(r.snapshot());
      }
      superseded = ends.replaceWith(t);
      t.open(List.of(asked));
      t.scheduledIndex[0] = 0;
      if (followUp != CommandFollowUp.RESULT_ONLY) {
        messages.add(new AssistantMessage("", List.of(asked)));
      }
    }
    ends.completeSuperseded(superseded);
    BatchEnd end = followUp == CommandFollowUp.ASK_MODEL ? BatchEnd.COMMAND_ASKS_MODEL : BatchEnd.COMMAND;
    guarded(t, () -> {
      Batch batch = agent.runtime.schedule(conversation.id(), List.of(req));
      if (ends.attach(t, batch)) {
        whenDone(t, batch, end, null);
      }
    });
    return t.result.minimalCompletionStage();
  }

  // --- awaiting_llm_response: the model request -------------------------------------------------------------------

  /** Sends the model request: its deltas go to {@link StreamedCalls} (and the agent's listener), its end here. */
  void requestModel(Turn t) {
    ModelRequest request;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      request = new ModelRequest(messages, agent.runtime.registry().modelDefinitions(), agent.instructions,
          agent.options);
      t.stream = null; // the previous response's calls are in t.batch
    }
    Consumer<? super ModelDelta> deltaListener = agent.deltaListener;
    Consumer<ModelDelta> listener = d -> {
      guarded(t, () -> streams.onDelta(t, d));
      if (deltaListener != null) {
        deltaListener.accept(d);
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
    synchronized (lock) {
      live = ends.live(t);
      if (live) {
        t.modelRequest = stage;
      }
    }
    if (!live) { // the turn ended while the request was being sent: it is not wanted
      ModelClients.cancel(stage);
      return;
    }
    CompletionStage<ModelResponse> sent = stage;
    stage.whenComplete((response, e) -> guarded(t, () -> {
      synchronized (lock) {
        if (t.modelRequest == sent) {
          t.modelRequest = null;
        }
      }
      if (e != null) {
        streams.dropStream(t, "the model's response failed before it was complete");
        onModelError(t, ModelException.from(e));
      } else if (response == null) {
        streams.dropStream(t, "the model's response failed before it was complete");
        onModelError(t, ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
            "the model client returned no response"));
      } else {
        onResponse(t, response);
      }
    }));
  }

  /** The request failed: the turn stops or fails, or {@code transient_failure} retries it after a backoff. */
  void onModelError(Turn t, ModelException e) {
    if (e.mustNotContinue()) {
      ends.finish(t, TurnResult.Ending.MODEL_SWITCHED, "The model cannot continue this turn on its own: "
          + e.getMessage() + " Send a message to go on.",
          () -> conversation.stopTurn(ConversationReasons.MODEL_SWITCHED));
      return;
    }
    if (!e.isTransient()) {
      String error = "The model request failed: " + e.getMessage();
      ends.finish(t, TurnResult.Ending.FAILED, error, () -> conversation.fail(ConversationState.AWAITING_LLM_RESPONSE,
          error));
      return;
    }
    TransitionResult<ConversationSnapshot> r;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      r = conversation.transientFailure(ConversationState.AWAITING_LLM_RESPONSE, e.getMessage());
    }
    if (!r.won()) {
      ends.stoppedOutside(t);
      return;
    }
    int retryCount = r.snapshot().retryCount();
    Optional<Duration> delay = TurnGuards.modelRetryDelay(agent.limits, e, retryCount, agent.random.getAsDouble());
    if (delay.isEmpty()) {
      String error = "The model request failed " + retryCount + " times in a row; the last error: " + e.getMessage();
      ends.finish(t, TurnResult.Ending.FAILED, error, () -> conversation.fail(ConversationState.TRANSIENT_FAILURE,
          error));
      return;
    }
    Agent.log.debug("conversation {}: model request failed transiently ({}), retry {} in {}", conversation.id(),
        e.getMessage(), retryCount, delay.get());
    Executor later = CompletableFuture.delayedExecutor(delay.get().toNanos(), TimeUnit.NANOSECONDS);
    later.execute(() -> guarded(t, () -> {
      if (step(t, ConversationState.TRANSIENT_FAILURE, ConversationState.AWAITING_LLM_RESPONSE,
          ConversationReasons.RETRYING)) {
        requestModel(t);
      }
    }));
  }

  // --- processing_llm_response ------------------------------------------------------------------------------------

  /**
   * The response is complete: appended; a text answer ends the turn; a loop stops it; a response whose every call
   * was refused goes to {@code handling_tool_error}; else the tool phase begins.
   */
  void onResponse(Turn t, ModelResponse response) {
    List<ToolCallRequest> calls = response.toolCalls();
    StreamedCalls.Streamed st;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      st = t.stream;
    }
    if (!StreamedCalls.streamedAsResponse(st, calls)) {
      streams.dropStream(t, "the model's streamed tool calls differ from its response");
      onModelError(t, ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
          "the model client streamed other tool calls than its response holds"));
      return;
    }
    streams.takeUnstreamed(t, st, calls);
    boolean won;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      st = t.stream;
      if (st != null) {
        st.responded = true;
      }
      won = conversation.transition(ConversationState.AWAITING_LLM_RESPONSE, ConversationState.PROCESSING_LLM_RESPONSE,
          ConversationReasons.MODEL_RESPONDED).won();
      if (won) {
        messages.add(response.toMessage());
        t.usage = t.usage.plus(response.usage());
        t.open(calls);
        for (int i = 0; i < calls.size(); i++) {
          t.scheduledIndex[i] = st.announced.get(i).batchIndex;
          t.refusals[i] = st.loop == null ? st.announced.get(i).refusal
              : i == st.loopIndex ? st.loop.message() : LOOP_NOT_RUN;
        }
      }
    }
    if (!won) {
      ends.stoppedOutside(t);
      return;
    }
    if (!response.hasToolCalls()) {
      ends.finish(t, TurnResult.Ending.ANSWERED, response.text(),
          () -> conversation.transition(ConversationState.PROCESSING_LLM_RESPONSE, ConversationState.IDLE,
              ConversationReasons.FINAL_ANSWER));
      return;
    }
    Batch batch = st.batch.seal();
    if (!ends.attach(t, batch)) {
      return;
    }
    if (st.loop != null) {
      ends.finish(t, TurnResult.Ending.LOOP_DETECTED, st.loop.message(),
          () -> conversation.stopTurn(ConversationReasons.LOOP_DETECTED));
      return;
    }
    boolean noneCanRun = true;
    for (StreamedCalls.Announced a : st.announced) {
      noneCanRun &= a.refusal != null || StreamedCalls.invalid(a.call);
    }
    synchronized (lock) {
      st.forgetCalls(); // the turn holds the calls from here on
    }
    if (noneCanRun) { // seed 03: processing_llm_response -> handling_tool_error (invalid tool calls)
      st.hold.complete(null);
      whenDone(t, batch, BatchEnd.ALL_REFUSED, null);
      return;
    }
    toolPhase(t, st, batch);
  }

  // --- awaiting_tool_approval, executing_tools --------------------------------------------------------------------

  /**
   * The tool phase of a response whose calls are validated and being authorized: {@code executing_tools} at once
   * when no call waits for a decision and one can run, else {@code awaiting_tool_approval} until none waits (and
   * straight on to {@code generating_response} when every call was denied at once, by a rule or read-only mode). The
   * calls' tools start only after {@code executing_tools} has been published (the batch is held until then).
   */
  void toolPhase(Turn t, StreamedCalls.Streamed st, Batch batch) {
    CompletableFuture<Void> authorized = st.batch.whenAuthorized().toCompletableFuture();
    boolean waiting;
    boolean noneRuns;
    boolean won;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      waiting = !authorized.isDone();
      // decided at once and nothing left to run: a policy rule or read-only mode denied every call (they went
      // through permission_pending), so the conversation takes the denial edge, never executing_tools
      noneRuns = !waiting && BatchEnd.noneRuns(batch);
      won = waiting || noneRuns
          ? conversation.transition(ConversationState.PROCESSING_LLM_RESPONSE, ConversationState.AWAITING_TOOL_APPROVAL,
              ConversationReasons.APPROVAL_REQUIRED).won()
          : conversation.transition(ConversationState.PROCESSING_LLM_RESPONSE, ConversationState.EXECUTING_TOOLS,
              ConversationReasons.TOOLS_STARTED).won();
    }
    if (!won) {
      ends.stoppedOutside(t);
    } else if (noneRuns) { // seed 03: awaiting_tool_approval -> generating_response (every call denied)
      st.hold.complete(null);
      whenDone(t, batch, BatchEnd.ALL_DENIED, null);
    } else if (!waiting) {
      runTools(t, st, batch);
    } else if (!agent.suspend || !agent.suspensions.suspend(t, st, batch)) {
      afterApproval(t, st, batch);
    }
  }

  /**
   * In awaiting_tool_approval: once no call of the batch waits for a decision, the denials go to the model or the
   * tools run. Registers a callback; holds no thread.
   */
  void afterApproval(Turn t, StreamedCalls.Streamed st, Batch batch) {
    st.batch.whenAuthorized().whenComplete((x, e) -> guarded(t, () -> onAuthorized(t, st, batch)));
  }

  /** Where the batch's authorization lands: no call waits for a decision any more. */
  private void onAuthorized(Turn t, StreamedCalls.Streamed st, Batch batch) {
    if (BatchEnd.noneRuns(batch)) { // seed 03: awaiting_tool_approval -> generating_response (every call denied)
      st.hold.complete(null);
      whenDone(t, batch, BatchEnd.ALL_DENIED, null);
    } else if (step(t, ConversationState.AWAITING_TOOL_APPROVAL, ConversationState.EXECUTING_TOOLS,
        ConversationReasons.TOOLS_STARTED)) {
      runTools(t, st, batch);
    }
  }

  /**
   * In executing_tools (published): lets the batch's tools start, and waits for every call to end. While a call of
   * the batch waits out a retry backoff the conversation shows transient_failure ({@link ToolRetryWatch}).
   */
  private void runTools(Turn t, StreamedCalls.Streamed st, Batch batch) {
    ToolRetryWatch retries = st.retries;
    retries.start();
    st.hold.complete(null);
    whenDone(t, batch, BatchEnd.RAN, retries);
  }

  /**
   * A restored turn in awaiting_tool_approval: once none of {@code calls} waits for a decision, the denials go to the
   * model or the approved calls' results are awaited in executing_tools. Registers callbacks; holds no thread.
   */
  void afterDecided(Turn t, List<ToolCall> calls) {
    agent.resumes.whenDecided(calls).whenComplete((x, e) -> guarded(t, () -> {
      if (calls.stream().allMatch(ToolCall::isTerminal) && calls.stream().noneMatch(c -> c.snapshot().toolStarted())) {
        onBatchDone(t, BatchEnd.ALL_DENIED, List.of());
      } else if (step(t, ConversationState.AWAITING_TOOL_APPROVAL, ConversationState.EXECUTING_TOOLS,
          ConversationReasons.TOOLS_STARTED)) {
        afterTools(t, calls);
      }
    }));
  }

  /** A restored turn in executing_tools: once every restored call has ended, the tool phase ends as a batch's would. */
  void afterTools(Turn t, List<ToolCall> calls) {
    CompletableFuture<?>[] terminal = calls.stream().map(c -> c.whenTerminal().toCompletableFuture())
        .toArray(CompletableFuture[]::new);
    CompletableFuture.allOf(terminal).whenComplete((x, e) -> guarded(t, () -> onBatchDone(t, BatchEnd.RAN,
        calls.stream().map(c -> new CallResult(c.snapshot())).toList())));
  }

  // --- the batch's end: processing_tool_results, handling_tool_error ----------------------------------------------

  /** Goes on with {@code end} once every call of {@code batch} has ended (and its terminal event is out). */
  private void whenDone(Turn t, Batch batch, BatchEnd end, ToolRetryWatch retries) {
    batch.whenDone().whenComplete((results, e) -> {
      if (retries != null) {
        retries.stop();
      }
      guarded(t, () -> onBatchDone(t, end, results));
    });
  }

  /** Where every batch of the turn lands when it has ended: the step {@code end} says. */
  void onBatchDone(Turn t, BatchEnd end, List<CallResult> results) {
    switch (end) {
      case COMMAND -> ends.finish(t, TurnResult.Ending.COMMAND, results.get(0).messageForModel(),
          () -> conversation.stopTurn(COMMAND_DONE));
      case COMMAND_ASKS_MODEL -> {
        synchronized (lock) {
          if (!ends.live(t)) {
            return;
          }
          t.closeOut(messages, agent.answeredIds);
        }
        if (step(t, ConversationState.PROCESSING_USER_MESSAGE, ConversationState.AWAITING_LLM_RESPONSE,
            ConversationReasons.MODEL_REQUESTED)) {
          requestModel(t);
        }
      }
      case ALL_REFUSED -> allRefused(t);
      case ALL_DENIED -> allDenied(t);
      case RAN -> toolsDone(t, results);
      default -> throw new AssertionError(end);
    }
  }

  /**
   * No call of the response can run (each was refused by a guard or failed validation): the errors go to the model
   * through handling_tool_error, with the first call's tool and error as the state's detail.
   */
  private void allRefused(Turn t) {
    boolean won;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      won = conversation.toolError(ConversationState.PROCESSING_LLM_RESPONSE, t.open.get(0).name(), t.firstError())
          .won();
      if (won) {
        t.closeOut(messages, agent.answeredIds);
      }
    }
    if (!won) {
      ends.stoppedOutside(t);
    } else if (step(t, ConversationState.HANDLING_TOOL_ERROR, ConversationState.GENERATING_RESPONSE,
        ConversationReasons.CONTINUING)) {
      continueOrStop(t);
    }
  }

  /**
   * The approval wait ended with no call approved (a person denied them, or they timed out or were cancelled), and
   * every call's terminal event is out: the denials go to the model, awaiting_tool_approval -> generating_response.
   */
  private void allDenied(Turn t) {
    boolean won;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      won = conversation.transition(ConversationState.AWAITING_TOOL_APPROVAL, ConversationState.GENERATING_RESPONSE,
          ConversationReasons.TOOLS_DENIED).won();
      if (won) {
        t.closeOut(messages, agent.answeredIds);
      }
    }
    if (!won) {
      ends.stoppedOutside(t);
    } else {
      continueOrStop(t);
    }
  }

  /** Every call of the batch has ended and its terminal event is out: processing_tool_results. */
  private void toolsDone(Turn t, List<CallResult> results) {
    if (agent.toolFailures == ToolFailurePolicy.FAIL_TURN) {
      CallResult failed = BatchEnd.firstToolFailure(results);
      if (failed != null) { // seed 03: executing_tools -> failed (an unrecoverable tool error)
        String error = "The turn failed: tool call " + failed.callId() + " (" + failed.toolName() + ") failed: "
            + failed.messageForModel();
        ends.finish(t, TurnResult.Ending.FAILED, error,
            () -> conversation.fail(ConversationState.EXECUTING_TOOLS, error));
        return;
      }
    }
    CallResult invalid = BatchEnd.onlyInvalidArguments(results);
    boolean won;
    synchronized (lock) {
      if (!ends.live(t)) {
        return;
      }
      won = invalid != null
          ? conversation.toolError(ConversationState.EXECUTING_TOOLS, invalid.toolName(), invalid.messageForModel())
              .won()
          : conversation.transition(ConversationState.EXECUTING_TOOLS, ConversationState.PROCESSING_TOOL_RESULTS,
              ConversationReasons.TOOLS_DONE).won();
      if (won) {
        t.closeOut(messages, agent.answeredIds);
      }
    }
    if (!won) {
      ends.stoppedOutside(t);
      return;
    }
    if (invalid != null) { // seed 03's invalid tool calls, found by their tools: the errors go to the model
      if (step(t, ConversationState.HANDLING_TOOL_ERROR, ConversationState.GENERATING_RESPONSE,
          ConversationReasons.CONTINUING)) {
        continueOrStop(t);
      }
      return;
    }
    for (CallResult r : results) {
      Optional<Tool> tool = agent.runtime.registry().find(r.toolName());
      if (tool.isPresent() && tool.get().definition().returnDirect() && !r.isError()) {
        ends.finish(t, TurnResult.Ending.RETURN_DIRECT, r.messageForModel(),
            () -> conversation.stopTurn(ConversationReasons.RETURN_DIRECT));
        return;
      }
    }
    if (step(t, ConversationState.PROCESSING_TOOL_RESULTS, ConversationState.GENERATING_RESPONSE,
        ConversationReasons.CONTINUING)) {
      continueOrStop(t);
    }
  }

  // --- generating_response ----------------------------------------------------------------------------------------

  /** In generating_response: the next model request, unless the round-trip limit stops the turn. */
  void continueOrStop(Turn t) {
    GuardDecision d = TurnGuards.checkRoundTrip(agent.limits, conversation.snapshot().roundTrips());
    if (!d.allowed()) {
      ends.finish(t, TurnResult.Ending.ROUND_TRIP_LIMIT, d.message(),
          () -> conversation.stopTurn(ConversationReasons.ROUND_TRIP_LIMIT));
    } else if (step(t, ConversationState.GENERATING_RESPONSE, ConversationState.AWAITING_LLM_RESPONSE,
        ConversationReasons.MODEL_REQUESTED)) {
      requestModel(t);
    }
  }

  // --- every step ---------------------------------------------------------------------------------------------------

  /** Runs one step of {@code t}; whatever it throws ends the turn FAILED: a turn always ends with a TurnResult. */
  void guarded(Turn t, Runnable step) {
    try {
      step.run();
    } catch (RuntimeException | Error e) {
      Agent.log.error("conversation {}: the turn loop failed", conversation.id(), e);
      String error = "The turn failed: the turn loop hit an internal error (" + e + ").";
      ends.finish(t, TurnResult.Ending.FAILED, error, () -> {
        ConversationState s = conversation.state();
        if (s.canTransitionTo(ConversationState.FAILED)) {
          conversation.fail(s, error);
        } else {
          conversation.stopTurn(INTERNAL_ERROR);
        }
      });
    }
  }

  /**
   * One change of the conversation by turn {@code t}: made only while {@code t} is live. A change lost although the
   * turn is live means something outside the agent moved the conversation: the turn ends.
   */
  boolean step(Turn t, ConversationState from, ConversationState to, Reason reason) {
    synchronized (lock) {
      if (!ends.live(t)) {
        return false;
      }
      if (conversation.transition(from, to, reason).won()) {
        return true;
      }
    }
    ends.stoppedOutside(t);
    return false;
  }
}
