package dev.toolcall.postgres;

import dev.toolcall.ToolCallState;
import java.util.Objects;

/**
 * One row of the shared store: a call's identity, its state and compare-and-set version, and its document (the JSON
 * the runtime keeps of it: arguments, path, request, outcome). Immutable, so thread-safe. Strings are kept as the
 * runtime has them; the store escapes U+0000 when it writes them and unescapes it when it reads them.
 *
 * @param sessionId the call's session
 * @param callId the call's id
 * @param toolName its tool
 * @param state its state
 * @param version its version: each transition stores {@code version + 1} over {@code version}
 * @param document its JSON document (a JSON object)
 */
public record StoredCall(String sessionId, String callId, String toolName, ToolCallState state, int version,
    String document) {

  /**
   * Checks the parts.
   *
   * @throws NullPointerException if a part is null
   * @throws IllegalArgumentException if an id or the tool name is blank, or the version negative
   */
  public StoredCall {
    requireNonBlank(sessionId, "sessionId");
    requireNonBlank(callId, "callId");
    requireNonBlank(toolName, "toolName");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(document, "document");
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0, was " + version);
    }
  }

  /**
   * The next version of this call, in {@code state} with {@code document} (neither is checked against this one: the
   * runtime's matrix decides which steps are legal).
   *
   * @throws IllegalStateException if this is the last version an {@code int} holds
   */
  public StoredCall next(ToolCallState state, String document) {
    if (version == Integer.MAX_VALUE) {
      throw new IllegalStateException("call " + callId + " of session " + sessionId + " is at the last version");
    }
    return new StoredCall(sessionId, callId, toolName, state, version + 1, document);
  }

  /** The row's name in messages: {@code session/call v7}. */
  String where() {
    return "row " + sessionId + "/" + callId;
  }

  private static void requireNonBlank(String s, String name) {
    Objects.requireNonNull(s, name);
    if (s.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
