package dev.toolcall;

/**
 * Why a call ended {@link ToolCallState#FAILED}. The first four are the model's mistakes, found by validation
 * before any permission is asked and before the tool is entered ({@link #INVALID_ARGUMENTS} also by the tool itself,
 * through {@link dev.toolcall.ToolException#invalidArguments}); the rest happen around or inside the tool.
 */
public enum FailureKind {
  /** The model named a tool that is not registered. */
  UNKNOWN_TOOL,
  /** The argument text is not well-formed JSON (or not one of the accepted forms). */
  MALFORMED_ARGUMENTS,
  /**
   * The arguments are well-formed but fail the tool's JSON Schema, or the tool found them wrong
   * ({@link dev.toolcall.ToolException#invalidArguments}, {@link dev.toolcall.ToolArguments#as}).
   */
  INVALID_ARGUMENTS,
  /** The arguments exceed a parsing limit (size, nesting, string or number length). */
  ARGUMENTS_TOO_LARGE,
  /** The tool threw or reported an error. */
  TOOL_ERROR,
  /** The tool did not finish within its timeout. */
  TIMEOUT,
  /** The tool returned null instead of a result. */
  NULL_RESULT,
  /** An interceptor blocked the call. */
  BLOCKED,
  /** The executor refused to run the tool. */
  EXECUTOR_REJECTED,
  /** A per-turn limit (calls in total, calls per tool, loop detection) stopped the call. */
  LIMIT_EXCEEDED,
  /**
   * The call's id cannot identify it: the model sent it blank, used it twice in one response or batch, or reused the
   * id of an earlier call of the session. It is not run and gets an id of its own ({@code <id>#n}, see
   * {@link dev.toolcall.execution.ToolScheduler#refuse}); the original, if any, goes on.
   */
  DUPLICATE_CALL,
  /**
   * The call was running when its process or its remote server stopped and its tool is not idempotent: it may or may
   * not have run.
   */
  OUTCOME_UNKNOWN,
  /** The library or the tool broke in a way that is nobody's input (an {@link Error} thrown by the tool). */
  INTERNAL_ERROR
}
