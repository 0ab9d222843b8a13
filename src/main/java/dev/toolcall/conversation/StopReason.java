package dev.toolcall.conversation;

/** Why the model stopped producing its response, as the model client maps its provider's value. */
public enum StopReason {
  /** The model finished its turn (a final answer, or text before tool calls on providers that say so). */
  END_TURN,
  /** The model stopped to have its tool calls run. */
  TOOL_CALLS,
  /** The output token limit cut the response short. */
  MAX_TOKENS,
  /** A content filter stopped the response. */
  CONTENT_FILTER,
  /** Anything else the provider reports. */
  OTHER
}
