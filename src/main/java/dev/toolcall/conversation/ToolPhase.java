package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.ConversationState;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallResult;
import dev.toolcall.tool.Tool;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The tool phase of one {@link Agent} turn: from a response's validated calls to {@code executing_tools} (through
 * {@code awaiting_tool_approval} while a call waits for a decision), the release of the batch's tools, and the end of
 * the batch ({@code processing_tool_results}, or {@code handling_tool_error} when a guard refused every call or no call
 * got a result and one failed because its arguments were wrong). Runs on
 * the threads that complete the batch's stages; every change of the conversation holds the agent's lock.
 */
final class ToolPhase {
  private final Agent agent;

  ToolPhase(Agent agent) {
    this.agent = agent;
  }

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
    synchronized (agent.lock) {
      if (!agent.live(t)) {
        return;
      }
      waiting = !authorized.isDone();
      // decided at once and nothing left to run: a policy rule or read-only mode denied every call (they went
      // through permission_pending), so the conversation takes the denial edge, never executing_tools
      noneRuns = !waiting && noneRuns(batch);
      won = waiting || noneRuns
          ? agent.conversation.transition(ConversationState.PROCESSING_LLM_RESPONSE,
              ConversationState.AWAITING_TOOL_APPROVAL,
              ConversationReasons.APPROVAL_REQUIRED).won()
          : agent.conversation.transition(ConversationState.PROCESSING_LLM_RESPONSE, ConversationState.EXECUTING_TOOLS,
              ConversationReasons.TOOLS_STARTED).won();
    }
    if (!won) {
      agent.stoppedOutside(t);
    } else if (noneRuns) { // seed 03: awaiting_tool_approval -> generating_response (every call denied)
      st.hold.complete(null);
      batch.whenDone().whenComplete((r, f) -> agent.guarded(t, () -> onAllDenied(t)));
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
    st.batch.whenAuthorized().whenComplete((x, e) -> agent.guarded(t, () -> {
      if (noneRuns(batch)) { // seed 03: awaiting_tool_approval -> generating_response (every call denied)
        st.hold.complete(null);
        batch.whenDone().whenComplete((r, f) -> agent.guarded(t, () -> onAllDenied(t)));
      } else if (agent.step(t, ConversationState.AWAITING_TOOL_APPROVAL, ConversationState.EXECUTING_TOOLS,
          ConversationReasons.TOOLS_STARTED)) {
        runTools(t, st, batch);
      }
    }));
  }

  /** The first call that failed in its tool (not in validation, a guard or a permission), or null. */
  private static CallResult firstToolFailure(List<CallResult> results) {
    for (CallResult r : results) {
      if (r.snapshot().outcome() instanceof Outcome.Failed f) {
        switch (f.kind()) {
          case TOOL_ERROR, TIMEOUT, NULL_RESULT, EXECUTOR_REJECTED, OUTCOME_UNKNOWN, INTERNAL_ERROR:
            return r;
          default:
            break;
        }
      }
    }
    return null;
  }

  /**
   * The first call that failed as {@link dev.toolcall.FailureKind#INVALID_ARGUMENTS} when no call of the batch has a
   * result (every call was refused, denied, cancelled or failed, at least one because its arguments were wrong:
   * schema validation or its tool said so); else null.
   */
  private static CallResult onlyInvalidArguments(List<CallResult> results) {
    CallResult first = null;
    for (CallResult r : results) {
      if (r.snapshot().outcome() instanceof Outcome.Completed) {
        return null;
      }
      if (first == null && r.snapshot().outcome() instanceof Outcome.Failed f
          && f.kind() == dev.toolcall.FailureKind.INVALID_ARGUMENTS) {
        first = r;
      }
    }
    return first;
  }

