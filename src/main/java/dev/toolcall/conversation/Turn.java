package dev.toolcall.conversation;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The state of one {@link Agent} turn: its stage, and what the loop knows about it. {@link TurnSteps} moves it from
 * step to step; the few methods here only read and write the turn's own fields. Fields marked guarded are read and
 * written under the agent's lock; the others only by the loop's current step (one step at a time).
 */
final class Turn {
  final boolean command;
  final CompletableFuture<TurnResult> result = new CompletableFuture<>();
  /** Every tool call request of the turn, refused ones included; only the loop's current step touches it. */
  final List<ToolCallRequest> requested = new ArrayList<>();
  final List<ToolResultMessage> toolResults = new ArrayList<>(); // guarded
  final List<CallResult> callResults = new ArrayList<>(); // guarded
  boolean ended; // guarded
  /** The tokens of the turn's model responses so far. */
  TokenUsage usage = TokenUsage.NONE; // guarded
  TurnResult superseded; // guarded
  Batch batch; // guarded
  /** The model request in flight, cancelled when the turn ends; null between requests. */
  CompletionStage<ModelResponse> modelRequest; // guarded
  /** The calls of the response being streamed (or, after it, of the latest response); null before any. */
  StreamedCalls.Streamed stream; // guarded
  /** The calls of the latest response still without a result message, with what is known of each. */
  List<ToolCallRequest> open = List.of(); // guarded
  String[] refusals = new String[0]; // guarded
  int[] scheduledIndex = new int[0]; // guarded
  /** A resumed turn: the open calls' results known when the agent's snapshot was taken, by call id. */
  Map<String, ToolResultMessage> given = Map.of(); // guarded
  /** A resumed turn: the open calls restored into the runtime, by call id. */
  Map<String, ToolCall> resumed = Map.of(); // guarded

  Turn(boolean command) {
    this.command = command;
  }

  /**
   * A new turn that goes on where this suspended one stopped ({@link Agent#resumeWith}): the same calls, results so
   * far, usage and batch, a new stage. Under the agent's lock.
   */
  Turn continued() {
    Turn n = new Turn(command);
    n.requested.addAll(requested);
    n.toolResults.addAll(toolResults);
    n.callResults.addAll(callResults);
    n.usage = usage;
    n.batch = batch;
    n.stream = stream;
    n.open = open;
    n.refusals = refusals;
    n.scheduledIndex = scheduledIndex;
    n.given = given;
    n.resumed = resumed;
    return n;
  }

  void open(List<ToolCallRequest> calls) {
    open = List.copyOf(calls);
    refusals = new String[calls.size()];
    scheduledIndex = new int[calls.size()];
    Arrays.fill(scheduledIndex, -1);
    if (calls.isEmpty()) {
      batch = null;
    }
  }

  /** The call that runs open call {@code i}: scheduled in the batch, or restored after a restart; null if none. */
  ToolCall callOf(int i) {
    int j = scheduledIndex[i];
    return j >= 0 && batch != null ? batch.calls().get(j) : resumed.get(open.get(i).id());
  }

  /** The error of the response's first call: its refusal, or the message of its failed validation. Under lock. */
  String firstError() {
    if (refusals[0] != null) {
      return refusals[0];
    }
    int j = scheduledIndex[0];
    if (j >= 0 && batch != null) {
      ToolCallSnapshot s = batch.calls().get(j).snapshot();
      if (s.outcome() != null) {
        return s.outcome().messageForModel();
      }
    }
    return "The tool call could not be run.";
  }

  /**
   * Cancels what is left of the turn's tool calls (it ended): the batch's, last first; the streamed response's, whose
   * held tools are let go so their pipelines finish; a resumed turn's restored calls. Under lock.
   */
  void cancelCalls(String why) {
    if (batch != null) {
      cancelAll(batch, why);
    }
    StreamedCalls.Streamed st = stream;
    if (st != null) {
      st.batch.cancelAll(why);
      st.hold.complete(null); // nothing left to start: lets the cancelled calls' pipelines finish
    }
    for (ToolCall c : resumed.values()) {
      if (!c.isTerminal()) {
        c.cancel(why);
      }
    }
  }

  /**
   * Ends this turn once: {@code end} (the conversation's change), then {@link #cancelCalls}, then
   * {@link #closeOut}; null when it had already ended. Under lock.
   */
  TurnResult end(TurnResult.Ending ending, String text, Runnable end, List<Message> messages,
      Set<String> answeredIds) {
    if (ended) {
      return null;
    }
    ended = true;
    end.run();
    cancelCalls(ending == TurnResult.Ending.ABORTED ? "the user aborted the turn" : "the turn ended");
    closeOut(messages, answeredIds);
    return new TurnResult(ending, text, toolResults, callResults, usage);
  }

  /**
   * {@link Batch#cancelAll}, last call first: cancelling in request order would end a call before the later ones
   * are cancelled, and under {@link dev.toolcall.execution.ExecutionOrder#SEQUENTIAL} that opens the next call's
   * gate, which could then start its tool before it is cancelled.
   */
  static void cancelAll(Batch batch, String reason) {
    List<ToolCall> calls = batch.calls();
    for (int i = calls.size() - 1; i >= 0; i--) {
      calls.get(i).cancel(reason);
    }
  }

  /**
   * Adds one result message per call of the latest response that has none yet, in request order: the guard's
   * refusal, the result known when a resumed turn's snapshot was taken, the call's terminal outcome, or a cancellation
   * for a call that never ran. Each goes to the turn's results and, unless the turn is a command's, to
   * {@code messages}; its id to {@code answeredIds}. Under lock.
   */
  void closeOut(List<Message> messages, Set<String> answeredIds) {
    for (int i = 0; i < open.size(); i++) {
      ToolCallRequest c = open.get(i);
      String content;
      boolean isError = true;
      CallResult callResult = null;
      ToolCall call = callOf(i);
      if (call != null && call.isTerminal()) {
        callResult = new CallResult(call.snapshot());
      }
      ToolResultMessage known = given.get(c.id());
      if (refusals[i] != null) {
        content = refusals[i];
      } else if (known != null) {
        content = known.content();
        isError = known.isError();
      } else if (callResult != null) {
        content = callResult.messageForModel();
        isError = callResult.isError();
      } else {
        content = "Cancelled: the turn ended before this call ran.";
      }
      answeredIds.add(c.id());
      ToolResultMessage m = new ToolResultMessage(c.id(), c.name(), content, isError);
      toolResults.add(m);
      if (callResult != null) {
        callResults.add(callResult);
      }
      if (!command) {
        messages.add(m);
      }
    }
    open(List.of());
  }
}
