package dev.toolcall.event;

import static dev.toolcall.ToolCallState.*;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.testing.Logs;
import dev.toolcall.testing.RecordingListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bus's guarantees, each with real threads where a race is involved (start latches and bounded waits, never
 * sleeps): order, no gap for a late subscriber, nothing after close, isolation of a throwing listener, a blocked
 * executor listener not blocking the changer, re-entrancy, and inline delivery when the executor rejects.
 */
class EventBusTest {

  private final EventBus bus = EventBus.create();
  private final ExecutorService pool = Executors.newFixedThreadPool(3);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private ToolCall newCall(String id) {
    return ToolCall.builder(id, "tool").eventBus(bus).ticker(new AtomicLong()::incrementAndGet).build();
  }

  private static List<Long> versions(List<? extends Event> events) {
    return events.stream().map(Event::version).toList();
  }

  private static List<Long> range(long from, long toInclusive) {
    List<Long> out = new ArrayList<>();
    for (long v = from; v <= toInclusive; v++) {
      out.add(v);
    }
    return out;
  }

  @Test
  void everySubscriberSeesTheWholeLifecycleInVersionOrder() throws Exception {
    RecordingListener inline = new RecordingListener();
    BlockingRecorder onExecutor = new BlockingRecorder();
    bus.subscribe(inline);
    bus.subscribe(onExecutor, pool);
    ToolCall call = newCall("c1");
    call.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
    call.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE);
    call.transition(PERMISSION_APPROVED, RUNNING, Reason.STARTED);
    call.appendOutput("hello", 1, 0);
    call.complete("ok");

