package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.Reason;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventBus;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;

/**
 * Properties of mixed batches: read-only and ordered calls, tool failures, denials, cancels and unknown tools.
 *
 * <p>Invariants proved for every generated batch:
 * <ul>
 *   <li>the batch completes, with exactly one result per request, in request order;</li>
 *   <li>every call is terminal, and its terminal state agrees with its plan (denied calls never run, unknown tools
 *       never run, failing tools fail, cancelled calls end CANCELLED or finished first);</li>
 *   <li>calls that are not read-only never overlap with any other call (PARALLEL_READS), except the body of a call
 *       already cancelled (an abandoned attempt, which by design no longer holds its turn or permit) on either side;</li>
 *   <li>no tool is entered more than once per call, and never for a denied or invalid call;</li>
 *   <li>every subscriber sees each call's events in version order, ending with the terminal one.</li>
 * </ul>
 */
class BatchProperties {

  enum Plan { READ, WRITE, FAIL, DENY, UNKNOWN, CANCEL }

  record Step(Plan plan, boolean readOnly) {}

  private final List<ToolScheduler> open = new ArrayList<>();

  @AfterTry
  void close() {
    open.forEach(s -> s.close(Duration.ofSeconds(1)));
    open.clear();
  }

  @Provide
  Arbitrary<List<Step>> batches() {
    Arbitrary<Step> step = Combinators.combine(Arbitraries.of(Plan.class), Arbitraries.of(true, false))
        .as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(12);
  }

  @Property(tries = 60)
  void batchesAlwaysCompleteInOrderWithOneResultEach(@ForAll("batches") List<Step> steps) throws Exception {
    Map<String, Boolean> inside = new ConcurrentHashMap<>(); // call id -> is a writer
    java.util.Set<String> cancelled = ConcurrentHashMap.newKeySet();
    List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    Map<String, AtomicInteger> entries = new ConcurrentHashMap<>();
    Tool.Blocking body = inv -> {
      entries.computeIfAbsent(inv.callId(), k -> new AtomicInteger()).incrementAndGet();
      boolean ro = inv.toolName().startsWith("r");
      inside.put(inv.callId(), !ro);
      inside.forEach((other, otherWrites) -> {
        if (!other.equals(inv.callId()) && !cancelled.contains(other) && !cancelled.contains(inv.callId())
            && (!ro || otherWrites)) {
          violations.add((ro ? "reader " : "writer ") + inv.callId() + " overlapped " + other);
        }
      });
      Thread.yield();
      inside.remove(inv.callId());
      if (inv.toolName().endsWith("fail")) {
        throw new ToolException("planned failure");
      }
      return ToolResult.of("ok " + inv.callId());
    };
    List<Tool> tools = new ArrayList<>();
    for (String n : List.of("r_ok", "r_fail", "w_ok", "w_fail")) {
      tools.add(Tool.of(ToolDefinition.builder(n).readOnly(n.startsWith("r")).requiresApproval(true).build(), body));
    }
    Authorizer auth = (call, d) -> {
      if (call.callId().startsWith("DENY")) {
        call.transition(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
        call.deny(DenialSource.USER, "no");
        return CompletableFuture.completedFuture(call.snapshot());
      }
      return Authorizer.ALLOW_ALL.authorize(call, d);
    };
    EventBus bus = EventBus.create();
    RecordingListener rec = new RecordingListener();
    bus.subscribe(rec);
    bus.subscribe(new dev.toolcall.event.EventListener() {
      @Override
      public void onStateChanged(dev.toolcall.event.ToolCallEvent.StateChanged e) {
        if (e.to() == ToolCallState.CANCELLED) {
          cancelled.add(e.callId());
        }
      }
    });
    ToolScheduler s = ToolScheduler.builder().validator(new TestValidator(tools.toArray(new Tool[0])))
        .authorizer(auth).eventBus(bus).maxParallel(4).build();
    open.add(s);

    List<CallRequest> reqs = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      Step st = steps.get(i);
      String prefix = st.readOnly() ? "r_" : "w_";
      String id = (st.plan() == Plan.DENY ? "DENY" : st.plan().name()) + "-" + i;
      String tool = switch (st.plan()) {
        case FAIL -> prefix + "fail";
        case UNKNOWN -> "no_such_tool";
        default -> prefix + "ok";
      };
      reqs.add(CallRequest.of(id, tool, "{}"));
    }
    Batch batch = s.schedule("session", reqs);
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i).plan() == Plan.CANCEL) {
        batch.calls().get(i).cancel("planned cancel");
      }
    }
    List<CallResult> results = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(results).extracting(CallResult::callId).containsExactlyElementsOf(
        reqs.stream().map(CallRequest::callId).toList());
    assertThat(violations).isEmpty();
    for (int i = 0; i < steps.size(); i++) {
      ToolCallSnapshot snap = results.get(i).snapshot();
      String id = reqs.get(i).callId();
      int entered = entries.getOrDefault(id, new AtomicInteger()).get();
      assertThat(entered).as("entries of %s", id).isLessThanOrEqualTo(1);
      switch (steps.get(i).plan()) {
        case READ, WRITE -> assertThat(snap.state()).isEqualTo(ToolCallState.COMPLETED);
        case FAIL -> assertThat(snap.state()).isEqualTo(ToolCallState.FAILED);
        case DENY -> {
          assertThat(snap.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
          assertThat(entered).isZero();
        }
        case UNKNOWN -> {
          assertThat(snap.state()).isEqualTo(ToolCallState.FAILED);
          assertThat(entered).isZero();
        }
        case CANCEL -> assertThat(snap.state()).isIn(ToolCallState.CANCELLED, ToolCallState.COMPLETED);
      }
      var events = rec.eventsOf(id);
      assertThat(events).hasSize(snap.version() + 1);
      assertThat(events.get(events.size() - 1).version()).isEqualTo(snap.version());
    }
  }
}
