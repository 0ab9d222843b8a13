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
 * @param interrupts for {@link Ending#INTERRUPTED}: the turn's open permission requests, in the order of its calls;
 *     empty otherwise; an immutable copy
 * @param decisions for a result of {@link Agent#resumeWith}: what happened to each decision given, in order; empty
 *     otherwise; an immutable copy
 */
public record TurnResult(Ending ending, String text, List<ToolResultMessage> toolResults, List<CallResult> calls,
    TokenUsage usage, List<Interrupt> interrupts, List<DecisionReport> decisions) {

  /** A result without interrupts or decisions. */
  public TurnResult(Ending ending, String text, List<ToolResultMessage> toolResults, List<CallResult> calls,
      TokenUsage usage) {
    this(ending, text, toolResults, calls, usage, List.of(), List.of());
  }

  /** A result without token usage ({@link TokenUsage#NONE}), interrupts or decisions. */
  public TurnResult(Ending ending, String text, List<ToolResultMessage> toolResults, List<CallResult> calls) {
    this(ending, text, toolResults, calls, TokenUsage.NONE);
  }

  /** This result with {@code decisions} as its decision reports. */
  TurnResult withDecisions(List<DecisionReport> reports) {
    return new TurnResult(ending, text, toolResults, calls, usage, interrupts, reports);
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
    FAILED,
    /**
     * The turn waits for a person and the agent suspends on approval ({@link Agent.Builder#suspendOnApproval}): it
     * ended now, {@link #interrupts()} lists the open requests, the conversation stays
     * {@link dev.toolcall.ConversationState#AWAITING_TOOL_APPROVAL}, and {@link Agent#resumeWith} goes on with it.
     */
    INTERRUPTED,
    /**
     * {@link Agent#resumeWith} found no interrupted turn to go on with (none was interrupted, or another call resumed
     * it first); the conversation was not touched; {@link #decisions()} says what happened to each decision.
     */
    NOT_INTERRUPTED
  }

  /** Checks the parts and copies the lists. */
  public TurnResult {
    Objects.requireNonNull(ending, "ending");
    Objects.requireNonNull(text, "text");
    toolResults = List.copyOf(Objects.requireNonNull(toolResults, "toolResults"));
    calls = List.copyOf(Objects.requireNonNull(calls, "calls"));
    Objects.requireNonNull(usage, "usage");
    interrupts = List.copyOf(Objects.requireNonNull(interrupts, "interrupts"));
    decisions = List.copyOf(Objects.requireNonNull(decisions, "decisions"));
  }
}
