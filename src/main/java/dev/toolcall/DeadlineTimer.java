package dev.toolcall;

import java.time.Duration;

/**
 * Runs short tasks after a delay on a monotonic clock: the one timer of a runtime. Permission deadlines, tool
 * timeouts, retry backoff and live-output flushes all run on it, so a {@link dev.toolcall.runtime.ToolCallRuntime} starts one timer
 * thread, not one per part.
 *
 * <p>Contract, for the default and for any replacement (tests inject a fake driven by a fake {@link Ticker}):
 * <ul>
 *   <li>{@link #schedule} is thread-safe and quick; it never runs the task on the calling thread.
 *   <li>A task runs at most once, never before its delay has passed on the timer's own clock, possibly later. A
 *       part that keeps its deadline on another {@link Ticker} re-checks that ticker when the task runs and
 *       schedules the rest if it came early.
 *   <li>{@link Handle#cancel()} before the task runs means it never runs; after, it is harmless.
 *   <li>After {@link #close()} pending tasks are dropped and {@code schedule} returns a handle that does nothing.
 *   <li>Tasks must be quick (they hand work to an executor or make one compare-and-set). One that throws is logged
 *       and the timer goes on.
 * </ul>
 *
 * <p>Ticks are compared only by their difference ({@code deadline - now <= 0}), as {@link System#nanoTime()}
 * requires: its readings may start anywhere, including near {@link Long#MAX_VALUE}, and wrap around. A delay is
 * clamped to about 146 years ({@code Long.MAX_VALUE >> 1} nanoseconds), so any two live deadlines are comparable.
 */
public interface DeadlineTimer extends AutoCloseable {

  /** The longest delay honoured, in nanoseconds (about 146 years); longer delays are clamped to it. */
  long MAX_DELAY_NANOS = Long.MAX_VALUE >> 1;

  /** A scheduled task. */
  @FunctionalInterface
  interface Handle {
    /** A handle that does nothing. */
    Handle NONE = () -> {};

    /** Cancels the task if it has not run; harmless otherwise. */
    void cancel();
  }

  /**
   * Runs {@code task} once after {@code delay} (a negative delay counts as zero; one longer than
   * {@link #MAX_DELAY_NANOS} is clamped).
   *
   * @throws NullPointerException if an argument is null
   */
  Handle schedule(Runnable task, Duration delay);

  /** Stops: pending tasks are dropped and the thread, if any, ends. Idempotent. */
  @Override
  void close();

  /**
   * The default: a binary heap of deadlines and one daemon thread named {@value HeapDeadlineTimer#THREAD_NAME},
   * started on first use and gone after {@link #close()}. It waits on {@link System#nanoTime()}, so wall-clock
   * jumps do not move deadlines.
   */
  static DeadlineTimer newDefault() {
    return new HeapDeadlineTimer(Ticker.system());
  }

  /**
   * The delay in nanoseconds, clamped to {@code [0, MAX_DELAY_NANOS]}; for implementations.
   *
   * @throws NullPointerException if {@code delay} is null
   */
  static long clampedNanos(Duration delay) {
    if (delay.isNegative()) {
      return 0;
    }
    if (delay.getSeconds() >= MAX_DELAY_NANOS / 1_000_000_000L) {
      return MAX_DELAY_NANOS;
    }
    return Math.min(delay.toNanos(), MAX_DELAY_NANOS);
  }
}
