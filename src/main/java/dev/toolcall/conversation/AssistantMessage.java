package dev.toolcall.conversation;

import java.util.List;
import java.util.Objects;

/**
 * What the model answered: its text (possibly empty) and the tool calls it asked for, in its order.
 *
 * @param text the assistant's text (non-null, may be empty)
 * @param toolCalls the tool calls, in request order; an immutable copy
 */
public record AssistantMessage(String text, List<ToolCallRequest> toolCalls) implements Message {

  /** Checks the parts and copies the list. */
  public AssistantMessage {
    Objects.requireNonNull(text, "text");
    toolCalls = List.copyOf(Objects.requireNonNull(toolCalls, "toolCalls"));
  }

  /** The message that records {@code response} in the conversation. */
  public static AssistantMessage of(ModelResponse response) {
    Objects.requireNonNull(response, "response");
    return new AssistantMessage(response.text(), response.toolCalls());
  }

  /** Whether the model asked for tool calls. */
  public boolean hasToolCalls() {
    return !toolCalls.isEmpty();
  }
}
