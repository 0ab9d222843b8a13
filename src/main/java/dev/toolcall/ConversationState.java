package dev.toolcall;

import dev.toolcall.fsm.TransitionTable;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The eleven states of a conversation, with snake_case wire names after the source document
 * ({@code 03-conversation-state-machine-plan.md}), and the legal edges between them, declared once in {@link #TABLE}
 * on the same generic mechanism as {@link dev.toolcall.ToolCallState}. Everything else ({@link #successors()},
 * {@link #isBusy()}, the diagram in {@code docs/conversation.md}, the property tests) derives from the table.
 *
 * <p>The table holds the source's 19 edges and ten more that a real runtime needs; each added edge is labelled
 * with its reason and listed in {@code docs/conversation.md}:
 * <ul>
 *   <li><b>The turn stops</b> ({@code busy -> IDLE}, eight edges): from every busy state that has no such edge in
 *       the source. A user abort (every tool call of the turn is cancelled), or a guard that ends the turn (the
 *       round-trip limit, loop detection, a return-direct tool's result, a model error that says the runtime must
 *       not continue on its own). The source's {@code PROCESSING_LLM_RESPONSE -> IDLE} (a final text answer) serves
 *       the same purpose from that state.</li>
 *   <li><b>A model error that is not transient</b> ({@code AWAITING_LLM_RESPONSE -> FAILED}): an invalid request or
 *       a refused credential will not heal by retrying; the source only knows a failure through retries.</li>
 *   <li><b>A new message after a failure</b> ({@code FAILED -> PROCESSING_USER_MESSAGE}): the conversation is not
 *       dead; the user may write again, and that starts a new turn.</li>
 * </ul>
 * No state is terminal: FAILED waits for the user.
 */
public enum ConversationState {
  /** Nothing happening; waiting for the user: {@code idle}. */
  IDLE("idle"),
  /** A user message (and its at- or slash-commands) is being prepared: {@code processing_user_message}. */
  PROCESSING_USER_MESSAGE("processing_user_message"),
  /** A request is with the model; streamed deltas arrive here: {@code awaiting_llm_response}. */
  AWAITING_LLM_RESPONSE("awaiting_llm_response"),
  /** The model's complete response is being looked at: {@code processing_llm_response}. */
  PROCESSING_LLM_RESPONSE("processing_llm_response"),
  /** Tool calls of the response wait for a person's decision: {@code awaiting_tool_approval}. */
  AWAITING_TOOL_APPROVAL("awaiting_tool_approval"),
  /** Tool calls are running: {@code executing_tools}. */
  EXECUTING_TOOLS("executing_tools"),
  /** Tool results are being added to the conversation: {@code processing_tool_results}. */
  PROCESSING_TOOL_RESULTS("processing_tool_results"),
  /** The response's tool calls were invalid; the error goes to the model (with the tool and error): {@code handling_tool_error}. */
  HANDLING_TOOL_ERROR("handling_tool_error"),
  /** The next request to the model is being prepared: {@code generating_response}. */
  GENERATING_RESPONSE("generating_response"),
  /** A recoverable error; a retry follows after a backoff (with the error and retry count): {@code transient_failure}. */
  TRANSIENT_FAILURE("transient_failure"),
  /** The turn failed (with its error); a new user message starts again: {@code failed}. */
  FAILED("failed");

  /** The edges: the source's 19, then the 11 a runtime needs, each labelled with its reason. */
  public static final TransitionTable<ConversationState> TABLE =
      TransitionTable.builder(ConversationState.class, IDLE)
          // the source document's 19 edges
          .edge(IDLE, PROCESSING_USER_MESSAGE, "user sends message")
          .edge(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, "send to model")
          .edge(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, "model response complete")
          .edge(AWAITING_LLM_RESPONSE, TRANSIENT_FAILURE, "recoverable model error")
          .edge(PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL, "tool calls need approval")
          .edge(PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, "tool calls auto-approved")
          .edge(PROCESSING_LLM_RESPONSE, HANDLING_TOOL_ERROR, "invalid tool calls")
          .edge(PROCESSING_LLM_RESPONSE, IDLE, "final text answer")
          .edge(AWAITING_TOOL_APPROVAL, EXECUTING_TOOLS, "user approves")
          .edge(AWAITING_TOOL_APPROVAL, GENERATING_RESPONSE, "user denies")
          .edge(EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS, "tools done")
          .edge(EXECUTING_TOOLS, TRANSIENT_FAILURE, "recoverable tool error")
          .edge(EXECUTING_TOOLS, FAILED, "unrecoverable tool error")
          .edge(PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE, "results added to context")
          .edge(HANDLING_TOOL_ERROR, GENERATING_RESPONSE, "error added to context")
          .edge(GENERATING_RESPONSE, AWAITING_LLM_RESPONSE, "send updated context to model")
          .edge(TRANSIENT_FAILURE, AWAITING_LLM_RESPONSE, "retry model request")
          .edge(TRANSIENT_FAILURE, EXECUTING_TOOLS, "retry tools")
          .edge(TRANSIENT_FAILURE, FAILED, "retries exhausted")
          // added: the turn stops from every busy state without such an edge (user abort or a guard)
          .edge(PROCESSING_USER_MESSAGE, IDLE, "turn stopped")
          .edge(AWAITING_LLM_RESPONSE, IDLE, "turn stopped")
          .edge(AWAITING_TOOL_APPROVAL, IDLE, "turn stopped")
          .edge(EXECUTING_TOOLS, IDLE, "turn stopped")
          .edge(PROCESSING_TOOL_RESULTS, IDLE, "turn stopped")
          .edge(HANDLING_TOOL_ERROR, IDLE, "turn stopped")
          .edge(GENERATING_RESPONSE, IDLE, "turn stopped")
          .edge(TRANSIENT_FAILURE, IDLE, "turn stopped")
          // added: a model error that retrying cannot heal
          .edge(AWAITING_LLM_RESPONSE, FAILED, "unrecoverable model error")
          // added: the user writes again after a failure
          .edge(FAILED, PROCESSING_USER_MESSAGE, "user sends message after failure")
          // added: invalid tool calls found by their tools (ToolException.invalidArguments) once they ran
          .edge(EXECUTING_TOOLS, HANDLING_TOOL_ERROR, "tools found invalid arguments")
          .build();

  private static final Set<ConversationState> BUSY = EnumSet.complementOf(EnumSet.of(IDLE, FAILED));

  private final String wireName;

  ConversationState(String wireName) {
    this.wireName = wireName;
  }

  /** The name used on the wire and in the docs, for example {@code awaiting_llm_response}. */
  public String wireName() {
    return wireName;
  }

  /**
   * Whether a turn is under way: every state except {@link #IDLE} and {@link #FAILED}. A new user message is accepted
   * only when not busy, and every busy state has an edge to {@link #IDLE} (the turn stops).
   */
  public boolean isBusy() {
    return BUSY.contains(this);
  }

  /** Whether {@code this -> target} is an edge of the table. */
  public boolean canTransitionTo(ConversationState target) {
    return TABLE.allows(this, Objects.requireNonNull(target, "target"));
  }

  /** The states this one can move to. Immutable; never empty (no state is terminal). */
  public Set<ConversationState> successors() {
    return TABLE.successors(this);
  }

  /**
   * The state with this wire name.
   *
   * @throws IllegalArgumentException naming the valid wire names when {@code wireName} is none of them
   * @throws NullPointerException if {@code wireName} is null
   */
  public static ConversationState fromWireName(String wireName) {
    Objects.requireNonNull(wireName, "wireName");
    for (ConversationState s : values()) {
      if (s.wireName.equals(wireName)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown conversation state wire name '" + wireName + "'; valid names are "
        + Arrays.stream(values()).map(ConversationState::wireName).collect(Collectors.joining(", ")));
  }
}
