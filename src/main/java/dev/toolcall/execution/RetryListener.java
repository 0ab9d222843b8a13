package dev.toolcall.execution;

import dev.toolcall.Change;
import dev.toolcall.ToolCall;

/**
 * Follows the retries of one open batch's calls synchronously, on the scheduler's own threads, so that a runtime can
 * show them in order with the attempts (a conversation going {@code executing_tools -> transient_failure} and back).
 * Given to {@link ToolScheduler#openBatch(String, java.util.concurrent.CompletionStage, RetryListener)}.
 *
 * <p>Ordering: {@link #retryScheduled} runs after the call's {@code RetryScheduled} change took effect and before
 * the backoff starts; {@link #retryStarting} runs when the backoff has elapsed and
 * before the attempt is handed to the executor, so whatever it publishes is published before the retried attempt
 * starts. For one call the two alternate, once per retry; a call cancelled during its backoff gets no
 * {@code retryStarting} (watch {@link ToolCall#whenTerminal()}). Both run on scheduler threads (the tool's thread, the
 * timer's thread): they must be quick and must not wait for the call's own progress. One that throws is logged and
 * the retry goes on.
 */
public interface RetryListener {

  /** No-op. */
  RetryListener NONE = new RetryListener() {};

  /**
   * Attempt {@code retry.nextAttempt()} of {@code call} will run after {@code retry.delay()}.
   *
   * @param call the call, RUNNING
   * @param retry the change that scheduled the retry
   */
  default void retryScheduled(ToolCall call, Change.RetryScheduled retry) {}

  /**
   * The backoff of {@code call} has elapsed: attempt {@code attempt} starts right after this returns (unless the call
   * ended meanwhile or the scheduler closed).
   */
  default void retryStarting(ToolCall call, int attempt) {}
}