    assertThat(versions(inline.events())).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    assertThat(inline.events()).extracting(e -> e.getClass().getSimpleName()).containsExactly("CallCreated",
        "StateChanged", "StateChanged", "StateChanged", "OutputAppended", "StateChanged");
    onExecutor.awaitVersion("c1", 5);
    assertThat(versions(onExecutor.events())).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    assertThat(bus.subscriberCount()).isEqualTo(2);
    assertThat(bus.hasSubscribers()).isTrue();
  }

  @Test
  void subscriberAddedMidStreamSeesNoGapFromItsFirstEventOn() throws Exception {
    ToolCall call = newCall("c1");
    call.transition(PENDING, RUNNING, Reason.STARTED);
    CountDownLatch flowing = new CountDownLatch(1);
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event e) {
        if (e.version() >= 50) {
          flowing.countDown();
        }
      }
    });
    RecordingListener late = new RecordingListener(false);
    BlockingRecorder lateOnExecutor = new BlockingRecorder();
    AtomicBoolean subscribed = new AtomicBoolean();
    CompletableFuture<Integer> writer = CompletableFuture.supplyAsync(() -> {
      int afterSubscribe = 0;
      for (int i = 0; i < 1_000_000 && afterSubscribe < 2_000; i++) {
        call.appendOutput("x", i, 0);
        if (subscribed.get()) {
          afterSubscribe++;
        }
      }
      return afterSubscribe;
    }, pool);
    assertThat(flowing.await(10, SECONDS)).isTrue();
    bus.subscribe(late);
    bus.subscribe(lateOnExecutor, pool);
    subscribed.set(true);
    assertThat(writer.get(10, SECONDS)).isEqualTo(2_000);
    call.complete("done");
    long last = call.snapshot().version();

    lateOnExecutor.awaitVersion("c1", last);
    for (List<Event> events : List.of(late.eventsOf("c1"), lateOnExecutor.events())) {
      List<Long> seen = versions(events);
      assertThat(seen.get(0)).as("first event came mid-stream").isGreaterThan(0L);
      assertThat(seen).as("no gap from the first event on").isEqualTo(range(seen.get(0), last));
    }
  }

  @Test
  void nothingIsDeliveredToAnInlineListenerAfterCloseReturns() throws Exception {
    checkNothingAfterClose(false);
  }

  @Test
  void nothingIsDeliveredToAnExecutorListenerAfterCloseReturns() throws Exception {
    checkNothingAfterClose(true);
  }

  /**
   * One thread hammers output on a running call while this thread closes the subscription; the listener counts the
   * invocations that began after close() returned. There must be none, and the count must not move after close.
   */
  private void checkNothingAfterClose(boolean onExecutor) throws Exception {
    ToolCall call = newCall("c1");
    call.transition(PENDING, RUNNING, Reason.STARTED);
    AtomicBoolean closeReturned = new AtomicBoolean();
    AtomicInteger delivered = new AtomicInteger();
    AtomicInteger afterClose = new AtomicInteger();
    CountDownLatch flowing = new CountDownLatch(100);
    EventListener l = new EventListener() {
      @Override
      public void onEvent(Event e) {
        if (closeReturned.get()) {
          afterClose.incrementAndGet();
        }
        delivered.incrementAndGet();
        flowing.countDown();
      }
    };
    Subscription sub = onExecutor ? bus.subscribe(l, pool) : bus.subscribe(l);
    AtomicInteger appendsAfterClose = new AtomicInteger();
    CompletableFuture<Void> hammer = CompletableFuture.runAsync(() -> {
      for (int i = 0; i < 10_000_000 && appendsAfterClose.get() < 5_000; i++) {
        call.appendOutput("x", i, 0);
        if (closeReturned.get()) {
          appendsAfterClose.incrementAndGet();
        }
      }
    }, pool);
    assertThat(flowing.await(10, SECONDS)).isTrue();
    sub.close();
    int atClose = delivered.get();
    closeReturned.set(true);
    hammer.get(10, SECONDS);

    assertThat(appendsAfterClose.get()).as("events kept flowing after close").isEqualTo(5_000);
    assertThat(afterClose.get()).as("invocations begun after close returned").isZero();
    assertThat(delivered.get()).as("deliveries after close returned").isEqualTo(atClose);
    assertThat(sub.isClosed()).isTrue();
    assertThat(bus.subscriberCount()).isZero();
    sub.close(); // idempotent
  }

  @Test
  void throwingListenerIsLoggedAndIsolated() throws Exception {
    RecordingListener before = new RecordingListener();
    RecordingListener after = new RecordingListener();
    List<Long> seenByThrower = Collections.synchronizedList(new ArrayList<>());
    EventListener thrower = new EventListener() {
      @Override
      public void onEvent(Event e) {
        seenByThrower.add(e.version());
        if (e.version() == 1) {
          throw new IllegalStateException("listener bug");
        }
      }

      @Override
      public String toString() {
        return "thrower";
      }
    };
    bus.subscribe(before);
    bus.subscribe(thrower);
    bus.subscribe(after);

    String log = captureStderr(() -> {
      ToolCall call = newCall("c-throw");
      call.transition(PENDING, RUNNING, Reason.STARTED);
      TransitionResult<ToolCallSnapshot> r = call.complete("ok");
      assertThat(r.won()).as("the call goes on").isTrue();
    });

    assertThat(seenByThrower).as("the thrower's own later events go on").containsExactly(0L, 1L, 2L);
    assertThat(versions(before.events())).containsExactly(0L, 1L, 2L);
    assertThat(versions(after.events())).as("listeners after the thrower still see the event")
        .containsExactly(0L, 1L, 2L);
    assertThat(log).contains("thrower").contains("StateChanged").contains("c-throw").contains("listener bug");
    assertThat(bus.subscriberCount()).as("it stays subscribed").isEqualTo(3);
  }

  @Test
  void throwingListenerInsideAllIsIsolatedFromTheOthers() throws Exception {
    RecordingListener second = new RecordingListener();
    EventListener failing = new EventListener() {
      @Override
      public void onEvent(Event e) {
        throw new IllegalStateException("first fails");
      }
    };
    bus.subscribe(EventListener.all(failing, second));
    captureStderr(() -> newCall("c1").cancel("x"));
    assertThat(versions(second.events())).containsExactly(0L, 1L);
  }

  @Test
  void executorListenerNeverBlocksTheChangingThread() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    BlockingRecorder blocked = new BlockingRecorder(release);
    ExecutorService ui = Executors.newSingleThreadExecutor();
    try {
      bus.subscribe(blocked, ui);
      CompletableFuture<ToolCallSnapshot> changer = CompletableFuture.supplyAsync(() -> {
        ToolCall call = newCall("c1");
        call.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
        call.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE);
        call.transition(PERMISSION_APPROVED, RUNNING, Reason.STARTED);
        for (int i = 0; i < 200; i++) {
          call.appendOutput("line", i, 0);
        }
        return call.complete("ok").snapshot();
      }, pool);
      ToolCallSnapshot end = changer.get(10, SECONDS); // finished while the listener is still blocked
      assertThat(end.state()).isEqualTo(COMPLETED);
      assertThat(blocked.events()).as("the listener has not been able to record anything yet").isEmpty();
      release.countDown();
      blocked.awaitVersion("c1", end.version());
      assertThat(versions(blocked.events())).isEqualTo(range(0, end.version()));
    } finally {
      release.countDown();
      ui.shutdownNow();
    }
  }

  @Test
  void listenerThatCallsBackIntoTheSameCallNeitherDeadlocksNorReorders() throws Exception {
    AtomicReference<ToolCall> ref = new AtomicReference<>();
    AtomicReference<TransitionResult<ToolCallSnapshot>> inner = new AtomicReference<>();
    RecordingListener first = new RecordingListener();
    RecordingListener last = new RecordingListener();
    bus.subscribe(first);
    bus.subscribe(new EventListener() {
      @Override
      public void onStateChanged(ToolCallEvent.StateChanged e) {
        if (e.to() == RUNNING) {
          inner.set(ref.get().complete("from the listener"));
        }
      }

      @Override
      public void onOutputAppended(ToolCallEvent.OutputAppended e) {
        long seq = e.change().sequence();
        if (seq < 20) {
          ref.get().appendOutput("more", seq + 1, 0); // nested changes from inside delivery
        }
      }
    });
    bus.subscribe(last);
    CompletableFuture<ToolCallSnapshot> run = CompletableFuture.supplyAsync(() -> {
      ToolCall call = newCall("c1");
      ref.set(call);
      call.transition(PENDING, RUNNING, Reason.STARTED);
      return call.snapshot();
    }, pool);
    ToolCallSnapshot end = run.get(10, SECONDS);
    assertThat(end.state()).isEqualTo(COMPLETED);
    assertThat(inner.get().won()).isTrue();
    for (RecordingListener r : List.of(first, last)) {
      assertThat(versions(r.events())).containsExactly(0L, 1L, 2L);
      assertThat(r.events().get(2)).isInstanceOfSatisfying(ToolCallEvent.StateChanged.class,
          e -> assertThat(e.to()).isEqualTo(COMPLETED));
    }

    // and a chain of nested changes, each made from inside the delivery of the one before
    ToolCall second = CompletableFuture.supplyAsync(() -> {
      ToolCall c = ToolCall.builder("c2", "tool").eventBus(EventBus.create()).build();
      return c;
    }, pool).get(10, SECONDS);
    assertThat(second.state()).isEqualTo(PENDING);
    CompletableFuture.runAsync(() -> {
      ref.set(newCall("c3"));
      ref.get().transition(PENDING, RUNNING, Reason.STARTED); // the listener completes it at once
    }, pool).get(10, SECONDS);
    assertThat(ref.get().state()).isEqualTo(COMPLETED);
  }

  @Test
  void nestedOutputFromInsideDeliveryStaysInOrder() throws Exception {
    RecordingListener first = new RecordingListener();
    RecordingListener last = new RecordingListener();
    AtomicReference<ToolCall> ref = new AtomicReference<>();
    bus.subscribe(first);
    bus.subscribe(new EventListener() {
      @Override
      public void onOutputAppended(ToolCallEvent.OutputAppended e) {
        long seq = e.change().sequence();
        if (seq < 20) {
          ref.get().appendOutput("more", seq + 1, 0);
        }
      }
    });
    bus.subscribe(last);
    CompletableFuture.runAsync(() -> {
      ToolCall call = newCall("c1");
      ref.set(call);
      call.transition(PENDING, RUNNING, Reason.STARTED);
      call.appendOutput("first", 1, 0);
    }, pool).get(10, SECONDS);
    assertThat(ref.get().snapshot().version()).isEqualTo(21);
    for (RecordingListener r : List.of(first, last)) {
      assertThat(versions(r.events())).isEqualTo(range(0, 21));
      assertThat(r.events().subList(2, 22)).extracting(e -> ((ToolCallEvent.OutputAppended) e).change().sequence())
          .isEqualTo(range(1, 20));
    }
  }

  @Test
  void rejectingExecutorMeansInlineDeliveryAndNothingLost() throws Exception {
    List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
    RecordingListener rec = new RecordingListener();
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        threads.add(Thread.currentThread());
        rec.onEvent(event);
      }
    }, command -> {
      throw new RejectedExecutionException("full");
    });
    String log = captureStderr(() -> {
      ToolCall call = newCall("c1");
      call.transition(PENDING, RUNNING, Reason.STARTED);
      call.complete("ok");
    });
    assertThat(versions(rec.events())).containsExactly(0L, 1L, 2L);
    assertThat(threads).containsOnly(Thread.currentThread());
    assertThat(log).contains("rejected");
  }

  @Test
  void executorThatRejectsSometimesLosesNothingAndKeepsOrder() throws Exception {
    AtomicInteger n = new AtomicInteger();
    BlockingRecorder rec = new BlockingRecorder();
    bus.subscribe(rec, command -> {
      if (n.incrementAndGet() % 2 == 0) {
        throw new RejectedExecutionException("every other task");
      }
      pool.execute(command);
    });
    ToolCall call = newCall("c1");
    captureStderr(() -> {
      call.transition(PENDING, RUNNING, Reason.STARTED);
      for (int i = 0; i < 300; i++) {
        call.appendOutput("x", i, 0);
      }
      call.complete("ok");
    });
    rec.awaitVersion("c1", call.snapshot().version());
    assertThat(versions(rec.events())).isEqualTo(range(0, call.snapshot().version()));
  }

  @Test
  void listenerMayCloseItsOwnSubscription() {
    List<Long> seen = new ArrayList<>();
    AtomicReference<Subscription> self = new AtomicReference<>();
    self.set(bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event e) {
        seen.add(e.version());
        if (e.version() == 1) {
          self.get().close();
        }
      }
    }));
    ToolCall call = newCall("c1");
    call.transition(PENDING, RUNNING, Reason.STARTED);
    call.complete("ok");
    assertThat(seen).containsExactly(0L, 1L);
    assertThat(self.get().isClosed()).isTrue();
  }

  @Test
  void nullsAreRejectedNamingTheParameter() {
    assertThatThrownBy(() -> bus.subscribe(null)).isInstanceOf(NullPointerException.class).hasMessage("listener");
    assertThatThrownBy(() -> bus.subscribe(null, pool)).hasMessage("listener");
    assertThatThrownBy(() -> bus.subscribe(EventListener.NONE, null)).hasMessage("executor");
    assertThatThrownBy(() -> bus.publish((Event) null)).hasMessage("event");
    assertThatThrownBy(() -> bus.publish((dev.toolcall.ToolCallSnapshot) null)).hasMessage("version");
    assertThatThrownBy(() -> EventListener.all(EventListener.NONE, null)).hasMessage("listener");
  }

  @Test
  void eventsOfDifferentCallsAreEachInOrder() throws Exception {
    RecordingListener rec = new RecordingListener();
    bus.subscribe(rec);
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<ToolCall>> runs = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      String id = "call-" + t;
      runs.add(CompletableFuture.supplyAsync(() -> {
        await(start);
        ToolCall c = newCall(id);
        c.transition(PENDING, RUNNING, Reason.STARTED);
        for (int i = 0; i < 500; i++) {
          c.appendOutput("x", i, 0);
        }
        c.complete("ok");
        return c;
      }, pool));
    }
    start.countDown();
    for (CompletableFuture<ToolCall> f : runs) {
      ToolCall c = f.get(10, SECONDS);
      assertThat(versions(rec.eventsOf(c.callId()))).isEqualTo(range(0, c.snapshot().version()));
    }
  }

  // -------------------------------------------------------------------------------------------------------------

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, SECONDS)) {
        throw new AssertionError("latch not released within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  /** Runs {@code r} and returns what the bus logged meanwhile (WARN and ERROR, one line each; marked expected). */
  static String captureStderr(ThrowingRunnable r) throws Exception {
    r.run();
    StringBuilder out = new StringBuilder();
    for (Logs.Entry e : Logs.of(EventBus.class)) {
      out.append(e.line()).append('\n');
    }
    return out.toString();
  }

  /** Records events; optionally blocks on a latch in its first invocation; lets a test wait for a version. */
  static final class BlockingRecorder implements EventListener {
    private final CountDownLatch release;
    private final List<Event> events = new ArrayList<>();

    BlockingRecorder() {
      this(new CountDownLatch(0));
    }

    BlockingRecorder(CountDownLatch release) {
      this.release = release;
    }

    @Override
    public void onEvent(Event e) {
      await(release);
      synchronized (this) {
        events.add(e);
        notifyAll();
      }
    }

    synchronized List<Event> events() {
      return List.copyOf(events);
    }

    synchronized void awaitVersion(String source, long v) throws InterruptedException {
      long deadline = System.nanoTime() + SECONDS.toNanos(10);
      while (events.stream().noneMatch(e -> e.sourceId().equals(source) && e.version() >= v)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no event v" + v + " of " + source + " within 10 s; saw " + events);
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }
}
