package dev.toolcall.conversation;

import dev.toolcall.Outcome;
import dev.toolcall.ToolCall;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallResult;
import java.util.List;

/**
 * How a batch of a turn ended, which says the step {@link TurnSteps#onBatchDone} takes next, and the reading of a
 * batch's calls and results those steps decide on. Pure functions; thread-safe.
 */
enum BatchEnd {
  /** A user command's call ended; the turn ends with its result. */
  COMMAND,
  /** A user command's call ended; the model is asked ({@link CommandFollowUp#ASK_MODEL}). */
  COMMAND_ASKS_MODEL,
  /** Every call of the response was refused or failed validation: {@code handling_tool_error}. */
  ALL_REFUSED,
  /** No call was approved: the denials go to the model. */
  ALL_DENIED,
  /** The tools ran: {@code processing_tool_results}. */
  RAN;

  /** Whether no call of {@code batch} is left to run: each was denied, cancelled, refused or failed validation. */
  static boolean noneRuns(Batch batch) {
    for (ToolCall c : batch.calls()) {
      if (!c.isTerminal()) {
        return false;
      }
    }
    return true;
  }

  /** The first call that failed in its tool (not in validation, a guard or a permission), or null. */
  static CallResult firstToolFailure(List<CallResult> results) {
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
  static CallResult onlyInvalidArguments(List<CallResult> results) {
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
}
