package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import java.util.concurrent.RejectedExecutionException;

/**
 * The live output of a {@link CallRun}: its {@link OutputBuffer}, made on the first write; the periodic flush on the
 * executor, which backs off while the store fails it; and the flush before the call's result is installed, so every
 * output event precedes the end. Stateless: the buffer and the failure count live in the run.
 */
final class RunOutput {

  private RunOutput() {
  }

  /** The live output of the call, created on the first write. */
  static OutputBuffer of(CallRun run) {
    OutputBuffer o = run.output;
    if (o == null) {
      synchronized (run) {
        o = run.output;
        if (o == null) {
          ToolScheduler sched = run.sched;
          o = new OutputBuffer(run.call, sched.maxOutputChars, () -> arm(run), sched.counters);
          run.output = o;
        }
      }
    }
    return o;
  }

  /**
   * Publishes pending output now (before the call's result is installed). A store failure that may go away is thrown
   * (the output is kept for the next try); output the store can never hold is dropped (counted as dropped), not
   * retried.
   */
  static void flush(CallRun run) {
    OutputBuffer o = run.output;
    if (o == null) {
      return;
    }
    try {
      o.flushNow();
    } catch (RuntimeException e) {
      ToolScheduler sched = run.sched;
      if (sched.store == null || sched.writes.retriable(e) || e instanceof dev.toolcall.StaleCallException) {
        throw e;
      }
      ToolScheduler.log.warn("call {} ({}): its store cannot store a chunk of its output ({}); the chunk is dropped",
          run.call.callId(), run.call.toolName(), e.toString());
      o.dropPending();
    }
  }

  /**
   * The periodic flush of live output, on the executor: never throws there. When the store fails it (it is
   * unreachable), the output stays pending and the flush is tried again on the timer, backing off from 100 ms to 5 s;
   * the call's end flushes what is left first in any case.
   */
  static void flushLater(CallRun run) {
    try {
      flush(run);
      run.flushFailures = 0;
    } catch (RuntimeException e) {
      ToolCall call = run.call;
      ToolScheduler sched = run.sched;
      if (call.isTerminal() || sched.closed || e instanceof dev.toolcall.StaleCallException) {
        return; // ended, or moved on elsewhere: nothing of this call's output is published any more
      }
      if (run.flushFailures++ == 0) {
        ToolScheduler.log.warn("call {} ({}): its store failed a write of its live output ({}); trying again until"
            + " it lands", call.callId(), call.toolName(), e.toString());
      }
      sched.timer.schedule(() -> flushOnExecutor(run), RunFailures.storeBackoff(run.flushFailures - 1));
    }
  }

  private static void flushOnExecutor(CallRun run) {
    try {
      run.sched.executor.execute(() -> flushLater(run));
    } catch (RejectedExecutionException e) {
      flushLater(run);
    }
  }

  /** Arms the next periodic flush. */
  static void arm(CallRun run) {
    run.sched.timer.schedule(() -> flushOnExecutor(run), run.sched.outputFlushInterval);
  }
}
