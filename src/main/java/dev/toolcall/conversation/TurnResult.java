package dev.toolcall.conversation;

import dev.toolcall.execution.CallResult;
import java.util.List;
import java.util.Objects;

/**
 * How one turn of an {@link Agent} ended: the text for the user, why it ended, and what its tool calls produced.
 * Immutable.
 *
 * @param ending why the turn ended
 * @param text the text for the user: the model's final answer, a return-direct tool's result, or the message of the
 *     guard, failure or abort that ended the turn (never null)
 * @param toolResults what the model was told about every tool call of the turn, in the order the results were added
 *     to the conversation (refused calls included); an immutable copy
 * @param calls the terminal result of every tool call of the turn's responses, in order (a call a guard refused
 *     included: it failed without running); an immutable copy
 * @param usage the tokens of every model response of the turn together, as the model client reported them
 */
public record TurnResult(Ending ending, String text, List<ToolResultMessage> toolResults, List<CallResult> calls,
    TokenUsage usage) {

  /** A result without token usage ({@link TokenUsage#NONE}). */
  public TurnResult(Ending ending, String text, List<ToolResultMessage> toolResults, List<CallResult> calls) {
    this(ending, text, toolResults, calls, TokenUsage.NONE);
  }

  /** Why a turn ended. */
  public enum Ending {
    /** The model gave a final text answer; the conversation is IDLE. */
    ANSWERED,
    /** The user aborted the turn; every tool call of the turn is terminal; the conversation is IDLE. */
    ABORTED,
    /** The turn reached {@link TurnLimits#maxRoundTrips()} model requests; the conversation is IDLE. */
    ROUND_TRIP_LIMIT,
    /** The same tool call repeated {@link TurnLimits#loopThreshold()} times in a row; the conversation is IDLE. */
    LOOP_DETECTED,
    /** A return-direct tool's result is the answer; the conversation is IDLE. */
    RETURN_DIRECT,
    /** The model said the turn must not continue on its own (quota, fallback model); the conversation is IDLE. */
    MODEL_SWITCHED,
    /** A user command ran its tool; the model was not asked; the conversation is IDLE. */
    COMMAND,
    /** The turn failed (a fatal model error, or transient ones past the retry limit); the conversation is FAILED. */
    FAILED
  }

  /** Checks the parts and copies the lists. */
  public TurnResult {
    Objects.requireNonNull(ending, "ending");
    Objects.requireNonNull(text, "text");
    toolResults = List.copyOf(Objects.requireNonNull(toolResults, "toolResults"));
    calls = List.copyOf(Objects.requireNonNull(calls, "calls"));
    Objects.requireNonNull(usage, "usage");
  }
}
