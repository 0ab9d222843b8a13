package dev.toolcall;

import java.util.Objects;

/**
 * The payload that three states of the source document carry: the failing tool and its error in
 * {@link ConversationState#HANDLING_TOOL_ERROR}, the error and retry count in
 * {@link ConversationState#TRANSIENT_FAILURE}, the error in {@link ConversationState#FAILED}. A
 * {@link ConversationSnapshot} has a detail exactly when its state is one of these, and then of that state.
 *
 * <p>Immutable plain values, so a snapshot can be stored and restored.
 */
public sealed interface StateDetail
    permits StateDetail.ToolError, StateDetail.TransientFailure, StateDetail.Failure {

  /** The state this detail belongs to. */
  ConversationState state();

  /** The error, as it will be shown (to the model or the user). */
  String error();

  /**
   * The response's tool calls were invalid (for example all named unknown tools); the error goes back to the model.
   *
   * @param toolName the (first) failing tool's name, as the model sent it
   * @param error what was wrong, written for the model
   */
  record ToolError(String toolName, String error) implements StateDetail {
    /** Checks the parts. */
    public ToolError {
      Objects.requireNonNull(toolName, "toolName");
      Objects.requireNonNull(error, "error");
    }

    @Override
    public ConversationState state() {
      return ConversationState.HANDLING_TOOL_ERROR;
    }
  }

  /**
   * A recoverable error (rate limit, network); a retry follows after a backoff.
   *
   * @param error what failed
   * @param retryCount the how-manieth consecutive transient failure of the step being retried: 1 for the first
   */
  record TransientFailure(String error, int retryCount) implements StateDetail {
    /** Checks the parts. */
    public TransientFailure {
      Objects.requireNonNull(error, "error");
      if (retryCount < 1) {
        throw new IllegalArgumentException("retryCount must be >= 1, was " + retryCount);
      }
    }

    @Override
    public ConversationState state() {
      return ConversationState.TRANSIENT_FAILURE;
    }
  }

  /**
   * The turn failed; the conversation waits for a new user message.
   *
   * @param error what failed, for the user
   */
  record Failure(String error) implements StateDetail {
    /** Checks the parts. */
    public Failure {
      Objects.requireNonNull(error, "error");
    }

    @Override
    public ConversationState state() {
      return ConversationState.FAILED;
    }
  }
}
