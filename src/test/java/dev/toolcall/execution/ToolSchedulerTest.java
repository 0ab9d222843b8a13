package dev.toolcall.execution;

import dev.toolcall.testing.Logs;
import static dev.toolcall.testing.HostileTools.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.testing.HostileTools.Counting;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ToolSchedulerTest {
  final EventBus bus = EventBus.create();
  final RecordingListener rec = new RecordingListener();
  final List<ToolScheduler> open = new ArrayList<>();

  ToolScheduler scheduler(ToolScheduler.Builder b, Tool... tools) {
    bus.subscribe(rec);
    ToolScheduler s = b.validator(new TestValidator(tools)).eventBus(bus).build();
    open.add(s);
    return s;
  }

  ToolScheduler scheduler(Tool... tools) {
    return scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL), tools);
  }

  @AfterEach
  void closeAll() {
    open.forEach(s -> s.close(Duration.ofSeconds(1)));
  }

  static List<CallResult> await(Batch b) throws Exception {
    return b.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  @Test
  void resultsComeBackInRequestOrderWithEveryCallTerminal() throws Exception {
    Counting a = echo("read_a", true);
    Counting b = echo("read_b", true);
    ToolScheduler s = scheduler(a.tool, b.tool);
    Batch batch = s.schedule("s1", List.of(CallRequest.of("1", "read_b", "{\"x\":1}"),
        CallRequest.of("2", "read_a", "{}"), CallRequest.of("3", "nope", "{}")));
    List<CallResult> results = await(batch);
    assertThat(results).extracting(CallResult::callId).containsExactly("1", "2", "3");
    assertThat(results.get(0).outcome()).isEqualTo(new Outcome.Completed("read_b:{\"x\":1}"));
    assertThat(results.get(2).outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.UNKNOWN_TOOL));
    assertThat(results.get(2).snapshot().history()).extracting(t -> t.to())
        .containsExactly(ToolCallState.RUNNING, ToolCallState.FAILED);
    assertThat(a.entries).hasValue(1);
    assertThat(b.entries).hasValue(1);
  }

  @Test
  void readOnlyCallsOverlap() throws Exception {
    CountDownLatch both = new CountDownLatch(2);
    Tool overlap = Tool.of(def("r").readOnly(true).build(), inv -> {
      both.countDown();
      // each waits for the other to have entered: only possible if they run at the same time
      return ToolResult.of(String.valueOf(both.await(10, TimeUnit.SECONDS)));
    });
    ToolScheduler s = scheduler(overlap);
    List<CallResult> r = await(s.schedule("s", List.of(CallRequest.of("1", "r", "{}"), CallRequest.of("2", "r", "{}"))));
    assertThat(r).extracting(x -> x.outcome()).containsOnly(new Outcome.Completed("true"));
  }

  @Test
  void writesNeverOverlapAndRunInRequestOrder() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    List<String> order = new CopyOnWriteArrayList<>();
    Tool write = Tool.of(def("w").build(), inv -> {
      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
      order.add(inv.callId());
      Thread.yield();
      inside.decrementAndGet();
      return ToolResult.of("ok");
    });
    Tool read = Tool.of(def("r").readOnly(true).build(), inv -> {
      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
      order.add(inv.callId());
      inside.decrementAndGet();
      return ToolResult.of("ok");
    });
    ToolScheduler s = scheduler(write, read);
    List<CallRequest> reqs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      reqs.add(CallRequest.of("c" + i, i % 3 == 0 ? "r" : "w", "{}"));
    }
    await(s.schedule("s", reqs));
    // a write waits for everything before it, and everything after waits for it
    List<Integer> writes = order.stream().map(id -> Integer.parseInt(id.substring(1))).filter(i -> i % 3 != 0)
        .toList();
    assertThat(writes).isSorted();
    assertThat(maxInside.get()).as("reads overlap at most with reads").isLessThanOrEqualTo(8);
    for (int i = 0; i < order.size(); i++) {
      int idx = Integer.parseInt(order.get(i).substring(1));
      if (idx % 3 != 0) {
        assertThat(order.subList(0, i)).as("all calls before write %s ran before it", idx)
            .hasSize(idx);
      }
    }
  }

  @Test
  void sequentialOrderRunsOneAtATime() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    Tool r = Tool.of(def("r").readOnly(true).build(), inv -> {
      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
      Thread.yield();
      inside.decrementAndGet();
      return ToolResult.of("ok");
    });
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL)
        .executionOrder(ExecutionOrder.SEQUENTIAL), r);
    List<CallRequest> reqs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      reqs.add(CallRequest.of("c" + i, "r", "{}"));
    }
    await(s.schedule("s", reqs));
    assertThat(maxInside).hasValue(1);
  }

  @Test
  void invalidCallsFailWithoutEnteringTheTool() throws Exception {
    Counting c = new Counting(def("t").parameters(new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree("{\"type\":\"object\",\"required\":[\"path\"]}")).build(), inv -> ToolResult.of("x"));
    ToolScheduler s = scheduler(c.tool);
    List<CallResult> r = await(s.schedule("s", List.of(CallRequest.of("1", "t", "{bad"),
        CallRequest.of("2", "t", "{}"), CallRequest.of("3", "T", "{}"))));
    assertThat(r).extracting(x -> ((Outcome.Failed) x.outcome()).kind())
        .containsExactly(FailureKind.MALFORMED_ARGUMENTS, FailureKind.INVALID_ARGUMENTS, FailureKind.UNKNOWN_TOOL);
    assertThat(c.entries).hasValue(0);
  }

  @Test
  void throwsNullAndErrorsEndFailedWithTypedKinds() throws Exception {
    Logs.expect(ToolScheduler.class); // the Errors are logged
    Counting t1 = throwing("t1", toolError("disk full"));
    Counting t2 = throwing("t2", new IllegalStateException("secret=hunter2", new RuntimeException("cause")));
    Counting t3 = returningNull("t3");
    Counting t4 = throwingError("t4", new NoClassDefFoundError("com/example/Missing"));
    Counting t5 = throwingError("t5", new StackOverflowError("deep"));
    ToolScheduler s = scheduler(t1.tool, t2.tool, t3.tool, t4.tool, t5.tool);
    List<CallResult> r = await(s.schedule("s", List.of(CallRequest.of("1", "t1", "{}"),
        CallRequest.of("2", "t2", "{}"), CallRequest.of("3", "t3", "{}"), CallRequest.of("4", "t4", "{}"),
        CallRequest.of("5", "t5", "{}"))));
    assertThat(r.get(4).outcome()).as("a VirtualMachineError still ends the call").isInstanceOfSatisfying(
        Outcome.Failed.class, f -> assertThat(f.kind()).isEqualTo(FailureKind.INTERNAL_ERROR));
    assertThat(r.get(0).outcome()).isEqualTo(new Outcome.Failed(FailureKind.TOOL_ERROR, "disk full"));
    assertThat(r.get(1).outcome()).isEqualTo(
        new Outcome.Failed(FailureKind.TOOL_ERROR, "IllegalStateException: secret=hunter2"));
    assertThat(r.get(1).messageForModel()).doesNotContain("cause").doesNotContain("at dev.");
    assertThat(r.get(2).outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.NULL_RESULT));
    assertThat(r.get(3).outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.INTERNAL_ERROR));
  }

  @Test
  void errorTextHookDecidesWhatTheModelIsTold() throws Exception {
    Counting t = throwing("t", new IllegalStateException("password=swordfish"));
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL)
        .errorText(e -> "the tool failed (" + e.getClass().getSimpleName() + ")"), t.tool);
    CallResult r = await(s.schedule("s", List.of(CallRequest.of("1", "t", "{}")))).get(0);
    assertThat(r.messageForModel()).contains("the tool failed (IllegalStateException)").doesNotContain("swordfish");
  }

  @Test
  void timeoutFailsTheCallAndInterruptsTheTool() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    Counting slow = new Counting(def("slow").timeout(Duration.ofMillis(50)).build(), inv -> {
      entered.countDown();
      never.await();
      return ToolResult.of("x");
    });
    ToolScheduler s = scheduler(slow.tool);
    CallResult r = await(s.schedule("s", List.of(CallRequest.of("1", "slow", "{}")))).get(0);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.TIMEOUT);
      assertThat(f.message()).contains("50 ms");
    });
    assertThat(waitFor(() -> slow.exits.get() == 1)).as("the interrupted tool returned").isTrue();
  }

  @Test
  void transientFailuresAreRetriedWithEventsAndNoOverlap() throws Exception {
    Counting flaky = flaky("flaky", 2, 5);
    ToolScheduler s = scheduler(flaky.tool);
    CallResult r = await(s.schedule("s", List.of(CallRequest.of("1", "flaky", "{}")))).get(0);
    assertThat(r.outcome()).isEqualTo(new Outcome.Completed("ok on attempt 3"));
    assertThat(r.snapshot().attempt()).isEqualTo(3);
    List<ToolCallEvent.RetryScheduled> retries = rec.eventsOf("1").stream()
        .filter(e -> e instanceof ToolCallEvent.RetryScheduled).map(e -> (ToolCallEvent.RetryScheduled) e).toList();
    assertThat(retries).extracting(e -> e.change().nextAttempt()).containsExactly(2, 3);
    assertThat(retries).allSatisfy(e -> assertThat(e.change().delay()).isPositive());
    assertThat(flaky.entries).hasValue(3);
    assertThat(flaky.exits).hasValue(3);
  }

  @Test
  void retriesRunOutIntoFailure() throws Exception {
    Counting flaky = flaky("flaky", 10, 3);
    ToolScheduler s = scheduler(flaky.tool);
    CallResult r = await(s.schedule("s", List.of(CallRequest.of("1", "flaky", "{}")))).get(0);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.TOOL_ERROR);
      assertThat(f.message()).contains("gave up after 3 attempts");
    });
    assertThat(flaky.entries).hasValue(3);
  }

  @Test
  void cancelDuringRunEndsAtOnceAndDiscardsTheLateResult() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    Counting late = lateAfterInterrupt("late", entered);
    ToolScheduler s = scheduler(late.tool);
    Batch b = s.schedule("s", List.of(CallRequest.of("1", "late", "{}")));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(b.cancelAll("user pressed esc")).isEqualTo(1);
    assertThat(b.calls().get(0).state()).isEqualTo(ToolCallState.CANCELLED);
    CallResult r = await(b).get(0);
    assertThat(r.outcome()).isEqualTo(new Outcome.Cancelled("user pressed esc"));
    assertThat(waitFor(() -> s.stats().discardedResults() == 1)).isTrue();
    assertThat(b.calls().get(0).snapshot().outcome()).isEqualTo(new Outcome.Cancelled("user pressed esc"));
  }

  @Test
  void aToolIgnoringInterruptsDoesNotHoldItsPermit() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    Counting spin = spinning("spin", entered, stop);
    Counting next = echo("next", false);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL).maxParallel(1)
        .executionOrder(ExecutionOrder.PARALLEL), spin.tool, next.tool);
    try {
      Batch b1 = s.schedule("s", List.of(CallRequest.of("1", "spin", "{}")));
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      b1.cancelAll("stop");
      assertThat(s.stats().stillRunningAbandoned()).isEqualTo(1);
      CallResult r = await(s.schedule("s", List.of(CallRequest.of("2", "next", "{}")))).get(0);
      assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
    } finally {
      stop.set(true);
    }
    assertThat(waitFor(() -> s.stats().stillRunningAbandoned() == 0)).isTrue();
    assertThat(waitFor(() -> s.stats().discardedResults() == 1)).isTrue();
  }

  @Test
  void rejectingExecutorFailsTheCallInsteadOfLeavingItStuck() throws Exception {
    Counting t = echo("t", false);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL)
        .executor(r -> {
          throw new java.util.concurrent.RejectedExecutionException("full");
        }), t.tool);
    CallResult r = await(s.schedule("s", List.of(CallRequest.of("1", "t", "{}")))).get(0);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.EXECUTOR_REJECTED));
    assertThat(t.entries).hasValue(0);
    assertThat(s.stats().executorRejections()).isEqualTo(1);
  }

  @Test
  void duplicateIdsRunOnce() throws Exception {
    Counting t = echo("t", false);
    ToolScheduler s = scheduler(t.tool);
    List<CallResult> r = await(s.schedule("s", List.of(CallRequest.of("1", "t", "{\"a\":1}"),
        CallRequest.of("1", "t", "{\"a\":2}"))));
    assertThat(r.get(0).outcome()).isEqualTo(new Outcome.Completed("t:{\"a\":1}"));
    assertThat(r.get(1).outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.DUPLICATE_CALL));
    List<CallResult> again = await(s.schedule("s", List.of(CallRequest.of("1", "t", "{\"a\":3}"))));
    assertThat(again.get(0).outcome()).as("the id of an ended call: refused, for the model to read")
        .isInstanceOfSatisfying(Outcome.Failed.class, f -> {
          assertThat(f.kind()).isEqualTo(FailureKind.DUPLICATE_CALL);
          assertThat(f.message()).contains("'1' was already used", "ended completed");
        });
    assertThat(t.entries).hasValue(1);
    // the original's events were never mixed with the duplicate's
    assertThat(rec.eventsOf("1")).extracting(e -> e.version()).containsExactly(0L, 1L, 2L);
  }

  /**
   * The window of known call ids lets go of ended calls only: a call still running stays known however many calls
   * come after it, so scheduling its id again returns it and runs nothing twice; a recent ended call's id is known
   * too, and its reuse is refused without running anything.
   */
  @Test
  void aCallNotYetEndedStaysKnownAfterManyLaterCalls() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Counting block = blocking("block", entered, release);
    Counting quick = echo("quick", true);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL)
        .executionOrder(ExecutionOrder.PARALLEL), block.tool, quick.tool);
    Batch first = s.schedule("s", List.of(CallRequest.of("keep", "block", "{}")));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    for (int b = 0; b < 60; b++) {
      List<CallRequest> reqs = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        reqs.add(CallRequest.of("q" + b + "-" + i, "quick", "{}"));
      }
      await(s.schedule("s", reqs));
    }
    Batch again = s.schedule("s", List.of(CallRequest.of("keep", "block", "{}"), CallRequest.of("q59-99", "quick",
        "{}")));
    assertThat(again.calls().get(0)).isSameAs(first.calls().get(0));
    assertThat(again.calls().get(1).state()).isEqualTo(ToolCallState.FAILED);
    release.countDown();
    assertThat(await(again)).extracting(r -> r.snapshot().state())
        .containsExactly(ToolCallState.COMPLETED, ToolCallState.FAILED);
    assertThat(block.entries).hasValue(1);
    assertThat(quick.entries).hasValue(6000);
  }

  /** Every call of a batch is created before any tool of the batch is entered, even on the caller's thread. */
  @Test
  void aBatchIsCreatedBeforeAnyOfItsToolsRuns() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    bus.subscribe(new dev.toolcall.event.EventListener() {
      @Override
      public void onEvent(dev.toolcall.event.Event e) {
        if (e instanceof ToolCallEvent.CallCreated c) {
          seen.add("created " + c.callId());
        }
      }
    });
    Tool t = Tool.of(def("t").readOnly(true).build(), inv -> {
      seen.add("entered " + inv.callId());
      return ToolResult.of("ok");
    });
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL).executor(Runnable::run), t);
    List<CallResult> r = await(s.schedule("s", List.of(CallRequest.of("1", "t", "{}"), CallRequest.of("2", "t", "{}"),
        CallRequest.of("3", "t", "{}"))));
    assertThat(r).extracting(x -> x.snapshot().state()).containsOnly(ToolCallState.COMPLETED);
    assertThat(seen).containsExactly("created 1", "created 2", "created 3", "entered 1", "entered 2", "entered 3");
  }

  /** The window keeps the last N ended calls: an id repeated within it returns the call, one older runs anew. */
  @Test
  void anEndedCallsIdIsRefusedForTheModelAndAnIdOlderThanTheWindowIsScheduledAnew() throws Exception {
    Counting t = echo("t", true);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL).executor(Runnable::run)
        .knownCallsWindow(2), t.tool);
    List<ToolCall> first = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      Batch b = s.schedule("s", List.of(CallRequest.of(id, "t", "{}")));
      assertThat(await(b).get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      first.add(b.calls().get(0));
    }
    assertThat(s.known.calls()).as("the window keeps ids of ended calls, not the calls").isEmpty();
    Batch recent = s.schedule("s", List.of(CallRequest.of("c", "t", "{}")));
    assertThat(recent.calls().get(0)).isNotSameAs(first.get(2));
    assertThat(await(recent).get(0).outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.DUPLICATE_CALL);
      assertThat(f.message()).contains("'c' was already used", "ended completed", "not run");
    });
    assertThat(t.entries).hasValue(3);
    Batch old = s.schedule("s", List.of(CallRequest.of("a", "t", "{}")));
    assertThat(old.calls().get(0)).isNotSameAs(first.get(0));
    assertThat(await(old).get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(t.entries).hasValue(4);
  }

  /**
   * Issue 14, defect 8: the window of known ids keeps ids, not calls. Calls with 64 KB results, once ended and let go
   * by the caller, are collected although their ids are still in the window.
   */
  @Test
  void theWindowOfKnownIdsLetsEndedCallsBeCollected() throws Exception {
    String big = "r".repeat(64 * 1024);
    Tool tool = Tool.of(def("big").build(), inv -> ToolResult.of(big + inv.arguments().raw()));
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL).executor(Runnable::run),
        tool);
    List<java.lang.ref.WeakReference<ToolCall>> refs = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Batch b = s.schedule("s", List.of(CallRequest.of("id" + i, "big", "{\"n\":" + i + "}")));
      assertThat(await(b).get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      refs.add(new java.lang.ref.WeakReference<>(b.calls().get(0)));
    }
    assertThat(s.known.size()).isEqualTo(200);
    for (int i = 0; i < 50 && refs.stream().anyMatch(r -> r.get() != null); i++) {
      System.gc();
      Thread.sleep(10); // lets the collector clear references; a measurement, not a race
    }
    assertThat(refs).as("no ended call is kept reachable by the scheduler").allMatch(r -> r.get() == null);
  }

  @Test
  void floodOfOutputIsCoalescedBoundedAndOrderedBeforeTheResult() throws Exception {
    Counting flood = flooding("flood", 50_000);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL).maxPendingOutput(4096)
        .outputFlushInterval(Duration.ofMillis(5)), flood.tool);
    CallResult r = await(s.schedule("s", List.of(CallRequest.of("1", "flood", "{}")))).get(0);
    assertThat(r.outcome()).isEqualTo(new Outcome.Completed("flooded"));
    List<ToolCallEvent.OutputAppended> chunks = rec.eventsOf("1").stream()
        .filter(e -> e instanceof ToolCallEvent.OutputAppended).map(e -> (ToolCallEvent.OutputAppended) e).toList();
    assertThat(chunks).isNotEmpty();
    assertThat(chunks.size()).as("coalesced").isLessThan(50_000);
    assertThat(chunks).extracting(c -> c.change().sequence()).isSorted();
    long delivered = chunks.stream().mapToLong(c -> c.change().chunk().split("\n").length).sum();
    long dropped = chunks.stream().mapToLong(c -> c.change().dropped()).sum();
    assertThat(delivered + dropped).isEqualTo(50_000);
    assertThat(s.stats().droppedOutputWrites()).isEqualTo(dropped);
    // every output event precedes the terminal event
    var events = rec.eventsOf("1");
    assertThat(events.get(events.size() - 1)).isInstanceOf(ToolCallEvent.StateChanged.class);
  }

  @Test
  void interceptorsBlockReplaceAndRedact() throws Exception {
    Counting t = echo("t", false);
    ToolInterceptor guard = new ToolInterceptor() {
      @Override
      public Before before(ToolCallSnapshot call) {
        String raw = call.arguments().raw();
        if (raw.contains("rm")) {
          return Before.block("rm is not allowed here");
        }
        if (raw.contains("old")) {
          return Before.replace(ToolArguments.ofJson(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
              .objectNode().put("v", "new")));
        }
        return Before.PROCEED;
      }

      @Override
      public ToolResult after(ToolCallSnapshot call, ToolResult result) {
        return ToolResult.of(result.content().replace("secret", "[redacted]"));
      }
    };
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL).interceptor(guard), t.tool);
    List<CallResult> r = await(s.schedule("s", List.of(CallRequest.of("1", "t", "{\"c\":\"rm -rf\"}"),
        CallRequest.of("2", "t", "{\"v\":\"old\"}"), CallRequest.of("3", "t", "{\"v\":\"secret\"}"))));
    assertThat(r.get(0).outcome()).isEqualTo(new Outcome.Failed(FailureKind.BLOCKED, "rm is not allowed here"));
    assertThat(r.get(1).outcome()).isEqualTo(new Outcome.Completed("t:{\"v\":\"new\"}"));
    assertThat(rec.eventsOf("2")).anyMatch(e -> e instanceof ToolCallEvent.ArgumentsModified);
    assertThat(r.get(2).outcome()).isEqualTo(new Outcome.Completed("t:{\"v\":\"[redacted]\"}"));
    assertThat(t.entries).hasValue(2);
  }

  @Test
  void cancelSiblingsPolicyCancelsTheRestWhenOneFails() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Counting block = blocking("block", entered, release);
    Counting bad = throwing("bad", toolError("boom"));
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL)
        .executionOrder(ExecutionOrder.PARALLEL).failurePolicy(FailurePolicy.CANCEL_SIBLINGS), block.tool, bad.tool);
    Batch b = s.schedule("s", List.of(CallRequest.of("1", "block", "{}"), CallRequest.of("2", "bad", "{}")));
    List<CallResult> r = await(b);
    release.countDown();
    assertThat(r.get(1).outcome()).isInstanceOf(Outcome.Failed.class);
    assertThat(r.get(0).outcome()).isInstanceOfSatisfying(Outcome.Cancelled.class,
        c -> assertThat(c.reason()).contains("call 2"));
  }

  @Test
  void closeCancelsPendingApprovalsAndReturnsDespiteAStuckTool() throws Exception {
    Logs.expect(ToolScheduler.class); // the stuck tool is reported
    // other test classes in this JVM may leave their own schedulers' threads; only this scheduler's must be gone
    java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
    CountDownLatch entered = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    Counting spin = spinning("spin", entered, stop);
    Counting asks = new Counting(def("asks").requiresApproval(true).build(), inv -> ToolResult.of("ran"));
    java.util.concurrent.CompletableFuture<ToolCallSnapshot> never = new java.util.concurrent.CompletableFuture<>();
    Authorizer waitsForever = (call, d) -> d.requiresApproval() ? never : Authorizer.ALLOW_ALL.authorize(call, d);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(waitsForever)
        .executionOrder(ExecutionOrder.PARALLEL), spin.tool, asks.tool);
    Batch b = s.schedule("s", List.of(CallRequest.of("1", "spin", "{}"), CallRequest.of("2", "asks", "{}")));
    try {
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      s.close(Duration.ofMillis(100));
      List<CallResult> r = await(b);
      assertThat(r).extracting(x -> x.snapshot().state()).containsOnly(ToolCallState.CANCELLED);
      // an approval arriving after close must not run the tool
      never.complete(b.calls().get(1).snapshot());
      assertThat(asks.entries).hasValue(0);
      List<CallResult> after = await(s.schedule("s", List.of(CallRequest.of("3", "spin", "{}"))));
      assertThat(after.get(0).snapshot().state()).isEqualTo(ToolCallState.CANCELLED);
    } finally {
      stop.set(true);
    }
    assertThat(waitFor(() -> Thread.getAllStackTraces().keySet().stream()
        .noneMatch(t -> t.getName().startsWith("toolcall-scheduler") && !before.contains(t)))).isTrue();
  }

  @Test
  void badProgrammingInputThrowsAtOnce() {
    assertThatThrownBy(() -> ToolScheduler.builder().maxParallel(0)).hasMessageContaining("maxParallel");
    assertThatThrownBy(() -> ToolScheduler.builder().defaultTimeout(Duration.ZERO))
        .hasMessageContaining("defaultTimeout");
    assertThatThrownBy(() -> ToolScheduler.builder().validator(new TestValidator()).build())
        .hasMessageContaining("authorizer");
    assertThatThrownBy(() -> CallRequest.of(" ", "t", "{}")).hasMessageContaining("callId");
  }

  /** Polls a condition with a bounded wait (for effects that happen on other threads after the batch completes). */
  static boolean waitFor(java.util.function.BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (cond.getAsBoolean()) {
        return true;
      }
      Thread.sleep(5);
    }
    return cond.getAsBoolean();
  }
}
