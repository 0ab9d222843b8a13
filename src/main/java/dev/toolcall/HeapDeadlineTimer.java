package dev.toolcall;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link DeadlineTimer}: a binary heap of deadlines, ordered by deadline then by arrival, under this
 * object's monitor, and one daemon thread that sleeps until the earliest one.
 *
 * <p>Most tasks are timeouts that are cancelled long before they are due (the tool returns first), so arming and
 * cancelling must be cheap for the caller. Arming is a heap insertion; cancelling is a removal at the entry's
 * known index. The thread is woken only when a new deadline is earlier than the time it already plans to wake
 * at; when it wakes to an empty heap before that time, it keeps sleeping until then instead of forever, so a
 * steady stream of timeouts of the same length (each armed and cancelled before the next) wakes it about once per
 * timeout length rather than once per call. Tasks run on the thread, outside the monitor; one that throws is
 * logged and the thread goes on.
 *
 * <p>Every comparison of ticks is a difference ({@code a - b < 0}); deadlines are {@code now + delay} with the
 * delay clamped to {@link #MAX_DELAY_NANOS}, which may wrap past {@link Long#MAX_VALUE} and still compares right.
 */
final class HeapDeadlineTimer implements DeadlineTimer {
  private static final Logger log = LoggerFactory.getLogger(HeapDeadlineTimer.class);
  /** The thread's name. */
  static final String THREAD_NAME = "toolcall-timer";

  private final Ticker ticker;

  private Entry[] heap = new Entry[16]; // guarded by this
  private int size; // guarded by this
  private long sequence; // guarded by this
  private Thread thread; // guarded by this
  private boolean closed; // guarded by this
  /** When the thread will wake by itself, unless it {@link #sleepsForever}; guarded by this. */
  private long wakeAt;
  /** Whether the thread sleeps with no deadline at all (or is not started); guarded by this. */
  private boolean sleepsForever = true;

  /** A timer whose deadlines are readings of {@code ticker} (the default: {@link System#nanoTime()}). */
  HeapDeadlineTimer(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** One armed task: its own handle, cancelled by removal at its heap index. */
  private final class Entry implements Handle {
    final Runnable task;
    final long deadline;
    final long seq;
    int index = -1; // guarded by the scheduler; -1 once run, cancelled or dropped

    Entry(Runnable task, long deadline, long seq) {
      this.task = task;
      this.deadline = deadline;
      this.seq = seq;
    }

    @Override
    public void cancel() {
      remove(this);
    }
  }

  @Override
  public Handle schedule(Runnable task, Duration delay) {
    Objects.requireNonNull(task, "task");
    long nanos = DeadlineTimer.clampedNanos(Objects.requireNonNull(delay, "delay"));
    Thread wake;
    Entry e;
    synchronized (this) {
      if (closed) {
        return Handle.NONE;
      }
      long deadline = ticker.read() + nanos; // may wrap: only differences are compared
      e = new Entry(task, deadline, sequence++);
      add(e);
      if (thread == null) {
        Thread t = new Thread(this::loop, THREAD_NAME);
        t.setDaemon(true);
        thread = t;
        sleepsForever = false;
        wakeAt = deadline;
        t.start();
        return e;
      }
      if (!sleepsForever && wakeAt - deadline <= 0) {
        return e; // the thread wakes before this is due anyway
      }
      sleepsForever = false;
      wakeAt = deadline;
      wake = thread;
    }
    LockSupport.unpark(wake);
    return e;
  }

  private synchronized void remove(Entry e) {
    int i = e.index;
    if (i < 0) {
      return;
    }
    e.index = -1;
    int last = --size;
    Entry moved = heap[last];
    heap[last] = null;
    if (i != last) {
      place(moved, i);
      siftDown(moved);
      if (moved.index == i) {
        siftUp(moved);
      }
    }
  }

  private void add(Entry e) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    place(e, size++);
    siftUp(e);
  }

  private Entry poll() {
    Entry top = heap[0];
    top.index = -1;
    int last = --size;
    Entry moved = heap[last];
    heap[last] = null;
    if (last > 0) {
      place(moved, 0);
      siftDown(moved);
    }
    return top;
  }

  private void place(Entry e, int i) {
    heap[i] = e;
    e.index = i;
  }

  private static boolean before(Entry a, Entry b) {
    long d = a.deadline - b.deadline;
    return d < 0 || (d == 0 && a.seq < b.seq);
  }

  private void siftUp(Entry e) {
    int i = e.index;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      Entry p = heap[parent];
      if (!before(e, p)) {
        break;
      }
      place(p, i);
      i = parent;
    }
    place(e, i);
  }

  private void siftDown(Entry e) {
    int i = e.index;
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      Entry c = heap[child];
      int right = child + 1;
      if (right < size && before(heap[right], c)) {
        child = right;
        c = heap[child];
      }
      if (!before(c, e)) {
        break;
      }
      place(c, i);
      i = child;
    }
    place(e, i);
  }

  private void loop() {
    for (;;) {
      Runnable due = null;
      long parkNanos = 0;
      boolean forever = false;
      synchronized (this) {
        if (closed) {
          return;
        }
        long now = ticker.read();
        if (size > 0 && heap[0].deadline - now <= 0) {
          due = poll().task;
        } else if (size > 0) {
          wakeAt = heap[0].deadline;
          parkNanos = wakeAt - now;
        } else if (!sleepsForever && wakeAt - now > 0) {
          parkNanos = wakeAt - now; // nothing armed: keep the wake-up already planned, so arming needs no signal
        } else {
          sleepsForever = true;
          forever = true;
        }
      }
      if (due != null) {
        try {
          due.run();
        } catch (Throwable t) {
          log.error("a timer task failed", t);
        }
      } else if (forever) {
        LockSupport.park(this);
      } else {
        LockSupport.parkNanos(this, parkNanos);
      }
    }
  }

  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      for (int i = 0; i < size; i++) {
        heap[i].index = -1;
        heap[i] = null;
      }
      size = 0;
      t = thread;
    }
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** Waits for the thread to end (for close with a grace period). */
  boolean awaitTermination(long nanos) throws InterruptedException {
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t == null) {
      return true;
    }
    TimeUnit.NANOSECONDS.timedJoin(t, nanos);
    return !t.isAlive();
  }
}
