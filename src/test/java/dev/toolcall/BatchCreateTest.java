package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: a batch scheduled with a call store stores its new calls with one {@link CallStore#createAll} (one
 * write instead of one per call) and publishes each call's PENDING event only after that write; an id the store holds
 * already is refused alone; a failed write refuses the batch whole and publishes nothing; a batch never waits for
 * another's reservation while it holds one of its own unresolved.
 */
class BatchCreateTest {

  /** A store in memory whose {@code createAll} is one all-or-nothing write, as the PostgreSQL store's is. */
  static final class TogetherStore implements CallStore {
    final Map<String, ToolCallSnapshot> rows = new ConcurrentHashMap<>();
    final List<List<String>> createAlls = new CopyOnWriteArrayList<>();
    final AtomicInteger creates = new AtomicInteger();
    final AtomicBoolean failCreateAll = new AtomicBoolean();
    /** When set, a createAll of a batch holding call "a" waits for it (a slow database). */
    volatile CountDownLatch holdA;
    final CountDownLatch aWriting = new CountDownLatch(1);

    static String key(ToolCallSnapshot s) {
      return s.identity().sessionId() + "/" + s.callId();
    }

    @Override
    public boolean create(ToolCallSnapshot first) {
      creates.incrementAndGet();
      return rows.putIfAbsent(key(first), first) == null;
    }

