package dev.toolcall.event;

import dev.toolcall.testing.Logs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.testing.Histories;
import dev.toolcall.ToolCallState;
import dev.toolcall.testing.RecordingListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The event guarantees of issue 4, each with real threads and a start barrier; bounded waits, no sleeps. */
class EventBusConcurrencyTest {
  static final int THREADS = 4;
  static final int CHANGES = 500;
  final ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  ToolCall runningCall(EventBus bus) {
    ToolCall c = ToolCall.builder("c", "t").eventBus(bus).build();
    c.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    return c;
  }

  /** Racing writers on one call: every subscriber (inline and executor) sees each version once, in order. */
  @RepeatedTest(5)
  void racingChangesAreDeliveredInVersionOrderExactlyOnce() throws Exception {
    EventBus bus = EventBus.create();
    RecordingListener inline = new RecordingListener();
    RecordingListener onExecutor = new RecordingListener();
    bus.subscribe(inline);
    ExecutorService ui = Executors.newSingleThreadExecutor();
    bus.subscribe(onExecutor, ui);
    ToolCall call = runningCall(bus);
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      fs.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < CHANGES; i++) {
          assertThat(call.appendOutput("x", i, 0).won()).isTrue();
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get(30, TimeUnit.SECONDS);
    }
    call.complete("done");
    ui.shutdown();
    assertThat(ui.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    int last = call.snapshot().version();
    assertThat(last).isEqualTo(THREADS * CHANGES + 2);
    for (RecordingListener r : List.of(inline, onExecutor)) {
      assertThat(r.events()).extracting(Event::version).hasSize(last + 1);
      Histories.assertSeenEveryVersionOf(r.events().stream().map(e -> ((ToolCallEvent) e).snapshot()).toList(),
          call.snapshot());
    }
  }

