package dev.toolcall.execution;

import dev.toolcall.ToolCall;

/**
 * A call's live output between the tool and the event bus. Writes never block: they append to a bounded buffer and
 * arm one flush; the flush publishes what accumulated as one chunk (coalesced). Writes past the bound are dropped
 * and counted; the count rides on the next chunk. {@link #flushNow()} runs before the call's result is installed,
 * so all output events precede the terminal event. A flush the call's store fails keeps the output pending, in order,
 * for the next flush (the caller arranges it: see {@code RunOutput.flushLater}).
 */
final class OutputBuffer {
  private final ToolCall call;
  private final int maxPendingChars;
  private final Runnable armFlush;
  private final SchedulerCounters counters;

  private final Object flushLock = new Object();
  private StringBuilder pending = new StringBuilder(); // guarded by this
  private long dropped; // guarded by this
  private long sequence; // guarded by this
  private boolean armed; // guarded by this

  OutputBuffer(ToolCall call, int maxPendingChars, Runnable armFlush, SchedulerCounters counters) {
    this.call = call;
    this.maxPendingChars = maxPendingChars;
    this.armFlush = armFlush;
    this.counters = counters;
  }

  void write(String chunk) {
    if (chunk == null || chunk.isEmpty() || call.isTerminal()) {
      return;
    }
    boolean arm = false;
    synchronized (this) {
      if (pending.length() + chunk.length() > maxPendingChars) {
        dropped++;
        counters.droppedOutput.increment();
      } else {
        pending.append(chunk);
      }
      if (!armed) {
        armed = true;
        arm = true;
      }
    }
    if (arm) {
      armFlush.run();
    }
  }

  /**
   * Publishes what is pending as one chunk. Flushes are serialised by their own lock (so chunks go out in sequence
   * order) while writers only ever take the buffer's lock for an append: a slow listener never blocks the tool.
   */
  void flushNow() {
    synchronized (flushLock) {
      String text;
      long d;
      long seq;
      synchronized (this) {
        armed = false;
        if (pending.length() == 0 && dropped == 0) {
          return;
        }
        text = pending.toString();
        d = dropped;
        pending = new StringBuilder();
        dropped = 0;
        seq = ++sequence;
      }
      try {
        call.appendOutput(text, seq, d);
      } catch (RuntimeException e) { // the call's store failed the write: nothing was published; keep it all
        synchronized (this) {
          pending.insert(0, text);
          dropped += d;
          sequence = seq - 1;
          armed = true; // the caller flushes again (writes meanwhile need not arm a flush of their own)
        }
        throw e;
      }
    }
  }

  /** Drops what is pending (the store can never hold it): counted as one dropped write, told with the next chunk. */
  void dropPending() {
    synchronized (this) {
      if (pending.length() > 0) {
        pending = new StringBuilder();
        dropped++;
        counters.droppedOutput.increment();
      }
      armed = false;
    }
  }
}
