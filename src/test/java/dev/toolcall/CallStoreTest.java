package dev.toolcall;

import dev.toolcall.runtime.ToolCallRuntime;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.testing.Race;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, part 1: a call with a {@link CallStore} writes each change to it before anyone sees the change. An event
 * is handed to listeners only after its version is stored; a failed write changes neither the call nor the events; a
 * write refused because another writer moved on is a {@link StaleCallException}; racing local writers never reach
 * the store with a lost race.
 */
class CallStoreTest {

  /** A store in memory: a map of versions with compare-and-set, and switches to fail or refuse the next write. */
  static final class MapStore implements CallStore {
    final Map<String, ToolCallSnapshot> rows = new ConcurrentHashMap<>();
    final AtomicInteger writes = new AtomicInteger();
    final AtomicBoolean failNext = new AtomicBoolean();
    final AtomicBoolean refuseNext = new AtomicBoolean();
    /** Fails this many writes into an ended state (an outage while a tool ran). */
    final AtomicInteger failEnds = new AtomicInteger();
    /** Fails this many writes into RUNNING (an outage as a tool is about to start). */
    final AtomicInteger failStarts = new AtomicInteger();

    static String key(ToolCallSnapshot s) {
      return s.identity().sessionId() + "/" + s.callId();
    }

    @Override
    public boolean create(ToolCallSnapshot first) {
      if (first.state() == ToolCallState.RUNNING && failStarts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("the store is down"); // a call stored with its start
      }
      return rows.putIfAbsent(key(first), first) == null;
    }

    @Override
    public boolean compareAndSet(ToolCallSnapshot expected, ToolCallSnapshot next) {
      if (failNext.getAndSet(false)) {
        throw new IllegalStateException("the store is down");
      }
      if (next.state() == ToolCallState.RUNNING && expected.state() != ToolCallState.RUNNING
          && failStarts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("the store is down");
      }
      if (next.isTerminal() && failEnds.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("the store is down");
      }
      if (refuseNext.getAndSet(false)) {
        return false;
      }
      boolean[] won = new boolean[1];
      rows.computeIfPresent(key(expected), (k, cur) -> {
        if (cur.version() != expected.version()) {
          return cur;
        }
        won[0] = true;
        writes.incrementAndGet();
        return next;
      });
      return won[0];
    }

    int version(String key) {
      return rows.get(key).version();
    }
  }

  /**
   * The store is down when a tool finishes: the end is written again (backing off) until the store takes it, so the
   * call ends with the tool's own result, once, and is never left RUNNING; the tool ran once.
   */
  @Test
  void anOutageWhenAToolEndsDelaysTheEndAndKeepsTheResult() throws Exception {
    MapStore store = new MapStore();
    store.failEnds.set(3);
    AtomicInteger runs = new AtomicInteger();
    ToolCallSnapshot end = runOneThrough(store, runs, "the result");
    assertThat(end.outcome()).isEqualTo(new Outcome.Completed("the result"));
    assertThat(store.rows.get("s/c1").state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(store.failEnds).hasValue(0);
    assertThat(runs).hasValue(1);
    assertThat(dev.toolcall.testing.Logs.of(dev.toolcall.execution.ToolScheduler.class))
        .filteredOn(e -> e.message().contains("store failed the write")).hasSize(1);
  }

  /**
   * The store is down as a tool is about to start: the claim changed nothing, and the start is tried again (backing
   * off) until the store takes it; the tool then runs once and the call ends with its result, never stuck approved.
   */
  @Test
  void anOutageAsAToolStartsDelaysTheStart() throws Exception {
    MapStore store = new MapStore();
    store.failStarts.set(3);
    AtomicInteger runs = new AtomicInteger();
    ToolCallSnapshot end = runOneThrough(store, runs, "started late");
    assertThat(end.outcome()).isEqualTo(new Outcome.Completed("started late"));
    assertThat(store.failStarts).hasValue(0);
    assertThat(runs).hasValue(1);
    assertThat(dev.toolcall.testing.Logs.of(dev.toolcall.execution.ToolScheduler.class))
        .filteredOn(e -> e.message().contains("could not start")).hasSize(1);
  }

  /**
   * Runs one call of a tool that needs no approval and returns {@code result} (counting its runs) through a runtime
   * on {@code store}; returns how it ended. The scheduler's logs are expected (the tests read them).
   */
  private static ToolCallSnapshot runOneThrough(MapStore store, AtomicInteger runs, String result) throws Exception {
    dev.toolcall.tool.Tool t = dev.toolcall.tool.Tool.of(dev.toolcall.tool.ToolDefinition.builder("t")
        .requiresApproval(false).build(), inv -> {
          runs.incrementAndGet();
          return dev.toolcall.ToolResult.of(result);
        });
    dev.toolcall.testing.Logs.expect(dev.toolcall.execution.ToolScheduler.class);
    try (ToolCallRuntime r = ToolCallRuntime.builder().tools(t).callStore(store).build()) {
      var batch = r.schedule("s", List.of(dev.toolcall.execution.CallRequest.of("c1", "t", "{}")));
      return batch.whenDone().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS).get(0).snapshot();
    }
  }

