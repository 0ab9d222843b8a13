package dev.toolcall.conversation;

/**
 * What an {@link Agent}'s turn does when one of its tool calls fails in its tool: the tool threw, timed out,
 * returned nothing, crashed, or could not be started, or its outcome is unknown. Calls the model made invalid
 * (including arguments a tool refused with {@link dev.toolcall.ToolException#invalidArguments}, or that
 * {@link dev.toolcall.ToolArguments#as} could not bind), calls refused by a guard and denied calls are not
 * failures of a tool: they always go to the model.
 */
public enum ToolFailurePolicy {
  /**
   * The default: the failure goes to the model as that call's result and the turn goes on
   * ({@code executing_tools -> processing_tool_results -> generating_response}). Every agent framework does this,
   * and it is usually what a user wants: the model can often recover (try other arguments, another tool, or explain
   * what went wrong). This is why the default differs from seed 03.
   */
  REPORT_TO_MODEL,
  /**
   * Seed 03's {@code executing_tools -> failed}: once every call of the batch has ended, a tool failure ends the turn
   * FAILED ({@link TurnResult.Ending#FAILED}) with the first failed call's error; the model is not asked again, and
   * the next user message starts a new turn from {@code failed}.
   */
  FAIL_TURN
}
