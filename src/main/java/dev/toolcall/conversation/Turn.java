package dev.toolcall.conversation;

import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The state of one {@link Agent} turn: its stage, and what the loop knows about it. Fields marked guarded are read and
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
  boolean lostStep; // the loop's current step only
  TurnResult superseded; // guarded
  Batch batch; // guarded
  /** The model request in flight, cancelled when the turn ends; null between requests. */
  java.util.concurrent.CompletionStage<ModelResponse> modelRequest; // guarded
  /** The calls of the response being streamed (or, after it, of the latest response); null before any. */
  StreamedCalls.Streamed stream; // guarded
  /** The calls of the latest response still without a result message, with what is known of each. */
  List<ToolCallRequest> open = List.of(); // guarded
  String[] refusals = new String[0]; // guarded
  int[] scheduledIndex = new int[0]; // guarded
  /** A resumed turn: the open calls' results known when the agent's snapshot was taken, by call id. */
  java.util.Map<String, ToolResultMessage> given = java.util.Map.of(); // guarded
  /** A resumed turn: the open calls restored into the runtime, by call id. */
  java.util.Map<String, dev.toolcall.ToolCall> resumed = java.util.Map.of(); // guarded

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
}
