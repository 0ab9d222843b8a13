package dev.toolcall.tool;

import dev.toolcall.ToolArguments;
import java.util.function.Consumer;

/**
 * What a tool gets when it runs: the (validated, approved) arguments, who the call is, which attempt this is, a
 * cancellation signal, and a sink for live output. One invocation per attempt.
 *
 * <p>A tool should stop soon after {@link #isCancelled()} turns true (it is also interrupted when run on a thread
 * of the scheduler); whatever it returns after a cancel is discarded.
 */
public interface ToolInvocation {

  /** The arguments, as approved. */
  ToolArguments arguments();

  /** The call id the model gave. */
  String callId();

  /** The session the call belongs to. */
  String sessionId();

  /** The tool's name. */
  String toolName();

  /** 1 for the first attempt, 2 for the first retry. */
  int attempt();

  /** Whether the call has been cancelled (or timed out): the tool should stop. */
  boolean isCancelled();

  /** Runs {@code action} once when the call is cancelled (at once if it already is). */
  void onCancel(Runnable action);

  /**
   * Writes live output. Never blocks: output beyond the buffer is coalesced and, past its bound, dropped and
   * counted. Writes after the call ended are ignored.
   */
  void output(String chunk);

  /** The output sink as a consumer. */
  default Consumer<String> outputSink() {
    return this::output;
  }
}