  /**
   * One inline listener shared by calls that change on different threads at once is never invoked concurrently
   * with itself (the "one at a time" guarantee): an overlap counter inside the listener never exceeds one.
   */
  @RepeatedTest(3)
  void sharedInlineListenerIsNeverInvokedConcurrently() throws Exception {
    EventBus bus = EventBus.create();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicInteger seen = new AtomicInteger();
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        int now = inside.incrementAndGet();
        maxInside.accumulateAndGet(now, Math::max);
        for (int spin = 0; spin < 50; spin++) {
          Thread.onSpinWait(); // widen the window in which an overlap would be seen
        }
        seen.incrementAndGet();
        inside.decrementAndGet();
      }
    });
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      fs.add(pool.submit(() -> {
        ToolCall own = runningCall(bus);
        start.await();
        for (int i = 0; i < CHANGES; i++) {
          own.appendOutput("x", i, 0);
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(seen.get()).isEqualTo(THREADS * (CHANGES + 2));
    assertThat(maxInside.get()).isEqualTo(1);
  }

  /** A subscriber added while events flow sees no gap from its first event on. */
  @Test
  void midStreamSubscriberSeesNoGap() throws Exception {
    EventBus bus = EventBus.create();
    ToolCall call = runningCall(bus);
    CountDownLatch writing = new CountDownLatch(1);
    Future<?> writer = pool.submit(() -> {
      for (int i = 0; i < 20_000; i++) {
        call.appendOutput("x", i, 0);
        if (i == 100) {
          writing.countDown();
        }
      }
    });
    assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
    RecordingListener late = new RecordingListener(false); // checks v, v+1, v+2 ... on every event
    bus.subscribe(late);
    writer.get(30, TimeUnit.SECONDS);
    call.complete("done");
    List<Event> seen = late.events();
    assertThat(seen).isNotEmpty();
    assertThat(seen.get(seen.size() - 1).version()).isEqualTo(call.snapshot().version());
  }

  /** After close() returns, the listener is never invoked again, even while another thread publishes. */
  @RepeatedTest(5)
  void nothingArrivesAfterCloseReturns() throws Exception {
    EventBus bus = EventBus.create();
    ToolCall call = runningCall(bus);
    AtomicBoolean closeReturned = new AtomicBoolean();
    AtomicInteger afterClose = new AtomicInteger();
    Subscription sub = bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (closeReturned.get()) {
          afterClose.incrementAndGet();
        }
      }
    });
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    Future<?> writer = pool.submit(() -> {
      started.countDown();
      for (int i = 0; !stop.get(); i++) {
        call.appendOutput("x", i, 0);
      }
    });
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    sub.close();
    closeReturned.set(true);
    for (int i = 0; i < 1000; i++) {
      call.appendOutput("y", i, 0);
    }
    stop.set(true);
    writer.get(30, TimeUnit.SECONDS);
    assertThat(sub.isClosed()).isTrue();
    assertThat(afterClose).hasValue(0);
  }

  /** A throwing listener is isolated: the others and its own later events go on. */
  @Test
  void throwingListenerIsIsolated() {
    Logs.expect(EventBus.class); // the listener throws on purpose
    EventBus bus = EventBus.create();
    AtomicInteger thrower = new AtomicInteger();
    bus.subscribe(EventListener.of(e -> {
      thrower.incrementAndGet();
      throw new IllegalStateException("listener bug");
    }));
    RecordingListener after = new RecordingListener();
    bus.subscribe(after);
    ToolCall call = runningCall(bus);
    call.complete("ok");
    assertThat(thrower).hasValue(3);
    assertThat(after.events()).hasSize(3);
    assertThat(call.state()).isEqualTo(ToolCallState.COMPLETED);
  }

  /** A listener on its own executor never blocks the changing thread, and still gets everything in order. */
  @Test
  void executorListenerNeverBlocksTheChangingThread() throws Exception {
    EventBus bus = EventBus.create();
    CountDownLatch release = new CountDownLatch(1);
    RecordingListener rec = new RecordingListener();
    ExecutorService ui = Executors.newSingleThreadExecutor();
    bus.subscribe(EventListener.of(e -> {
      try {
        release.await();
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
      rec.onEvent(e);
    }), ui);
    Future<?> changer = pool.submit(() -> {
      ToolCall call = runningCall(bus);
      for (int i = 0; i < 100; i++) {
        call.appendOutput("x", i, 0);
      }
      call.complete("ok");
    });
    changer.get(10, TimeUnit.SECONDS); // finishes although the listener is blocked
    assertThat(rec.events()).isEmpty();
    release.countDown();
    ui.shutdown();
    assertThat(ui.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(rec.events()).hasSize(103);
  }

  /** A listener that changes the same call from inside a callback neither deadlocks nor sees events out of order. */
  @Test
  void reentrantListenerDoesNotDeadlockOrReorder() {
    EventBus bus = EventBus.create();
    RecordingListener rec = new RecordingListener();
    bus.subscribe(new EventListener() {
      @Override
      public void onStateChanged(ToolCallEvent.StateChanged e) {
        if (e.to() == ToolCallState.RUNNING) {
          ToolCall self = CALL.get();
          self.appendOutput("from listener", 1, 0);
          self.complete("completed by a listener");
        }
      }
    });
    bus.subscribe(rec);
    ToolCall call = ToolCall.builder("c", "t").eventBus(bus).build();
    CALL.set(call);
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    assertThat(call.state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(rec.events()).extracting(Event::version).containsExactly(0L, 1L, 2L, 3L);
  }

  static final ThreadLocal<ToolCall> CALL = new ThreadLocal<>();

  /** An executor that rejects: the event is delivered inline, nothing is lost. */
  @Test
  void rejectedExecutorDeliversInline() {
    Logs.expect(EventBus.class); // the rejection is logged on purpose
    EventBus bus = EventBus.create();
    RecordingListener rec = new RecordingListener();
    bus.subscribe(rec, r -> {
      throw new RejectedExecutionException("closed");
    });
    ToolCall call = runningCall(bus);
    call.complete("ok");
    assertThat(rec.events()).hasSize(3);
  }
}
