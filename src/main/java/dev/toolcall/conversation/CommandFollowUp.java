package dev.toolcall.conversation;

/**
 * What an {@link Agent} does with the result of a user's command ({@link Agent#runCommand(
 * dev.toolcall.execution.CallRequest, CommandFollowUp)}), seed 04's "should continue?" after a slash or at command.
 */
public enum CommandFollowUp {
  /** The result is in the {@link TurnResult} only: the messages do not change and the model is not asked. */
  RESULT_ONLY,
  /**
   * The call and its result are added to the messages (an assistant message with the call, then its
   * {@link ToolResultMessage}), so the model sees them with the next user message; the model is not asked now.
   */
  RECORD,
  /**
   * Recorded as with {@link #RECORD}, then the model is asked at once: the turn goes on from
   * {@code processing_user_message} to {@code awaiting_llm_response} like a turn the user started with a message,
   * and ends as that turn ends. A denied or failed command is recorded and sent the same way: the model reads why.
   */
  ASK_MODEL
}
