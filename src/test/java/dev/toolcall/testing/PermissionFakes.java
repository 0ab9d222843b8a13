package dev.toolcall.testing;

import dev.toolcall.Ticker;
import dev.toolcall.DeadlineTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Fakes for timed tests: a ticker moved by hand and a {@link DeadlineTimer} that runs tasks as it moves. */
public final class PermissionFakes {
  private PermissionFakes() {}

  /** A ticker that only moves when told. Thread-safe. */
  public static final class ManualTicker implements Ticker {
    private final AtomicLong now;

    /** A ticker reading 1 s. */
    public ManualTicker() {
      this(1_000_000_000L);
    }

    /** A ticker reading {@code start} (near {@link Long#MAX_VALUE}, say, to test that readings may wrap). */
    public ManualTicker(long start) {
      now = new AtomicLong(start);
    }

    @Override
    public long read() {
      return now.get();
    }

    /** Moves the ticker by {@code d}. */
    public void advance(Duration d) {
      now.addAndGet(d.toNanos());
    }
  }

  /**
   * Runs scheduled tasks when {@link #advance} moves its ticker past their due time, on the calling thread, earliest
   * first. Due times are compared by difference with the ticker's reading, so they may wrap past
   * {@link Long#MAX_VALUE} like {@link System#nanoTime()}. Thread-safe; tasks run outside its lock.
   */
  public static final class ManualTimer implements DeadlineTimer {
    private final ManualTicker ticker;
    private final List<Task> tasks = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this
    private long seq; // guarded by this

    public ManualTimer(ManualTicker ticker) {
      this.ticker = ticker;
    }

    private static final class Task {
      final long due;
      final long seq;
      final Runnable run;
      volatile boolean cancelled;

      Task(long due, long seq, Runnable run) {
        this.due = due;
        this.seq = seq;
        this.run = run;
      }
    }

    @Override
    public synchronized Handle schedule(Runnable task, Duration delay) {
      if (closed) {
        return () -> {};
      }
      long due = ticker.read() + DeadlineTimer.clampedNanos(delay); // may wrap: compared by difference only
      Task t = new Task(due, seq++, task);
      tasks.add(t);
      return () -> t.cancelled = true;
    }

    /** Moves the ticker by {@code d} and runs every task now due. */
    public void advance(Duration d) {
      ticker.advance(d);
      runDue();
    }

    /** Runs every task due at the ticker's reading (tasks scheduled by tasks included). */
    public void runDue() {
      for (;;) {
        Task next;
        synchronized (this) {
          long now = ticker.read();
          next = tasks.stream().filter(t -> !t.cancelled && t.due - now <= 0)
              .min(Comparator.<Task>comparingLong(t -> t.due - now).thenComparingLong(t -> t.seq)).orElse(null);
          tasks.removeIf(t -> t.cancelled || t == next);
        }
        if (next == null) {
          return;
        }
        next.run.run();
      }
    }

    /** Tasks scheduled and neither run nor cancelled. */
    public synchronized int scheduled() {
      return (int) tasks.stream().filter(t -> !t.cancelled).count();
    }

    public synchronized boolean isClosed() {
      return closed;
    }

    @Override
    public synchronized void close() {
      closed = true;
      tasks.clear();
    }
  }
}
