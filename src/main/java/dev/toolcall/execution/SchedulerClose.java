package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;

/**
 * The threads one {@link ToolScheduler} owns, and its end. Without an executor of the user's, the scheduler makes its
 * own ({@link #defaultExecutor}). {@link ToolScheduler#close(Duration)} cancels every call that has not ended,
 * {@link ToolScheduler#handOff} leaves them as they are for the other runtimes of a shared store; both close the
 * scheduler's own timer and give its own executor's running tools the grace period, then interrupt them. Whichever
 * comes first decides; later calls do nothing.
 */
final class SchedulerClose {

  private static final Logger log = ToolScheduler.log;

  private final ToolScheduler sched;

  SchedulerClose(ToolScheduler sched) {
    this.sched = sched;
  }

  /** Virtual threads on JDK 21+ (found at run time), else a cached pool of daemon threads. */
  static ExecutorService defaultExecutor() {
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (ReflectiveOperationException e) {
      AtomicInteger n = new AtomicInteger();
      return Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "toolcall-tool-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
    }
  }

  /** Closes, ending the calls or ({@code handOff}) leaving them to the other runtimes. */
  void close(Duration grace, boolean handOff) {
    if (sched.closed) {
      return;
    }
    sched.handedOff = handOff;
    sched.closed = true;
    for (ToolCall c : handOff ? List.<ToolCall>of() : sched.known.calls()) {
      try {
        c.cancel("the runtime was closed");
      } catch (RuntimeException e) { // a call store that failed or refused: close goes on; the store keeps the call
        log.warn("closing: call {} could not be cancelled: {}", c.callId(), e.toString());
      }
    }
    if (sched.ownsTimer) {
      sched.timer.close();
    }
    if (sched.ownedExecutor != null) {
      sched.ownedExecutor.shutdown();
      try {
        if (!sched.ownedExecutor.awaitTermination(Math.max(0, grace.toNanos()), TimeUnit.NANOSECONDS)) {
          sched.ownedExecutor.shutdownNow();
          log.warn("tool scheduler closed with {} tool attempt(s) still running after the grace period",
              sched.counters.stillRunning.get());
        }
      } catch (InterruptedException e) {
        sched.ownedExecutor.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
  }
}
