package dev.toolcall.conversation;

import dev.toolcall.tool.ToolDefinition;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link ModelClient} sends to the model: the conversation's messages so far, oldest first, the tools the
 * model may call, the system instructions, and the request's options. Immutable.
 *
 * @param messages the messages, oldest first; not empty; an immutable copy
 * @param tools the tool definitions offered; names unique; an immutable copy (may be empty)
 * @param instructions the system message (instructions) sent before the messages; empty when there is none
 * @param options the request's options (tool choice, temperature, token limit, provider options)
 */
public record ModelRequest(List<Message> messages, List<ToolDefinition> tools, String instructions,
    ModelOptions options) {

  /** A request without instructions and with {@link ModelOptions#DEFAULTS}. */
  public ModelRequest(List<Message> messages, List<ToolDefinition> tools) {
    this(messages, tools, "", ModelOptions.DEFAULTS);
  }

  /**
   * Checks the parts: no messages, two tools of one name, or a {@link ToolChoice#tool named tool choice} that names no
   * offered tool are programming errors.
   */
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
    Objects.requireNonNull(instructions, "instructions");
    Objects.requireNonNull(options, "options");
    if (options.toolChoice() instanceof ToolChoice.Named n && !names.contains(n.toolName())) {
      throw new IllegalArgumentException("options.toolChoice names the tool '" + n.toolName()
          + "', which the request does not offer; offered: " + names);
    }
    if (tools.isEmpty() && options.toolChoice() instanceof ToolChoice.Required) {
      throw new IllegalArgumentException("options.toolChoice is required, but the request offers no tools");
    }
  }

  /** This request with other instructions. */
  public ModelRequest withInstructions(String instructions) {
    return new ModelRequest(messages, tools, instructions, options);
  }

  /** This request with other options. */
  public ModelRequest withOptions(ModelOptions options) {
    return new ModelRequest(messages, tools, instructions, options);
  }

  /** The newest message. */
  public Message lastMessage() {
    return messages.get(messages.size() - 1);
  }
}
