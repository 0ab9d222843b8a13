package dev.toolcall.conversation;

import dev.toolcall.tool.ToolDefinition;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link ModelClient} sends to the model: the conversation's messages so far, oldest first, and the tools the
 * model may call. Immutable.
 *
 * @param messages the messages, oldest first; not empty; an immutable copy
 * @param tools the tool definitions offered; names unique; an immutable copy (may be empty)
 */
public record ModelRequest(List<Message> messages, List<ToolDefinition> tools) {

  /** Checks the parts: no messages, or two tools of one name, are programming errors. */
  public ModelRequest {
    messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("messages must not be empty: a request needs at least the user message");
    }
    tools = List.copyOf(Objects.requireNonNull(tools, "tools"));
    HashSet<String> names = new HashSet<>();
    for (ToolDefinition t : tools) {
      if (!names.add(t.name())) {
        throw new IllegalArgumentException("tools must have unique names; '" + t.name() + "' appears twice");
      }
    }
  }

  /** The newest message. */
  public Message lastMessage() {
    return messages.get(messages.size() - 1);
  }
}
