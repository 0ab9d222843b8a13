package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import org.slf4j.Logger;

/**
 * The writes of one {@link ToolScheduler} that must not be lost: a call's end (failed, cancelled, withdrawn) is
 * written to the call store, and tried again on the scheduler's timer while the store fails in a way that may go
 * away, backing off from 100 ms to 5 s. Thread-safe: every try goes through the call's compare-and-set.
 */
final class StoreWrites {

  private static final Logger log = ToolScheduler.log;

  private final ToolScheduler sched;

  StoreWrites(ToolScheduler sched) {
    this.sched = sched;
  }

  /**
   * Runs {@code write}, a change of {@code call} that must not be lost. With a store, a failure that may go away (the
   * store was unreachable, a commit failed: anything {@link dev.toolcall.CallStore#retriable} does not rule out) is
   * tried again on the timer, backing off from 100 ms to 5 s, until it lands or the call ends otherwise;
   * one trying again cannot fix goes to {@code refused}. Throws what the write threw without a store, after close, or
   * when another runtime moved the call on ({@link dev.toolcall.StaleCallException}).
   */
  void durably(ToolCall call, Runnable write, int failures, java.util.function.Consumer<RuntimeException> refused) {
    if (call.isTerminal()) {
      return;
    }
    try {
      write.run();
    } catch (RuntimeException e) {
      if (sched.store == null || sched.closed || e instanceof dev.toolcall.StaleCallException) {
        throw e;
      }
      if (!retriable(e)) {
        refused.accept(e);
        return;
      }
      if (failures == 0) {
        log.warn("call {} ({}): its store failed the write ({}); trying again until it lands", call.callId(),
            call.toolName(), e.toString());
      }
      sched.timer.schedule(() -> {
        try {
          durably(call, write, failures + 1, refused);
        } catch (RuntimeException again) { // closed meanwhile, or moved on elsewhere: the call stays as stored
          log.warn("call {} ({}): gave up writing to its store: {}", call.callId(), call.toolName(),
              again.toString());
        }
      }, RunFailures.storeBackoff(failures));
    }
  }

  /** Whether trying a store write that failed with {@code e} again may help (see {@link dev.toolcall.CallStore#retriable}). */
  boolean retriable(RuntimeException e) {
    return sched.store == null || sched.store.retriable(e);
  }
}
