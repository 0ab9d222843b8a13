package dev.toolcall.testing;

import dev.toolcall.Ticker;
import dev.toolcall.permission.DeadlineScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Fakes for permission tests: a ticker moved by hand and a deadline scheduler that runs tasks as it moves. */
public final class PermissionFakes {
  private PermissionFakes() {}

  /** A ticker that only moves when told. Thread-safe. */
  public static final class ManualTicker implements Ticker {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

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
   * Runs scheduled tasks when {@link #advanceTo}/{@link #advance} moves its ticker past their due time, on the calling
   * thread, earliest first. Thread-safe; tasks run outside its lock.
   */
  public static final class ManualDeadlineScheduler implements DeadlineScheduler {
    private final ManualTicker ticker;
    private final List<Task> tasks = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this
    private long seq; // guarded by this

    public ManualDeadlineScheduler(ManualTicker ticker) {
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
      long nanos;
      try {
        nanos = delay.toNanos();
      } catch (ArithmeticException e) {
        nanos = Long.MAX_VALUE;
      }
      long due = ticker.read() + nanos < ticker.read() ? Long.MAX_VALUE : ticker.read() + nanos;
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
          next = tasks.stream().filter(t -> !t.cancelled && t.due <= ticker.read())
              .min(Comparator.<Task>comparingLong(t -> t.due).thenComparingLong(t -> t.seq)).orElse(null);
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
