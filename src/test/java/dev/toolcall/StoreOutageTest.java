package dev.toolcall;

import dev.toolcall.runtime.ToolCallRuntime;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.execution.ToolScheduler;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.Logs;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 26, items 5 and 8: a call store that is unreachable for a while, or refuses a write for good, never leaves a
 * call unended, never lets an exception out of a tool thread, and never runs a tool of a batch that
 * {@code schedule()} did not admit. A store in memory stands in for the database: it can be "down" (every write
 * fails as an unreachable database's does), down for one call only, or refuse a value for good (a failure
 * {@link CallStore#retriable} rules out).
 */
class StoreOutageTest {

  /** A store in memory with an outage switch and a permanent refusal. */
  static final class OutageStore implements CallStore {
    final Map<String, ToolCallSnapshot> rows = new ConcurrentHashMap<>();
    final AtomicBoolean down = new AtomicBoolean();
    /** Writes (create or compare-and-set) that fail as if the store were down, while it is up for the others. */
    volatile Predicate<ToolCallSnapshot> unreachableFor = s -> false;
    /** Writes refused for good (the value cannot be stored). */
    volatile Predicate<ToolCallSnapshot> refused = s -> false;
    final AtomicInteger failedOutput = new AtomicInteger();
    final AtomicInteger failedEnds = new AtomicInteger();
    final AtomicInteger failedOther = new AtomicInteger();
    final AtomicInteger refusals = new AtomicInteger();

    static String key(ToolCallSnapshot s) {
      return s.identity().sessionId() + "/" + s.callId();
    }

    private void unreachable(ToolCallSnapshot next) {
      if (down.get() || unreachableFor.test(next)) {
        (next.change() instanceof Change.OutputAppended ? failedOutput : next.isTerminal() ? failedEnds
            : failedOther).incrementAndGet();
        throw new Unreachable();
      }
    }

    @Override
    public boolean create(ToolCallSnapshot first) {
      unreachable(first);
      return rows.putIfAbsent(key(first), first) == null;
    }

    @Override
    public boolean compareAndSet(ToolCallSnapshot expected, ToolCallSnapshot next) {
      unreachable(next);
      if (refused.test(next)) {
        refusals.incrementAndGet();
        throw new Refused();
      }
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

    @Override
    public boolean retriable(RuntimeException failure) {
      return !(failure instanceof Refused);
    }

    ToolCallSnapshot row(String callId) {
      return rows.get("s/" + callId);
    }
  }

  /** What an unreachable database throws: retriable. */
  static final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreachable() {
      super("the store is unreachable (test outage)");
    }
  }

  /** A value the store can never hold: trying again cannot help ({@link OutageStore#retriable} says so). */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused() {
      super("the value cannot be stored (it holds U+0000)");
    }
  }

  final ExecutorService pool = Executors.newCachedThreadPool();
  /** Whatever a task of the tool executor threw out of it (an "Exception in thread toolcall-tool-N"). */
  final List<Throwable> escaped = new CopyOnWriteArrayList<>();
  final List<ToolCallRuntime> open = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    open.forEach(ToolCallRuntime::close);
    pool.shutdownNow();
  }

  ToolCallRuntime runtime(CallStore store, Tool... tools) {
    Logs.expect(ToolScheduler.class); // the outage's warnings
    ToolCallRuntime r = ToolCallRuntime.builder().tools(tools).callStore(store)
        .scheduler(sb -> sb.executor(task -> pool.execute(() -> {
          try {
            task.run();
          } catch (Throwable t) {
            escaped.add(t);
          }
        }))).build();
    open.add(r);
    return r;
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(until);
      Thread.sleep(5); // polling another thread's progress; nothing asserts on timing
    }
  }

  /**
   * A tool printing live output ends while the store is down: the output flush that fails is neither thrown out of
   * the tool thread nor lost (it is flushed again), the end is written once the store is back, after all the output,
   * and the next call of the batch, which waits for it, gets its turn.
   */
  @Test
  void aLiveOutputToolEndingDuringAnOutageEndsOnceWithAllItsOutputAndTheBatchGoesOn() throws Exception {
    OutageStore store = new OutageStore();
    CountDownLatch firstShown = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    Tool live = Tool.of(ToolDefinition.builder("live").requiresApproval(false).build(), inv -> {
      runs.incrementAndGet();
      inv.output("one\n");
      assertThat(firstShown.await(10, TimeUnit.SECONDS)).isTrue();
      store.down.set(true);
      inv.output("two\n");
      await("the flush during the outage was tried", () -> store.failedOutput.get() >= 1);
      inv.output("three\n");
      return ToolResult.of("done");
    });
    Tool next = Tool.of(ToolDefinition.builder("next").requiresApproval(false).build(),
        inv -> ToolResult.of("next ran"));
    ToolCallRuntime r = runtime(store, live, next);
    List<ToolCallSnapshot> seen = new CopyOnWriteArrayList<>();
    r.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event e) {
        if (e instanceof ToolCallEvent ce && ce.snapshot().callId().equals("c1")) {
          seen.add(ce.snapshot());
          if (ce.snapshot().change() instanceof Change.OutputAppended) {
            firstShown.countDown();
          }
        }
      }
    });
    Batch batch = r.schedule("s", List.of(CallRequest.of("c1", "live", "{}"), CallRequest.of("c2", "next", "{}")));
    await("the end was tried during the outage", () -> store.failedOutput.get() + store.failedEnds.get() >= 2);
    store.down.set(false);

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(results.get(0).snapshot().outcome()).isEqualTo(new Outcome.Completed("done"));
    assertThat(results.get(1).snapshot().outcome()).as("the next call got its turn")
        .isEqualTo(new Outcome.Completed("next ran"));
    StringBuilder printed = new StringBuilder();
    for (ToolCallSnapshot s : seen) {
      if (s.change() instanceof Change.OutputAppended o) {
        assertThat(s.isTerminal()).isFalse();
        printed.append(o.chunk());
      }
    }
    assertThat(printed.toString()).as("every line, once, in order").isEqualTo("one\ntwo\nthree\n");
    assertThat(seen.get(seen.size() - 1).state()).as("the end is the last event").isEqualTo(ToolCallState.COMPLETED);
    assertThat(seen).filteredOn(ToolCallSnapshot::isTerminal).hasSize(1);
    assertThat(store.row("c1").state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(escaped).as("nothing thrown out of a tool thread").isEmpty();
    assertThat(runs).hasValue(1);
  }

  /**
   * The permission check of the second call of a batch cannot be stored (the store fails that call's writes):
   * {@code schedule()} still admits the whole batch; the second call ends cancelled, saying why, once its end can be
   * stored; the first call waits for its approval and runs once. Nothing stays pending.
   */
  @Test
  void aBatchWhosePermissionCheckCannotBeStoredIsAdmittedWholeAndEveryCallEnds() throws Exception {
    OutageStore store = new OutageStore();
    AtomicBoolean secondDown = new AtomicBoolean(true);
    store.unreachableFor = s -> s.callId().equals("c2") && s.version() > 0 && secondDown.get();
    AtomicInteger runs = new AtomicInteger();
    Tool ask = Tool.of(ToolDefinition.builder("ask").build(), inv -> {
      runs.incrementAndGet();
      return ToolResult.of("ran " + inv.callId());
    });
    ToolCallRuntime r = runtime(store, ask);
    Logs.expect(dev.toolcall.permission.PermissionService.class);

    Batch batch = r.schedule("s", List.of(CallRequest.of("c1", "ask", "{}"), CallRequest.of("c2", "ask", "{}")));
    PermissionRequest asked = r.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(asked.callId()).isEqualTo("c1");
    await("the second call's end was tried during its outage", () -> store.failedEnds.get() >= 1);
    secondDown.set(false);
    r.permissions().decide(asked.requestId(), Decision.approveOnce(asked));

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(results.get(0).snapshot().outcome()).isEqualTo(new Outcome.Completed("ran c1"));
    ToolCallSnapshot second = results.get(1).snapshot();
    assertThat(second.state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(second.outcome().messageForModel()).contains("permission").contains("could not be");
    assertThat(store.row("c2").state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(runs).as("only the approved call ran").hasValue(1);
    assertThat(r.permissions().pending()).isEmpty();
  }

  /**
   * The second call of a batch cannot be created in the store: {@code schedule()} throws, and leaves nothing behind:
   * the first call, created already, never runs its tool and ends cancelled once the store takes its end.
   */
  @Test
  void aBatchWhoseCallCannotBeStoredLeavesNothingBehind() throws Exception {
    OutageStore store = new OutageStore();
    AtomicBoolean outage = new AtomicBoolean(true);
    store.unreachableFor = s -> outage.get() && (s.callId().equals("c2") || s.version() > 0);
    AtomicInteger runs = new AtomicInteger();
    Tool free = Tool.of(ToolDefinition.builder("free").requiresApproval(false).build(), inv -> {
      runs.incrementAndGet();
      return ToolResult.of("ran");
    });
    ToolCallRuntime r = runtime(store, free);

    assertThatThrownBy(() -> r.schedule("s", List.of(CallRequest.of("c1", "free", "{}"),
        CallRequest.of("c2", "free", "{}")))).isInstanceOf(Unreachable.class);
    assertThat(store.row("c1")).as("the first call was created before the second failed").isNotNull();
    outage.set(false);

    await("the first call ended in the store", () -> store.row("c1").isTerminal());
    assertThat(store.row("c1").state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(store.row("c1").outcome().messageForModel()).contains("could not be stored");
    assertThat(store.row("c2")).isNull();
    assertThat(runs).as("no tool of a batch schedule() refused ran").hasValue(0);
    await("nothing left active", () -> r.scheduler().activeCalls().isEmpty());
    assertThat(r.scheduler().runningCount()).as("no permit kept").isZero();
  }

  /**
   * A tool fails transiently while the store is down: the record of its retry cannot be written at once, is written
   * when the store is back, and the next attempt runs and completes the call (before, the failed write was thrown out
   * of the run and the call stayed RUNNING for good).
   */
  @Test
  void aRetryWhoseRecordTheStoreFailsRunsWhenTheStoreIsBack() throws Exception {
    OutageStore store = new OutageStore();
    AtomicBoolean outage = new AtomicBoolean(true);
    store.unreachableFor = s -> outage.get() && s.change() instanceof Change.RetryScheduled;
    AtomicInteger attempts = new AtomicInteger();
    Tool flaky = Tool.of(ToolDefinition.builder("flaky").requiresApproval(false)
        .retryPolicy(dev.toolcall.tool.RetryPolicy.exponential(3, Duration.ofMillis(1))).build(), inv -> {
          if (attempts.incrementAndGet() == 1) {
            throw new dev.toolcall.TransientToolException("busy, try again");
          }
          return ToolResult.of("second time lucky");
        });
    ToolCallRuntime r = runtime(store, flaky);

    Batch batch = r.schedule("s", List.of(CallRequest.of("c1", "flaky", "{}")));
    await("the retry's record was tried during the outage", () -> store.failedOther.get() >= 1);
    outage.set(false);

    ToolCallSnapshot end = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS).get(0).snapshot();
    assertThat(end.outcome()).isEqualTo(new Outcome.Completed("second time lucky"));
    assertThat(end.attempt()).isEqualTo(2);
    assertThat(attempts).hasValue(2);
    assertThat(store.row("c1").state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(escaped).isEmpty();
  }

  /**
   * A batch is cancelled while the store is down: no call is left behind (before, the first cancel threw and the calls
   * before it in the batch were never cancelled); each ends cancelled once the store takes it, and no tool runs.
   */
  @Test
  void aBatchCancelledDuringAnOutageEndsEveryCallWhenTheStoreIsBack() throws Exception {
    OutageStore store = new OutageStore();
    AtomicInteger runs = new AtomicInteger();
    Tool ask = Tool.of(ToolDefinition.builder("ask").build(), inv -> {
      runs.incrementAndGet();
      return ToolResult.of("ran");
    });
    ToolCallRuntime r = runtime(store, ask);
    Batch batch = r.schedule("s", List.of(CallRequest.of("c1", "ask", "{}"), CallRequest.of("c2", "ask", "{}"),
        CallRequest.of("c3", "ask", "{}")));
    await("all three asked", () -> r.permissions().pending().size() == 3);

    store.down.set(true);
    batch.cancelAll("the user pressed Esc");
    await("each cancel was tried during the outage", () -> store.failedEnds.get() >= 3);
    store.down.set(false);

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(results).extracting(c -> c.snapshot().state()).containsOnly(ToolCallState.CANCELLED);
    assertThat(List.of("c1", "c2", "c3")).allSatisfy(id ->
        assertThat(store.row(id).state()).isEqualTo(ToolCallState.CANCELLED));
    assertThat(runs).hasValue(0);
    assertThat(r.permissions().pending()).isEmpty();
  }

  /**
   * The store refuses a tool's result for good (trying again cannot help): the call is not retried for ever but ends
   * FAILED, with a reason the model reads, stored.
   */
  @Test
  void aResultTheStoreCannotHoldEndsTheCallFailedWithAReasonForTheModel() throws Exception {
    OutageStore store = new OutageStore();
    store.refused = s -> s.outcome() instanceof Outcome.Completed c && c.content().indexOf('\u0000') >= 0;
    Tool nul = Tool.of(ToolDefinition.builder("nul").requiresApproval(false).build(),
        inv -> ToolResult.of("bad\u0000result"));
    ToolCallRuntime r = runtime(store, nul);

    List<CallResult> results = r.schedule("s", List.of(CallRequest.of("c1", "nul", "{}"))).whenDone()
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    ToolCallSnapshot end = results.get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.FAILED);
    assertThat(end.outcome().messageForModel()).contains("could not be stored")
        .as("the store's own words are for the log, not the model").doesNotContain("U+0000");
    assertThat(store.row("c1").state()).isEqualTo(ToolCallState.FAILED);
    assertThat(store.refusals).as("refused once, not tried for ever").hasValue(1);
    assertThat(Logs.of(ToolScheduler.class)).filteredOn(e -> e.message().contains("retrying cannot fix"))
        .hasSize(1);
  }
}
