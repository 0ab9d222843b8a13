package dev.toolcall.conversation;

/**
 * Who asked for a tool call. Calls of both origins go through the same scheduler (validation, permission,
 * execution, events); the origin decides what the turn does with the result.
 */
public enum ToolCallOrigin {
  /** The model asked for it in a response; its result goes back to the model as a {@link ToolResultMessage}. */
  MODEL,
  /**
   * The user asked for it with a command (the source documents' slash and at commands, for example {@code /shell ls}
   * or {@code @file.txt}), while the user message is processed; the model never asked for it.
   */
  USER_COMMAND
}