    @Override
    public void createAll(List<ToolCallSnapshot> firsts, boolean[] stored) {
      List<String> ids = firsts.stream().map(ToolCallSnapshot::callId).toList();
      createAlls.add(ids);
      CountDownLatch hold = holdA;
      if (hold != null && ids.contains("a")) {
        aWriting.countDown();
        try {
          assertThat(hold.await(10, TimeUnit.SECONDS)).as("released").isTrue();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      if (failCreateAll.get()) {
        throw new IllegalStateException("the store is down (test)");
      }
      synchronized (this) { // one transaction: the duplicates are told, the others stored together
        for (int i = 0; i < stored.length; i++) {
          stored[i] = rows.putIfAbsent(key(firsts.get(i)), firsts.get(i)) == null;
        }
      }
    }

    @Override
    public boolean compareAndSet(ToolCallSnapshot expected, ToolCallSnapshot next) {
      boolean[] won = new boolean[1];
      rows.computeIfPresent(key(expected), (k, cur) -> {
        if (cur.version() != expected.version()) {
          return cur;
        }
        won[0] = true;
        return next;
      });
      return won[0];
    }
  }

  /**
   * Records each PENDING event of a call the store keeps (not a refused call, published under an id of its own in
   * memory), and whether its version was stored when it was handed off.
   */
  static final class Pendings implements EventListener {
    final TogetherStore store;
    final BlockingQueue<String> pending = new LinkedBlockingQueue<>();
    final List<String> unstored = new CopyOnWriteArrayList<>();

    Pendings(TogetherStore store) {
      this.store = store;
    }

    @Override
    public void onEvent(Event e) {
      if (e instanceof ToolCallEvent t && t.snapshot().version() == 0 && !t.callId().contains("#")) {
        pending.add(t.callId());
        if (store.rows.get(TogetherStore.key(t.snapshot())) == null) {
          unstored.add(t.callId());
        }
      }
    }
  }

  static final AtomicInteger runs = new AtomicInteger();
  /** When set, every tool body waits for it (bounded), so that no call ends before the test has looked. */
  static volatile CountDownLatch gate;

  static ToolCallRuntime runtime(CallStore store) {
    Tool free = Tool.of(ToolDefinition.builder("free").requiresApproval(false).build(), inv -> {
      runs.incrementAndGet();
      CountDownLatch g = gate;
      if (g != null) {
        g.await(10, TimeUnit.SECONDS);
      }
      return ToolResult.of("ran " + inv.callId());
    });
    return ToolCallRuntime.builder().tools(free).callStore(store).build();
  }

  static List<CallRequest> calls(String... ids) {
    List<CallRequest> out = new ArrayList<>();
    for (String id : ids) {
      out.add(CallRequest.of(id, "free", "{}"));
    }
    return out;
  }

  /** One write for the batch; one id stored already (before a restart) is refused alone, the others run. */
  @Test
  void aBatchIsOneWriteAndAnIdStoredAlreadyIsRefusedAlone() throws Exception {
    TogetherStore store = new TogetherStore();
    ToolCallSnapshot before = ToolCallSnapshot.initial(new ToolCallIdentity("d", "free", "s", null,
        java.time.Instant.now(), 0L, ToolCallOrigin.MODEL, "d"), ToolArguments.ofText("{}"));
    store.rows.put("s/d", before);
    Pendings seen = new Pendings(store);
    try (ToolCallRuntime rt = runtime(store)) {
      rt.events().subscribe(seen);
      List<CallResult> results = rt.schedule("s", calls("x", "d", "y")).whenDone().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertThat(store.createAlls).as("one write for the batch").containsExactly(List.of("x", "d", "y"));
      assertThat(store.creates).as("no call created on its own").hasValue(0);
      assertThat(results).extracting(r -> r.snapshot().state())
          .containsExactly(ToolCallState.COMPLETED, ToolCallState.FAILED, ToolCallState.COMPLETED);
      Outcome.Failed dup = (Outcome.Failed) results.get(1).snapshot().outcome();
      assertThat(dup.kind()).isEqualTo(FailureKind.DUPLICATE_CALL);
      assertThat(dup.message()).contains("stored before");
      assertThat(store.rows.get("s/d")).as("the stored call is left alone").isSameAs(before);
      assertThat(store.rows.get("s/x").state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(seen.unstored).as("no PENDING event before its version was stored").isEmpty();
      assertThat(seen.pending).startsWith("x", "y");
    }
  }

  /** The batch's write fails: schedule() throws it, nothing is published or stored, and the ids are free again. */
  @Test
  void aFailedBatchWritePublishesNothingAndRefusesTheBatch() throws Exception {
    TogetherStore store = new TogetherStore();
    Pendings seen = new Pendings(store);
    runs.set(0);
    try (ToolCallRuntime rt = runtime(store)) {
      rt.events().subscribe(seen);
      store.failCreateAll.set(true);
      assertThatThrownBy(() -> rt.schedule("s", calls("p", "q", "r"))).hasMessage("the store is down (test)");
      assertThat(seen.pending).as("nothing published").isEmpty();
      assertThat(store.rows).as("nothing stored").isEmpty();
      assertThat(rt.scheduler().activeCalls()).isEmpty();
      store.failCreateAll.set(false);
      List<CallResult> again = rt.schedule("s", calls("p", "q", "r")).whenDone().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertThat(again).as("the ids were let go: scheduled anew, they run")
          .allSatisfy(r -> assertThat(r.snapshot().state()).isEqualTo(ToolCallState.COMPLETED));
      assertThat(runs).hasValue(3);
      assertThat(seen.unstored).isEmpty();
    }
  }

  /**
   * A batch waits for an id another batch reserved only once its own new calls are stored and published: while the
   * first batch's write (of a and b) is held, the second (b and c) stores and publishes c, then waits for b and
   * gets the first batch's call b, which runs once.
   */
  @Test
  void aBatchWaitsForAnotherBatchsIdOnlyAfterItsOwnCallsAreStored() throws Exception {
    TogetherStore store = new TogetherStore();
    Pendings seen = new Pendings(store);
    CountDownLatch release = new CountDownLatch(1);
    store.holdA = release;
    runs.set(0);
    CountDownLatch toolsMayEnd = new CountDownLatch(1); // b must not end before the second batch has found it
    gate = toolsMayEnd;
    // two threads of its own: the common pool may have one thread, which the held first batch would keep busy
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
    try (ToolCallRuntime rt = runtime(store)) {
      rt.events().subscribe(seen);
      CompletableFuture<Batch> first = CompletableFuture.supplyAsync(() -> rt.schedule("s", calls("a", "b")), threads);
      assertThat(store.aWriting.await(10, TimeUnit.SECONDS)).as("the first batch is writing").isTrue();
      CompletableFuture<Batch> second = CompletableFuture.supplyAsync(() -> rt.schedule("s", calls("b", "c")), threads);
      assertThat(seen.pending.poll(10, TimeUnit.SECONDS)).as("c is stored and published while a and b are held")
          .isEqualTo("c");
      assertThat(second).as("the second batch waits for b").isNotDone();
      release.countDown();
      Batch one = first.get(10, TimeUnit.SECONDS);
      Batch other = second.get(10, TimeUnit.SECONDS);
      toolsMayEnd.countDown();
      one.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      other.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(other.calls().get(0)).as("the same call b").isSameAs(one.calls().get(1));
      assertThat(runs).as("a, b and c, each once").hasValue(3);
      assertThat(seen.unstored).isEmpty();
    } finally {
      release.countDown();
      toolsMayEnd.countDown();
      gate = null;
      threads.shutdownNow();
    }
  }
}
