package dev.toolcall.execution;

import dev.toolcall.ToolCallOrigin;
import java.util.Objects;

/**
 * One tool call as the model (or a person's command) asked for it: its id, the tool's name and the raw argument
 * text, untouched. Nothing here has been validated; the scheduler does that, and a bad request ends its call FAILED
 * rather than throwing.
 *
 * @param callId the call id from the model (non-blank)
 * @param toolName the requested tool name (non-blank; it may name no tool)
 * @param rawArguments the argument text exactly as sent (may be empty)
 * @param parentCallId the enclosing call of a nested call, or null
 * @param origin who asked for the call; the call's identity carries it
 */
public record CallRequest(String callId, String toolName, String rawArguments, String parentCallId,
    ToolCallOrigin origin) {

  /** A request the model made ({@link ToolCallOrigin#MODEL}). */
  public CallRequest(String callId, String toolName, String rawArguments, String parentCallId) {
    this(callId, toolName, rawArguments, parentCallId, ToolCallOrigin.MODEL);
  }

  /** Checks the parts: a null or blank id or name is a programming error of the runtime, not the model's. */
  public CallRequest {
    requireNonBlank(callId, "callId");
    requireNonBlank(toolName, "toolName");
    Objects.requireNonNull(rawArguments, "rawArguments");
    if (parentCallId != null) {
      requireNonBlank(parentCallId, "parentCallId");
      if (parentCallId.equals(callId)) {
        throw new IllegalArgumentException("parentCallId must differ from callId '" + callId + "'");
      }
    }
    Objects.requireNonNull(origin, "origin");
  }

  /** A top-level call. */
  public static CallRequest of(String callId, String toolName, String rawArguments) {
    return new CallRequest(callId, toolName, rawArguments, null);
  }

  /** The same request nested in {@code parentCallId}. */
  public CallRequest nestedIn(String parentCallId) {
    return new CallRequest(callId, toolName, rawArguments, parentCallId, origin);
  }

  /** The same request as a user's command ({@link ToolCallOrigin#USER_COMMAND}). */
  public CallRequest asCommand() {
    return new CallRequest(callId, toolName, rawArguments, parentCallId, ToolCallOrigin.USER_COMMAND);
  }

  private static void requireNonBlank(String v, String name) {
    Objects.requireNonNull(v, name);
    if (v.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
