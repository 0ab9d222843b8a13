package dev.toolcall.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The lock of an inline subscription (one compare-and-set to take, an ordered store to leave): a thread that waits
 * for it while another thread's invocation runs is woken and delivers, even when interrupted while it waits, and
 * keeps its interrupt; a listener invoked again on its own thread (re-entrant) is not blocked by itself. Real threads,
 * bounded waits, no sleeps.
 */
class SubscriptionLockTest {

  static ToolCall running(EventBus bus, String id) {
    ToolCall c = ToolCall.builder(id, "t").eventBus(bus).build();
    c.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    return c;
  }

  @Test
  void aThreadWaitingForTheListenerIsWokenDeliversAndKeepsItsInterrupt() throws Exception {
    EventBus bus = EventBus.create();
    ToolCall a = running(bus, "a");
    ToolCall b = running(bus, "b");
    CountDownLatch inA = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    List<String> seen = new CopyOnWriteArrayList<>();
    AtomicBoolean overlap = new AtomicBoolean();
    AtomicBoolean inside = new AtomicBoolean();
    bus.subscribe(EventListener.of(e -> {
      if (!inside.compareAndSet(false, true)) {
        overlap.set(true);
      }
      try {
        seen.add(e.sourceId());
        if (e.sourceId().equals("a")) {
          inA.countDown();
          releaseA.await(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      } finally {
        inside.set(false);
      }
    }));
    Thread ta = new Thread(() -> a.complete("a"));
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    Thread tb = new Thread(() -> {
      b.complete("b");
      interruptedAfter.set(Thread.currentThread().isInterrupted());
    });
    ta.start();
    assertThat(inA.await(10, TimeUnit.SECONDS)).isTrue();
    tb.start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (tb.getState() != Thread.State.TIMED_WAITING && tb.getState() != Thread.State.WAITING) {
      assertThat(System.nanoTime()).as("b never waited for the listener").isLessThan(until);
      Thread.onSpinWait();
    }
    tb.interrupt();
    assertThat(seen).as("b is not delivered while a's invocation runs").containsExactly("a");
    releaseA.countDown();
    ta.join(10_000);
    tb.join(10_000);
    assertThat(tb.isAlive()).isFalse();
    assertThat(seen).containsExactly("a", "b");
    assertThat(overlap).isFalse();
    assertThat(interruptedAfter).as("the interrupt that came while waiting is kept").isTrue();
  }

  @Test
  void aListenerThatChangesAnotherCallOfItsBusIsInvokedAgainOnItsOwnThread() {
    EventBus bus = EventBus.create();
    ToolCall a = running(bus, "a");
    ToolCall b = running(bus, "b");
    List<String> seen = new CopyOnWriteArrayList<>();
    bus.subscribe(EventListener.of(e -> {
      seen.add(e.sourceId() + " v" + e.version());
      if (e.sourceId().equals("a") && a.isTerminal()) {
        b.complete("from a's listener");
      }
    }));
    a.complete("a");
    assertThat(seen).containsExactly("a v2", "b v2");
    assertThat(b.isTerminal()).isTrue();
  }
}
