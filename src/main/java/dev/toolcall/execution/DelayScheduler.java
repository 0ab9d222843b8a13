package dev.toolcall.execution;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs short tasks after a delay (timeouts, retry backoff, output flushes) on at most one daemon thread, named
 * {@code toolcall-scheduler-timer}, started on first use and gone after {@link #close()}. Tasks must be quick: they
 * only hand work to the executor or change a call's state.
 */
interface DelayScheduler extends AutoCloseable {

  /** A scheduled task that can be cancelled. */
  interface Handle {
    /** Cancels the task if it has not run; harmless otherwise. */
    void cancel();
  }

  /** A handle that does nothing. */
  Handle NONE = () -> {};

  /** Runs {@code task} after {@code delayNanos}; after close the task is not run and NONE is returned. */
  Handle schedule(Runnable task, long delayNanos);

  /** Stops the thread; pending tasks are dropped. */
  @Override
  void close();

  /** The default: one lazily started daemon thread. */
  static DelayScheduler newDefault() {
    return new ThreadDelayScheduler();
  }

  /** The default implementation. */
  final class ThreadDelayScheduler implements DelayScheduler {
    private ScheduledThreadPoolExecutor executor; // guarded by this
    private boolean closed; // guarded by this

    private synchronized ScheduledThreadPoolExecutor executor() {
      if (closed) {
        return null;
      }
      if (executor == null) {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
          Thread t = new Thread(r, "toolcall-scheduler-timer");
          t.setDaemon(true);
          return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      }
      return executor;
    }

    @Override
    public Handle schedule(Runnable task, long delayNanos) {
      ScheduledThreadPoolExecutor ex = executor();
      if (ex == null) {
        return NONE;
      }
      try {
        ScheduledFuture<?> f = ex.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        return NONE; // closed concurrently
      }
    }

    @Override
    public void close() {
      ScheduledThreadPoolExecutor ex;
      synchronized (this) {
        closed = true;
        ex = executor;
      }
      if (ex != null) {
        ex.shutdownNow();
      }
    }

    /** Waits for the thread to end (for close with a grace period). */
    boolean awaitTermination(long nanos) throws InterruptedException {
      ScheduledThreadPoolExecutor ex;
      synchronized (this) {
        ex = executor;
      }
      return ex == null || ex.awaitTermination(nanos, TimeUnit.NANOSECONDS);
    }
  }
}
