package dev.toolcall;


/**
 * The library's own {@link Reason}s for conversation changes. Each is a stable code (for logs, metrics and tests)
 * with a human-readable message; a runtime may use its own with {@link Reason#of}, or give one of these another
 * message with {@link Reason#withMessage}.
 */
public final class ConversationReasons {

  /** Version 0: the conversation was created, idle. */
  public static final Reason CREATED = Reason.of("conversation_created", "conversation created");
  /** The user sent a message: a new turn. */
  public static final Reason USER_MESSAGE = Reason.of("user_message", "user sent a message");
  /** A request went to the model. */
  public static final Reason MODEL_REQUESTED = Reason.of("model_requested", "request sent to the model");
  /** The model's response is complete. */
  public static final Reason MODEL_RESPONDED = Reason.of("model_responded", "model response complete");
  /** The response ended the turn with a final text. */
  public static final Reason FINAL_ANSWER = Reason.of("final_answer", "final text answer");
  /** Tool calls wait for a person's decision. */
  public static final Reason APPROVAL_REQUIRED = Reason.of("approval_required", "tool calls need approval");
  /** Tool calls run. */
  public static final Reason TOOLS_STARTED = Reason.of("tools_started", "tool calls running");
  /** Every tool call of the batch has ended. */
  public static final Reason TOOLS_DONE = Reason.of("tools_done", "tool calls ended");
  /** The person denied the tool calls. */
  public static final Reason TOOLS_DENIED = Reason.of("tools_denied", "tool calls denied");
  /** Results (or errors) were added; the next request is prepared. */
  public static final Reason CONTINUING = Reason.of("continuing", "results added to the conversation");
  /** The response's tool calls were invalid. */
  public static final Reason INVALID_TOOL_CALLS = Reason.of("invalid_tool_calls", "invalid tool calls");
  /** A recoverable error; a retry follows. */
  public static final Reason TRANSIENT_ERROR = Reason.of("transient_error", "recoverable error");
  /** A retry begins. */
  public static final Reason RETRYING = Reason.of("retrying", "retrying");
  /** The turn failed. */
  public static final Reason TURN_FAILED = Reason.of("turn_failed", "turn failed");
  /** The user aborted the turn; every tool call of the turn is cancelled. */
  public static final Reason ABORTED = Reason.of("aborted", "turn aborted by the user");
  /** The round-trip limit stopped the turn. */
  public static final Reason ROUND_TRIP_LIMIT = Reason.of("round_trip_limit", "too many model round trips");
  /** The same tool call repeated too often: the turn stopped. */
  public static final Reason LOOP_DETECTED = Reason.of("loop_detected", "repeated tool call loop detected");
  /** A return-direct tool's result ended the turn. */
  public static final Reason RETURN_DIRECT = Reason.of("return_direct", "a tool result ended the turn");
  /** The model said the runtime must not continue on its own (quota exhausted, switched to a fallback model). */
  public static final Reason MODEL_SWITCHED = Reason.of("model_switched",
      "the model cannot continue on its own; the user decides");

  private ConversationReasons() {}
}
