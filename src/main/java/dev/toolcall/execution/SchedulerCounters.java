package dev.toolcall.execution;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one {@link ToolScheduler} had to contain, counted by the per-call helpers as it happens and read as a
 * {@link SchedulerStats} snapshot. Thread-safe: adders and an atomic, no lock.
 */
final class SchedulerCounters {
  final LongAdder scheduled = new LongAdder();
  final LongAdder attempts = new LongAdder();
  final LongAdder discarded = new LongAdder();
  final LongAdder abandoned = new LongAdder();
  final AtomicLong stillRunning = new AtomicLong();
  final LongAdder droppedOutput = new LongAdder();
  final LongAdder rejections = new LongAdder();

  /** A snapshot of the counters; each is read once, while the others may move. */
  SchedulerStats stats() {
    return new SchedulerStats(scheduled.sum(), attempts.sum(), discarded.sum(), abandoned.sum(), stillRunning.get(),
        droppedOutput.sum(), rejections.sum());
  }
}
