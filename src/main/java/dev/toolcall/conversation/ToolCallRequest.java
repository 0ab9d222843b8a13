package dev.toolcall.conversation;

import java.util.Objects;

/**
 * One tool call as the model asked for it: the call id, the tool's name and the raw argument text, untouched.
 * Nothing here has been validated: an unknown tool or malformed arguments end the call FAILED with a message for the
 * model, they never throw. A model client whose provider sends no call id must make one up (unique within the
 * conversation), since results are matched to calls by id.
 *
 * @param id the call id (non-blank)
 * @param name the requested tool name (non-blank; it may name no tool)
 * @param rawArguments the argument text exactly as sent (may be empty)
 */
public record ToolCallRequest(String id, String name, String rawArguments) {

  /** Checks the parts: a null or blank id or name is a programming error of the model client. */
  public ToolCallRequest {
    Checks.requireNonBlank(id, "id");
    Checks.requireNonBlank(name, "name");
    Objects.requireNonNull(rawArguments, "rawArguments");
  }
}
