package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.CallStoreTest.MapStore;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A call built to be stored with its first change ({@link ToolCall.Builder#storeWithFirstChange()}, what a scheduler
 * builds): nothing of it is stored or published until that change, which is one write holding version 0 in its
 * history; an arguments change before it rides along; a call that has to wait is stored as it stands; an id the store
 * holds already ends the call FAILED duplicate_call, stored nowhere. The invariant every test checks: no event is
 * handed off before its version (or a later one of the same call) is in the store.
 */
class FirstChangeStoreTest {

  /** Records each event's version and whether the store held that version (or a later one) when it was handed off. */
  static final class Witness implements EventListener {
    final MapStore store;
    final List<Long> versions = Collections.synchronizedList(new ArrayList<>());
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());

    Witness(MapStore store) {
      this.store = store;
    }

    @Override
    public void onEvent(Event e) {
      if (!(e instanceof dev.toolcall.event.ToolCallEvent t) || !t.callId().equals("c")) {
        return;
      }
      versions.add(e.version());
      ToolCallSnapshot row = store.rows.get("default/c");
      if (row == null || row.version() < e.version()) {
        violations.add("v" + e.version() + " handed off before it was stored");
      }
    }
  }

  @Test
  void theFirstChangeStoresVersionZeroWithItInOneWrite() {
    MapStore store = new MapStore();
    EventBus bus = EventBus.create();
    Witness w = new Witness(store);
    bus.subscribe(w);
    ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).store(store).storeWithFirstChange().build();
    assertThat(call.snapshot().state()).isEqualTo(ToolCallState.PENDING);
    assertThat(store.rows).as("nothing stored at build").isEmpty();
    assertThat(call.modifyArguments(ToolCallState.PENDING, ToolArguments.ofText("{\"a\":1}"), "streamed").won())
        .isTrue();
    assertThat(store.rows).as("an arguments change rides with the next one").isEmpty();
    assertThat(w.versions).as("nothing published before it is stored").isEmpty();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    ToolCallSnapshot row = store.rows.get("default/c");
    assertThat(row.version()).isEqualTo(2);
    assertThat(row.state()).isEqualTo(ToolCallState.RUNNING);
    assertThat(row.arguments().raw()).isEqualTo("{\"a\":1}");
    assertThat(store.writes).as("the insert is not a compare-and-set").hasValue(0);
    call.complete("done");
    assertThat(w.versions).containsExactly(0L, 1L, 2L, 3L);
    assertThat(w.violations).isEmpty();
    assertThat(store.version("default/c")).isEqualTo(3);
  }

  @Test
  void storeWritesACallThatWaitsAsItStandsAndPublishesIt() {
    MapStore store = new MapStore();
    EventBus bus = EventBus.create();
    Witness w = new Witness(store);
    bus.subscribe(w);
    ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).store(store).storeWithFirstChange().build();
    call.store();
    assertThat(store.version("default/c")).isZero();
    assertThat(w.versions).containsExactly(0L);
    call.store(); // stored already: nothing more
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    assertThat(store.writes).as("then a compare-and-set, as for any stored call").hasValue(1);
    assertThat(w.versions).containsExactly(0L, 1L);
    assertThat(w.violations).isEmpty();
  }

  @Test
  void aFailedFirstWriteChangesNothingAndTheNextStoresIt() {
    MapStore store = new MapStore();
    store.failStarts.set(1); // the first write is a start: the store fails it
    EventBus bus = EventBus.create();
    Witness w = new Witness(store);
    bus.subscribe(w);
    ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).store(store).storeWithFirstChange().build();
    assertThatThrownBy(() -> call.transition(ToolCallState.PENDING, ToolCallState.RUNNING,
        Reason.NO_PERMISSION_NEEDED)).hasMessage("the store is down");
    assertThat(call.snapshot().version()).isZero();
    assertThat(w.versions).isEmpty();
    assertThat(call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED).won())
        .isTrue();
    assertThat(w.versions).containsExactly(0L, 1L);
    assertThat(w.violations).isEmpty();
  }

  @Test
  void anIdTheStoreHoldsEndsTheCallAsADuplicateStoredNowhere() {
    MapStore store = new MapStore();
    ToolCall first = ToolCall.builder("c", "shell").store(store).build();
    EventBus bus = EventBus.create();
    List<ToolCallSnapshot> seen = Collections.synchronizedList(new ArrayList<>());
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event e) {
        seen.add(null);
      }
    });
    ToolCall second = ToolCall.builder("c", "shell").eventBus(bus).store(store).storeWithFirstChange().build();
    var r = second.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    assertThat(r.won()).as("the first change loses to the refusal").isFalse();
    ToolCallSnapshot end = second.snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.FAILED);
    assertThat(((Outcome.Failed) end.outcome()).kind()).isEqualTo(FailureKind.DUPLICATE_CALL);
    assertThat(((Outcome.Failed) end.outcome()).message()).contains("'c' was already used");
    assertThat(seen).as("pending, running, failed: published here").hasSize(3);
    assertThat(store.rows.get("default/c")).as("the stored call is untouched").isEqualTo(first.snapshot());
  }

  /**
   * Through a runtime: a call that waits for a permit (one permit, held by a running tool) is stored PENDING while it
   * waits, and one that starts at once is stored with its start.
   */
  @Test
  void aScheduledCallIsStoredWhenItWaitsAndWithItsStartOtherwise() throws Exception {
    MapStore store = new MapStore();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    Tool slow = Tool.of(ToolDefinition.builder("slow").requiresApproval(false).build(), inv -> {
      started.countDown();
      release.await(10, TimeUnit.SECONDS);
      return ToolResult.of("ok");
    });
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(slow).callStore(store)
        .scheduler(s -> s.maxParallel(1)).build()) {
      Batch a = rt.schedule("s", List.of(CallRequest.of("a", "slow", "{}")));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(store.rows.get("s/a").state()).isEqualTo(ToolCallState.RUNNING);
      assertThat(store.rows.get("s/a").version()).as("pending rode in the insert of running").isEqualTo(1);
      Batch b = rt.schedule("s", List.of(CallRequest.of("b", "slow", "{}")));
      assertThat(store.rows.get("s/b").state()).as("waits for the permit: stored as it stands")
          .isEqualTo(ToolCallState.PENDING);
      release.countDown();
      a.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(store.rows.get("s/b").state()).isEqualTo(ToolCallState.COMPLETED);
    }
  }

  /**
   * The first write races a cancel from another thread, 200 times with a start barrier: exactly one of them is the
   * first change, the call ends once, and no event is handed off before the store holds its version.
   */
  @Test
  void theFirstWriteRacingACancelStoresOneWinnerAndPublishesOnlyStoredVersions() throws Exception {
    for (int round = 0; round < 200; round++) {
      MapStore store = new MapStore();
      EventBus bus = EventBus.create();
      Witness w = new Witness(store);
      bus.subscribe(w);
      ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).store(store).storeWithFirstChange().build();
      CyclicBarrier start = new CyclicBarrier(2);
      boolean[] won = new boolean[2];
      Thread t = new Thread(() -> {
        await(start);
        won[1] = call.cancel("stop").won();
      });
      t.start();
      await(start);
      won[0] = call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED).won();
      t.join(10_000);
      assertThat(won[0] || won[1]).as("round %d: one of them won", round).isTrue();
      ToolCallSnapshot row = store.rows.get("default/c");
      assertThat(row.version()).isEqualTo(call.snapshot().version());
      assertThat(row.state()).isEqualTo(call.snapshot().state());
      assertThat(w.violations).as("round %d", round).isEmpty();
      assertThat(w.versions).as("round %d: each version once, in order", round)
          .isEqualTo(java.util.stream.LongStream.rangeClosed(0, row.version()).boxed().toList());
    }
  }

  private static void await(CyclicBarrier b) {
    try {
      b.await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
