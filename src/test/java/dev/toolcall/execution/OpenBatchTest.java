package dev.toolcall.execution;

import static dev.toolcall.testing.HostileTools.def;
import static dev.toolcall.testing.HostileTools.echo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Change;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.testing.HostileTools.Counting;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link OpenBatch}: calls announced before their arguments are complete, under the rules of a scheduled batch. */
class OpenBatchTest {
  final EventBus bus = EventBus.create();
  final RecordingListener rec = new RecordingListener();
  final List<AutoCloseable> open = new ArrayList<>();

  ToolScheduler scheduler(ToolScheduler.Builder b, Tool... tools) {
    bus.subscribe(rec);
    ToolScheduler s = b.validator(new TestValidator(tools)).eventBus(bus).build();
    open.add(() -> s.close(Duration.ofSeconds(1)));
    return s;
  }

  ToolScheduler scheduler(Tool... tools) {
    return scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL), tools);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  static List<CallResult> await(Batch b) throws Exception {
    return b.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  private List<ToolCallEvent> eventsOf(String callId) {
    return rec.eventsOf(callId).stream().map(e -> (ToolCallEvent) e).toList();
  }

  @Test
  void aCallIsOnTheBusWhenAnnouncedItsArgumentsFillInAndItRunsWhenComplete() throws Exception {
    Counting echo = echo("echo", true);
    ToolScheduler s = scheduler(echo.tool);
    OpenBatch ob = s.openBatch("s1");

    ToolCall c = ob.announce("c1", "echo");
    assertThat(c.state()).isEqualTo(ToolCallState.PENDING);
    assertThat(eventsOf("c1")).singleElement().isInstanceOf(ToolCallEvent.CallCreated.class);
    assertThat(c.snapshot().arguments().raw()).isEmpty();

    String[] fragments = {"{", "\"x\"", ":", "\"abcdefgh", "ijklmnopqrstuvwxyz\"", "}"};
    for (String f : fragments) {
      ob.appendArguments(c, f);
    }
    // published from the second fragment on, whenever the text at least doubled: lengths 4, 14, 33
    assertThat(eventsOf("c1")).filteredOn(e -> e instanceof ToolCallEvent.ArgumentsModified)
        .extracting(e -> e.snapshot().arguments().raw())
        .containsExactly("{\"x\"", "{\"x\":\"abcdefgh", "{\"x\":\"abcdefghijklmnopqrstuvwxyz\"");
    assertThat(echo.entries).as("nothing runs before the arguments are complete").hasValue(0);

    ob.complete(c);
    Batch batch = ob.seal();
    List<CallResult> results = await(batch);

    assertThat(results).singleElement().extracting(CallResult::outcome)
        .isEqualTo(new Outcome.Completed("echo:{\"x\":\"abcdefghijklmnopqrstuvwxyz\"}"));
    assertThat(echo.entries).hasValue(1);
    ToolCallEvent last = eventsOf("c1").stream().filter(e -> e instanceof ToolCallEvent.ArgumentsModified)
        .reduce((a, b) -> b).orElseThrow();
    assertThat(last.snapshot().arguments()).isInstanceOf(ToolArguments.Json.class);
    assertThat(((Change.ArgumentsModified) last.snapshot().change()).by()).isEqualTo(OpenBatch.FINAL);
    assertThat(c.snapshot().history()).extracting(t -> t.to()).containsExactly(ToolCallState.RUNNING,
        ToolCallState.COMPLETED);
  }

  @Test
  void callsRunAndAnswerInAnnouncementOrderEvenWhenTheirArgumentsCompleteOutOfOrder() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    Tool w = Tool.of(def("w").build(), inv -> {
      ran.add(inv.callId());
      return ToolResult.of(inv.callId());
    });
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(Authorizer.ALLOW_ALL)
        .executionOrder(ExecutionOrder.SEQUENTIAL), w);
    OpenBatch ob = s.openBatch("s1");
    ToolCall a = ob.announce("a", "w");
    ToolCall b = ob.announce("b", "w");
    ToolCall c = ob.announce("c", "w");
    ob.appendArguments(c, "{}");
    ob.complete(c);
    ob.complete(b);
    assertThat(b.state()).as("b waits for a's arguments").isEqualTo(ToolCallState.PENDING);
    ob.appendArguments(a, "{}");
    ob.complete(a);

    List<CallResult> results = await(ob.seal());

    assertThat(results).extracting(CallResult::callId).containsExactly("a", "b", "c");
    assertThat(results).extracting(CallResult::messageForModel).containsExactly("a", "b", "c");
    assertThat(ran).containsExactly("a", "b", "c");
  }

  @Test
  void sealFailsACallWhoseArgumentsNeverCompletedAndMalformedArgumentsFailTheCall() throws Exception {
    Counting echo = echo("echo", true);
    ToolScheduler s = scheduler(echo.tool);
    OpenBatch ob = s.openBatch("s1");
    ToolCall cut = ob.announce("cut", "echo");
    ob.appendArguments(cut, "{\"x\":");
    ToolCall bad = ob.announce("bad", "echo");
    ob.appendArguments(bad, "{\"x\":]");
    ob.complete(bad);

    List<CallResult> results = await(ob.seal());

    assertThat(results).extracting(r -> ((Outcome.Failed) r.outcome()).kind())
        .containsExactly(FailureKind.MALFORMED_ARGUMENTS, FailureKind.MALFORMED_ARGUMENTS);
    assertThat(results.get(0).messageForModel()).contains("response ended before the arguments");
    assertThat(results.get(0).snapshot().arguments().raw()).isEqualTo("{\"x\":");
    assertThat(results.get(1).snapshot().arguments().raw()).isEqualTo("{\"x\":]");
    assertThat(results).allSatisfy(r -> assertThat(r.snapshot().history()).extracting(t -> t.to())
        .containsExactly(ToolCallState.RUNNING, ToolCallState.FAILED));
    assertThat(echo.entries).hasValue(0);
    assertThat(ob.seal()).as("sealing twice returns the same batch").isSameAs(ob.seal());
  }

  @Test
  void failEndsAnAnnouncedCallWithoutRunningIt() throws Exception {
    Counting echo = echo("echo", true);
    ToolScheduler s = scheduler(echo.tool);
    OpenBatch ob = s.openBatch("s1");
    ToolCall c = ob.announce("c1", "echo");
    ob.appendArguments(c, "{}");
    ToolCall d = ob.announce("c2", "echo");
    ob.appendArguments(d, "{}");
    ob.complete(d);

    ob.fail(c, FailureKind.LIMIT_EXCEEDED, "over the limit");
    List<CallResult> results = await(ob.seal());

    assertThat(results.get(0).outcome()).isEqualTo(new Outcome.Failed(FailureKind.LIMIT_EXCEEDED, "over the limit"));
    assertThat(results.get(0).snapshot().arguments().raw()).isEqualTo("{}");
    assertThat(results.get(1).outcome()).isInstanceOf(Outcome.Completed.class);
    assertThat(echo.entries).as("only c2 ran").hasValue(1);
  }

  @Test
  void duplicateIdsFollowTheRulesOfSchedule() throws Exception {
    Counting echo = echo("echo", true);
    ToolScheduler s = scheduler(echo.tool);
    List<CallResult> first = await(s.schedule("s1", List.of(CallRequest.of("old", "echo", "{}"))));
    OpenBatch ob = s.openBatch("s1");
    ToolCall old = ob.announce("old", "echo");
    ob.appendArguments(old, "{\"x\":1}");
    ob.complete(old);
    ToolCall c = ob.announce("c", "echo");
    ToolCall dup = ob.announce("c", "echo");
    ob.appendArguments(c, "{}");
    ob.complete(c);
    ob.complete(dup);

    List<CallResult> results = await(ob.seal());

    assertThat(results.get(0).outcome()).as("the id of the earlier batch's ended call: refused, not run")
        .isInstanceOfSatisfying(Outcome.Failed.class,
            f -> assertThat(f.kind()).isEqualTo(FailureKind.DUPLICATE_CALL));
    assertThat(first.get(0).outcome()).isInstanceOf(Outcome.Completed.class);
    assertThat(results.get(2).outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.DUPLICATE_CALL));
    assertThat(results.get(1).outcome()).isInstanceOf(Outcome.Completed.class);
    assertThat(echo.entries).hasValue(2);
  }

  @Test
  void cancelAllCancelsWhatWasAnnouncedAndWhatIsAnnouncedAfterwards() throws Exception {
    Counting echo = echo("echo", true);
    ToolScheduler s = scheduler(echo.tool);
    OpenBatch ob = s.openBatch("s1");
    ToolCall a = ob.announce("a", "echo");
    ob.appendArguments(a, "{}");
    ob.complete(a);
    ToolCall b = ob.announce("b", "echo");

    assertThat(ob.cancelAll("aborted")).isGreaterThanOrEqualTo(1);
    ToolCall late = ob.announce("late", "echo");
    ob.complete(b);
    ob.complete(late);

    List<CallResult> results = await(ob.seal());
    assertThat(results.get(1).outcome()).isEqualTo(new Outcome.Cancelled("aborted"));
    assertThat(results.get(2).outcome()).isEqualTo(new Outcome.Cancelled("aborted"));
    assertThat(late.state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(echo.entries.get()).as("at most a, if it started before the cancel").isLessThanOrEqualTo(1);
  }

  /**
   * An abort racing with a stream: one thread announces calls while another cancels the batch, from a start latch.
   * Whichever wins for each call, every call ends CANCELLED (announced before the cancel: cancelled by it; after:
   * cancelled at once) and no tool runs.
   */
  @Test
  void cancelAllRacingWithAnnouncementsLeavesNoCallAlive() throws Exception {
    Counting echo = echo("echo", true);
    ToolScheduler s = scheduler(echo.tool);
    for (int round = 0; round < 50; round++) {
      OpenBatch ob = s.openBatch("s" + round);
      java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
      List<ToolCall> announced = new CopyOnWriteArrayList<>();
      Thread stream = new Thread(() -> {
        await(start);
        for (int i = 0; i < 20; i++) {
          announced.add(ob.announce("c" + i, "echo"));
        }
      });
      Thread abort = new Thread(() -> {
        await(start);
        ob.cancelAll("aborted");
      });
      stream.start();
      abort.start();
      start.countDown();
      stream.join(10_000);
      abort.join(10_000);
      for (ToolCall c : announced) {
        ob.complete(c);
      }
      List<CallResult> results = await(ob.seal());
      assertThat(results).hasSize(20).allSatisfy(r -> assertThat(r.outcome())
          .isEqualTo(new Outcome.Cancelled("aborted")));
    }
    assertThat(echo.entries).hasValue(0);
  }

  private static void await(java.util.concurrent.CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aHeldBatchAuthorizesAsCallsCompleteButStartsNoToolBeforeItIsReleased() throws Exception {
    Counting echo = echo("echo", true);
    Tool gated = Tool.of(def("gated").requiresApproval(true).build(), inv -> ToolResult.of("gated ran"));
    PermissionService permissions = PermissionService.builder().build();
    open.add(permissions);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(permissions::authorize), echo.tool, gated);
    CompletableFuture<Void> release = new CompletableFuture<>();
    OpenBatch ob = s.openBatch("s1", release);

    ToolCall e = ob.announce("e", "echo");
    ob.complete(e);
    ToolCall g = ob.announce("g", "gated");
    ob.complete(g);
    assertThat(g.state()).as("the permission request opens as soon as the call is complete")
        .isEqualTo(ToolCallState.PERMISSION_PENDING);
    Batch batch = ob.seal();
    CompletableFuture<Void> authorized = ob.whenAuthorized().toCompletableFuture();
    assertThat(authorized).as("g waits for a person").isNotDone();

    PermissionRequest ask = permissions.awaitNext(Duration.ofSeconds(10)).orElseThrow();
    permissions.decide(ask.requestId(), Decision.approveOnce(ask));
    authorized.get(10, TimeUnit.SECONDS);
    // the approval's event was on the bus before whenAuthorized completed
    assertThat(eventsOf("g")).extracting(ToolCallEvent::state).contains(ToolCallState.PERMISSION_APPROVED);
    assertThat(e.state()).as("held: approved or not, nothing has started").isEqualTo(ToolCallState.PENDING);
    assertThat(g.state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
    assertThat(echo.entries).hasValue(0);

    release.complete(null);
    List<CallResult> results = await(batch);
    assertThat(results).extracting(CallResult::messageForModel).containsExactly("echo:", "gated ran");
  }

  /**
   * Issue 30: a call of an open batch waiting for a person has two callbacks on its end, one of the permission
   * service's request and one that the batch's entry and the call's run share (the run's terminal hook, then the
   * entry's count towards whenAuthorized), not one each, and both are end actions of the call ({@link
   * ToolCall#onTerminal}), not stages; and the batch's whenAuthorized and whenDone still come after its terminal
   * event.
   */
  @Test
  void aWaitingCallOfAnOpenBatchChainsOneCallbackOfTheRuntimeOnItsEnd() throws Exception {
    Tool gated = Tool.of(def("gated").requiresApproval(true).build(), inv -> ToolResult.of("gated ran"));
    PermissionService permissions = PermissionService.builder().build();
    open.add(permissions);
    ToolScheduler s = scheduler(ToolScheduler.builder().authorizer(permissions::authorize), gated);
    OpenBatch ob = s.openBatch("s1", new CompletableFuture<Void>());
    ToolCall g = ob.announce("g", "gated");
    ob.complete(g);
    assertThat(g.state()).isEqualTo(ToolCallState.PERMISSION_PENDING);
    Batch batch = ob.seal();
    java.lang.reflect.Field ends = ToolCall.class.getDeclaredField("ends");
    ends.setAccessible(true);
    assertThat(ends.get(g)).as("the permission request's end action and the run's (shared with the batch entry),"
        + " and no stage").isInstanceOf(Object[].class);
    assertThat((Object[]) ends.get(g)).hasSize(2)
        .noneMatch(w -> w.getClass().getSimpleName().equals("TerminalStage"));
    assertThat(((CompletableFuture<?>) g.whenTerminal()).getNumberOfDependents()).isZero();

    PermissionRequest ask = permissions.awaitNext(Duration.ofSeconds(10)).orElseThrow();
    permissions.decide(ask.requestId(), Decision.deny(ask, "no"));
    ob.whenAuthorized().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(eventsOf("g")).extracting(ToolCallEvent::state).contains(ToolCallState.PERMISSION_DENIED);
    assertThat(await(batch)).extracting(r -> r.snapshot().state()).containsExactly(ToolCallState.PERMISSION_DENIED);
  }

  @Test
  void whenAuthorizedWaitsForTheSealAndCountsEndedCalls() throws Exception {
    ToolScheduler s = scheduler(echo("echo", true).tool);
    OpenBatch ob = s.openBatch("s1", new CompletableFuture<Void>());
    ToolCall unknown = ob.announce("u", "nope");
    ob.complete(unknown);
    assertThat(unknown.state()).isEqualTo(ToolCallState.FAILED);
    assertThat(ob.whenAuthorized().toCompletableFuture()).as("not sealed yet").isNotDone();
    ob.seal();
    assertThat(ob.whenAuthorized().toCompletableFuture()).isDone();
  }

  @Test
  void closingTheSchedulerCancelsAnnouncedCallsAndLaterOnes() throws Exception {
    Counting echo = echo("echo", true);
    ToolScheduler s = scheduler(echo.tool);
    OpenBatch ob = s.openBatch("s1");
    ToolCall a = ob.announce("a", "echo");
    s.close(Duration.ofSeconds(1));
    ToolCall b = ob.announce("b", "echo");
    ob.complete(a);
    ob.complete(b);

    List<CallResult> results = await(ob.seal());
    assertThat(results).extracting(r -> r.snapshot().state()).containsOnly(ToolCallState.CANCELLED);
    assertThat(echo.entries).hasValue(0);
  }

  @Test
  void programmingErrorsThrowAtOnce() {
    ToolScheduler s = scheduler(echo("echo", true).tool);
    OpenBatch ob = s.openBatch("s1");
    ToolCall c = ob.announce("c", "echo");
    ToolCall stranger = ToolCall.builder("x", "echo").build();
    assertThatThrownBy(() -> ob.appendArguments(stranger, "{}")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not announced");
    assertThatThrownBy(() -> ob.announce(" ", "echo")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("callId");
    assertThatThrownBy(() -> ob.fail(c, FailureKind.LIMIT_EXCEEDED, " "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("message");
    assertThatThrownBy(() -> s.openBatch(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("sessionId");
    ob.seal();
    assertThatThrownBy(() -> ob.announce("d", "echo")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sealed");
    assertThatThrownBy(() -> ob.complete(c)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void everyEventOfAnOpenBatchIsInVersionOrder() throws Exception {
    ToolScheduler s = scheduler(echo("echo", true).tool);
    OpenBatch ob = s.openBatch("s1");
    for (int i = 0; i < 20; i++) {
      ToolCall c = ob.announce("c" + i, "echo");
      for (int k = 0; k < i; k++) {
        ob.appendArguments(c, k == 0 ? "\"" : "a");
      }
      ob.appendArguments(c, i == 0 ? "\"\"" : "\"");
      ob.complete(c);
    }
    await(ob.seal());
    // RecordingListener checks version order per call on every event
    assertThat(rec.events()).filteredOn(e -> e instanceof ToolCallEvent).extracting(Event::sourceId)
        .contains("c0", "c19");
  }
}