  @Test
  void everyEventIsHandedOffOnlyAfterItsVersionIsStored() {
    MapStore store = new MapStore();
    EventBus bus = EventBus.create();
    List<String> violations = new ArrayList<>();
    List<Long> versions = new ArrayList<>();
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event e) {
        versions.add(e.version());
        if (store.version("default/c") < e.version()) {
          violations.add("v" + e.version() + " handed off before it was stored");
        }
      }
    });
    ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).store(store).build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    call.appendOutput("hi\n", 1, 0);
    call.complete("done");
    assertThat(violations).isEmpty();
    assertThat(versions).containsExactly(0L, 1L, 2L, 3L);
    assertThat(store.version("default/c")).isEqualTo(3);
    assertThat(store.rows.get("default/c").state()).isEqualTo(ToolCallState.COMPLETED);
  }

  @Test
  void aFailedWriteChangesNeitherTheCallNorTheEvents() {
    MapStore store = new MapStore();
    RecordingListener rec = new RecordingListener();
    EventBus bus = EventBus.create();
    bus.subscribe(rec);
    ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).store(store).build();
    ToolCallSnapshot before = call.snapshot();
    store.failNext.set(true);
    assertThatThrownBy(() -> call.transition(ToolCallState.PENDING, ToolCallState.RUNNING,
        Reason.NO_PERMISSION_NEEDED)).isInstanceOf(IllegalStateException.class).hasMessage("the store is down");
    assertThat(call.snapshot()).isSameAs(before);
    assertThat(rec.events()).hasSize(1);
    assertThat(call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED).won())
        .as("the store is back: the same change goes through").isTrue();
    assertThat(rec.events()).extracting(Event::version).containsExactly(0L, 1L);
  }

  @Test
  void aWriteAnotherWriterBeatIsStaleAndChangesNothing() {
    MapStore store = new MapStore();
    ToolCall call = ToolCall.builder("c", "shell").store(store).build();
    store.refuseNext.set(true);
    assertThatThrownBy(() -> call.cancel("stop")).isInstanceOf(StaleCallException.class)
        .hasMessageContaining("default/c").hasMessageContaining("after version 0");
    assertThat(call.state()).isEqualTo(ToolCallState.PENDING);
    assertThatThrownBy(() -> ToolCall.builder("c", "shell").store(store).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("stored already");
  }

  /**
   * Invariant: four threads racing changes on one call with a store: each change that won was stored once, in
   * version order (the store's row ends at the call's version, one write per version), and listeners get every
   * version once, in order.
   */
  @Test
  void racingLocalWritersReachTheStoreOnlyWithWinningChanges() throws Exception {
    MapStore store = new MapStore();
    RecordingListener rec = new RecordingListener();
    EventBus bus = EventBus.create();
    bus.subscribe(rec);
    ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).store(store).build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    Race.run(4, Duration.ofSeconds(60), me -> {
      for (int i = 1; i <= 500; i++) {
        call.appendOutput(me + ":" + i + "\n", i, 0);
      }
    });
    call.complete("done");
    int last = call.snapshot().version();
    assertThat(last).isEqualTo(2 + 2_000);
    assertThat(store.version("default/c")).isEqualTo(last);
    assertThat(store.writes).as("one store write per version after the first").hasValue(last);
    assertThat(rec.events()).extracting(Event::version).hasSize(last + 1);
  }

  @Test
  void aRuntimeWithAStoreStoresEveryCallAtItsLastVersion() {
    MapStore store = new MapStore();
    Tool read = Tool.of(ToolDefinition.builder("read").readOnly(true).requiresApproval(false).build(),
        inv -> ToolResult.of("read"));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(read).callStore(store).build()) {
      List<CallResult> results = runtime.schedule("s", List.of(CallRequest.of("a", "read", "{}"),
          CallRequest.of("b", "nope", "{}"))).join();
      for (CallResult r : results) {
        assertThat(store.rows.get("s/" + r.callId())).as(r.callId()).isEqualTo(r.snapshot());
      }
      assertThat(results).extracting(r -> r.snapshot().state())
          .containsExactly(ToolCallState.COMPLETED, ToolCallState.FAILED);
    }
  }
}
