package dev.toolcall.conversation;

import java.util.Objects;

/**
 * One tool call as the model asked for it: the call id, the tool's name and the raw argument text, untouched.
 * Nothing here has been validated: an unknown tool or malformed arguments end the call FAILED with a message for the
 * model, they never throw. A blank id or name is the model's mistake too: the call is not run and the model is told
 * so in its result. A model client whose provider sends no call id should make one up (unique within the
 * conversation), since results are matched to calls by id.
 *
 * @param id the call id (non-null; a blank one is answered with a refusal)
 * @param name the requested tool name (non-null; it may be blank or name no tool)
 * @param rawArguments the argument text exactly as sent (may be empty)
 */
public record ToolCallRequest(String id, String name, String rawArguments) {

  /** Checks the parts: a null id or name is a programming error of the model client. */
  public ToolCallRequest {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(rawArguments, "rawArguments");
  }
}
