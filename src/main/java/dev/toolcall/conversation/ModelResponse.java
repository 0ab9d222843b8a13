package dev.toolcall.conversation;

import java.util.List;
import java.util.Objects;

/**
 * The model's complete response: its text, the tool calls it asked for (in its order), and why it stopped.
 * Immutable. Call ids are not checked for uniqueness here: a model that repeats an id is the model's error, and the
 * turn deals with it (a blank or reused id runs under an id the library mints; see {@link Agent}) instead of the
 * client throwing.
 *
 * @param text the assistant's text (non-null, may be empty)
 * @param toolCalls the tool calls in request order; an immutable copy
 * @param stopReason why the model stopped
 * @param usage the tokens the request and response used, as the provider reported them ({@link TokenUsage#NONE} when
 *     it reported none)
 * @param finishReason the provider's own finish reason as it sent it (say {@code "stop"}, {@code "length"} or
 *     {@code "tool_calls"}), for logs and for what {@link StopReason} does not distinguish; empty when unknown
 */
public record ModelResponse(String text, List<ToolCallRequest> toolCalls, StopReason stopReason, TokenUsage usage,
    String finishReason) {

  /** A response without usage or provider finish reason. */
  public ModelResponse(String text, List<ToolCallRequest> toolCalls, StopReason stopReason) {
    this(text, toolCalls, stopReason, TokenUsage.NONE, "");
  }

  /** Checks the parts and copies the list. */
  public ModelResponse {
    Objects.requireNonNull(text, "text");
    toolCalls = List.copyOf(Objects.requireNonNull(toolCalls, "toolCalls"));
    Objects.requireNonNull(stopReason, "stopReason");
    Objects.requireNonNull(usage, "usage");
    Objects.requireNonNull(finishReason, "finishReason");
  }

  /** This response with the usage and finish reason the provider reported. */
  public ModelResponse withUsage(TokenUsage usage, String finishReason) {
    return new ModelResponse(text, toolCalls, stopReason, usage, finishReason);
  }

  /** A final text answer: no tool calls, {@link StopReason#END_TURN}. */
  public static ModelResponse text(String text) {
    return new ModelResponse(text, List.of(), StopReason.END_TURN);
  }

  /** Tool calls (with optional text before them), {@link StopReason#TOOL_CALLS}. */
  public static ModelResponse toolCalls(String text, List<ToolCallRequest> toolCalls) {
    return new ModelResponse(text, toolCalls, StopReason.TOOL_CALLS);
  }

  /** Whether the model asked for tool calls. */
  public boolean hasToolCalls() {
    return !toolCalls.isEmpty();
  }

  /** The assistant message recording this response. */
  public AssistantMessage toMessage() {
    return AssistantMessage.of(this);
  }
}
