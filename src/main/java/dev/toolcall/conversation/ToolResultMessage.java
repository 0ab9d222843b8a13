package dev.toolcall.conversation;

import java.util.Objects;

/**
 * What the model is told about one of its tool calls once the call has ended: the result, or a text saying how it
 * failed, was denied, timed out or was cancelled.
 *
 * @param callId the id of the call this answers, as the model sent it (non-null; blank when the model sent none)
 * @param toolName the tool's name as the model sent it (non-null; may be blank)
 * @param content the text for the model (non-null, may be empty)
 * @param isError whether the model should read it as an error
 */
public record ToolResultMessage(String callId, String toolName, String content, boolean isError)
    implements Message {

  /** Checks the parts. */
  public ToolResultMessage {
    Objects.requireNonNull(callId, "callId");
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(content, "content");
  }
}
