package dev.toolcall;

/**
 * Who asked for a tool call; part of the call's {@link ToolCallIdentity}, so every event and result carries it. Calls
 * of both origins go through the same scheduler (validation, permission, execution, events); a UI may show them
 * differently, and an agent decides what to do with a command's result (see
 * {@code Agent.runCommand(CallRequest, CommandFollowUp)}).
 */
public enum ToolCallOrigin {
  /** The model asked for it in a response; its result goes back to the model. */
  MODEL,
  /**
   * The user asked for it with a command (the source documents' slash and at commands, for example {@code /shell ls}
   * or {@code @file.txt}), while the user message is processed; the model never asked for it.
   */
  USER_COMMAND
}