  /** Whether no call of {@code batch} is left to run: each was denied, cancelled, refused or failed validation. */
  private static boolean noneRuns(Batch batch) {
    for (ToolCall c : batch.calls()) {
      if (!c.isTerminal()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The approval wait ended with no call approved (a person denied them, or they timed out or were cancelled), and
   * every call's terminal event is out: the denials go to the model, awaiting_tool_approval -> generating_response.
   */
  void onAllDenied(Turn t) {
    boolean won;
    synchronized (agent.lock) {
      if (!agent.live(t)) {
        return;
      }
      won = agent.conversation.transition(ConversationState.AWAITING_TOOL_APPROVAL,
          ConversationState.GENERATING_RESPONSE, ConversationReasons.TOOLS_DENIED).won();
      if (won) {
        agent.closeOut(t);
      }
    }
    if (!won) {
      agent.stoppedOutside(t);
    } else {
      agent.continueOrStop(t);
    }
  }

  /**
   * In executing_tools (published): lets the batch's tools start, and waits for every call to end. While a call of
   * the batch waits out a retry backoff the conversation shows transient_failure ({@link ToolRetryWatch}).
   */
  void runTools(Turn t, StreamedCalls.Streamed st, Batch batch) {
    ToolRetryWatch retries = st.retries;
    retries.start();
    st.hold.complete(null);
    batch.whenDone().whenComplete((results, e) -> {
      retries.stop();
      agent.guarded(t, () -> onBatchDone(t, results));
    });
  }

  /** The error of the response's first call: its refusal, or the message of its failed validation. Under lock. */
  private static String firstError(Turn t) {
    if (t.refusals[0] != null) {
      return t.refusals[0];
    }
    int j = t.scheduledIndex[0];
    if (j >= 0 && t.batch != null) {
      ToolCallSnapshot s = t.batch.calls().get(j).snapshot();
      if (s.outcome() != null) {
        return s.outcome().messageForModel();
      }
    }
    return "The tool call could not be run.";
  }

  /**
   * No call of the response can run (each was refused by a guard or failed validation): the errors go to the model
   * through handling_tool_error, with the first call's tool and error as the state's detail.
   */
  void onAllRefused(Turn t, List<ToolCallRequest> calls) {
    boolean won;
    synchronized (agent.lock) {
      if (!agent.live(t)) {
        return;
      }
      won = agent.conversation.toolError(ConversationState.PROCESSING_LLM_RESPONSE, calls.get(0).name(),
          firstError(t)).won();
      if (won) {
        agent.closeOut(t);
      }
    }
    if (!won) {
      agent.stoppedOutside(t);
    } else if (agent.step(t, ConversationState.HANDLING_TOOL_ERROR, ConversationState.GENERATING_RESPONSE,
        ConversationReasons.CONTINUING)) {
      agent.continueOrStop(t);
    }
  }

  /** Every call of the batch has ended and its terminal event is out: processing_tool_results. */
  void onBatchDone(Turn t, List<CallResult> results) {
    if (agent.toolFailures == ToolFailurePolicy.FAIL_TURN) {
      CallResult failed = firstToolFailure(results);
      if (failed != null) { // seed 03: executing_tools -> failed (an unrecoverable tool error)
        String error = "The turn failed: tool call " + failed.callId() + " (" + failed.toolName() + ") failed: "
            + failed.messageForModel();
        agent.finish(t, TurnResult.Ending.FAILED, error,
            () -> agent.conversation.fail(ConversationState.EXECUTING_TOOLS, error));
        return;
      }
    }
    CallResult invalid = onlyInvalidArguments(results);
    boolean won;
    synchronized (agent.lock) {
      if (!agent.live(t)) {
        return;
      }
      won = invalid != null
          ? agent.conversation.toolError(ConversationState.EXECUTING_TOOLS, invalid.toolName(),
              invalid.messageForModel()).won()
          : agent.conversation.transition(ConversationState.EXECUTING_TOOLS, ConversationState.PROCESSING_TOOL_RESULTS,
              ConversationReasons.TOOLS_DONE).won();
      if (won) {
        agent.closeOut(t);
      }
    }
    if (!won) {
      agent.stoppedOutside(t);
      return;
    }
    if (invalid != null) { // seed 03's invalid tool calls, found by their tools: the errors go to the model
      if (agent.step(t, ConversationState.HANDLING_TOOL_ERROR, ConversationState.GENERATING_RESPONSE,
          ConversationReasons.CONTINUING)) {
        agent.continueOrStop(t);
      }
      return;
    }
    for (CallResult r : results) {
      Optional<Tool> tool = agent.runtime.registry().find(r.toolName());
      if (tool.isPresent() && tool.get().definition().returnDirect() && !r.isError()) {
        agent.finish(t, TurnResult.Ending.RETURN_DIRECT, r.messageForModel(),
            () -> agent.conversation.stopTurn(ConversationReasons.RETURN_DIRECT));
        return;
      }
    }
    if (agent.step(t, ConversationState.PROCESSING_TOOL_RESULTS, ConversationState.GENERATING_RESPONSE,
        ConversationReasons.CONTINUING)) {
      agent.continueOrStop(t);
    }
  }
}
