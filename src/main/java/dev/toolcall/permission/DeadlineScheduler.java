package dev.toolcall.permission;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs the timeout of each permission request after a delay. The {@link PermissionService} checks its monotonic
 * ticker when a task runs and re-schedules the rest if the task came early, so a scheduler may fire late but never
 * makes a request time out early. Tests inject a fake that runs tasks when a fake ticker is advanced.
 *
 * <p>Implementations must be thread-safe. The service closes its scheduler when it closes.
 */
public interface DeadlineScheduler extends AutoCloseable {

  /** A scheduled task. */
  @FunctionalInterface
  interface Handle {
    /** Cancels the task if it has not run; harmless otherwise. */
    void cancel();
  }

  /**
   * Runs {@code task} once after about {@code delay} (zero or positive). After {@link #close()} the task is dropped
   * and a handle that does nothing is returned. Tasks are quick (one compare-and-set).
   */
  Handle schedule(Runnable task, Duration delay);

  /** Stops: pending tasks are dropped and any thread ends (the default waits, bounded, until it has). */
  @Override
  void close();

  /**
   * The default: one daemon thread named {@code toolcall-permission-deadlines}, started on first use and gone after
   * {@link #close()}; it waits on {@link System#nanoTime()}, so wall-clock jumps do not move deadlines.
   */
  static DeadlineScheduler newDefault() {
    return new ThreadDeadlineScheduler();
  }

  /** The default implementation. */
  final class ThreadDeadlineScheduler implements DeadlineScheduler {
    /** The thread's name. */
    public static final String THREAD_NAME = "toolcall-permission-deadlines";

    private ScheduledThreadPoolExecutor executor; // guarded by this
    private boolean closed; // guarded by this

    ThreadDeadlineScheduler() {}

    private synchronized ScheduledThreadPoolExecutor executor() {
      if (closed) {
        return null;
      }
      if (executor == null) {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
          Thread t = new Thread(r, THREAD_NAME);
          t.setDaemon(true);
          return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      }
      return executor;
    }

    @Override
    public Handle schedule(Runnable task, Duration delay) {
      ScheduledThreadPoolExecutor ex = executor();
      if (ex == null) {
        return () -> {};
      }
      long nanos;
      try {
        nanos = Math.max(0, delay.toNanos());
      } catch (ArithmeticException e) {
        nanos = Long.MAX_VALUE;
      }
      try {
        ScheduledFuture<?> f = ex.schedule(task, nanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        return () -> {};
      }
    }

    @Override
    public void close() {
      ScheduledThreadPoolExecutor ex;
      synchronized (this) {
        closed = true;
        ex = executor;
        executor = null;
      }
      if (ex != null) {
        ex.shutdownNow();
        if (Thread.currentThread().getName().equals(THREAD_NAME)) {
          return; // closed from one of its own tasks: the thread ends once the task returns
        }
        try {
          ex.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
