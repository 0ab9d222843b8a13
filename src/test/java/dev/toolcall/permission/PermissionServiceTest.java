package dev.toolcall.permission;

import dev.toolcall.DeadlineTimer;
import static dev.toolcall.permission.PermissionTestSupport.FREE;
import static dev.toolcall.permission.PermissionTestSupport.READ;
import static dev.toolcall.permission.PermissionTestSupport.SHELL;
import static dev.toolcall.permission.PermissionTestSupport.WRITE;
import static dev.toolcall.permission.PermissionTestSupport.isDone;
import static dev.toolcall.permission.PermissionTestSupport.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Change;
import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PermissionServiceTest {

  private final PermissionTestSupport t = new PermissionTestSupport();

  private static List<String> states(ToolCallSnapshot s) {
    return s.versions().stream().map(v -> v.state() + ":" + (v.change() instanceof Reason r ? r.code()
        : v.change().getClass().getSimpleName())).collect(Collectors.toList());
  }

  /**
   * Issue 30: the stage of a waiting request is the request's own stage (no minimal stage and relay per request),
   * which the scheduler polls and chains on without a copy; only the service completes it (through the stage it
   * throws; a caller's {@code toCompletableFuture()} copy is the caller's), and it completes with the decision.
   */
  @Test
  void theAuthorizeStageIsTheRequestsOwnAndOnlyTheServiceCompletesIt() {
    try (PermissionService svc = t.service().build()) {
      ToolCall call = ToolCall.builder("c1", "shell").ticker(t.ticker).clock(t.clock).build();
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(call, SHELL);
      CompletableFuture<ToolCallSnapshot> own = (CompletableFuture<ToolCallSnapshot>) stage;
      assertThat(own.isDone()).as("polled without a copy").isFalse();
      assertThatThrownBy(() -> own.complete(call.snapshot())).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> own.cancel(true)).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> own.obtrudeValue(call.snapshot())).isInstanceOf(UnsupportedOperationException.class);
      CompletableFuture<ToolCallSnapshot> copy = stage.toCompletableFuture();
      assertThat(copy).isNotSameAs(stage);
      assertThat(copy.orTimeout(1, TimeUnit.HOURS)).as("the caller's copy may be timed out").isNotDone();
      assertThat(call.state()).isEqualTo(ToolCallState.PERMISSION_PENDING);

      PermissionRequest r = svc.pending().get(0);
      assertThat(svc.decide(r.requestId(), Decision.approveOnce(r)).won()).isTrue();
      assertThat(own.join().state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
      assertThat(copy.join().state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);

      ToolCall free = ToolCall.builder("c2", "clock").ticker(t.ticker).clock(t.clock).build();
      CompletionStage<ToolCallSnapshot> decided = svc.authorize(free, FREE);
      assertThat(((CompletableFuture<ToolCallSnapshot>) decided).join().state())
          .as("no approval needed: decided at once").isEqualTo(ToolCallState.PENDING);
    }
  }

  @Test
  void askApproveOnceTellsTheWholeStoryInOrder() {
    EventBus bus = EventBus.create();
    RecordingListener rec = new RecordingListener();
    bus.subscribe(rec);
    try (PermissionService svc = t.service().build()) {
      ToolCall call = ToolCall.builder("c1", "shell").ticker(t.ticker).clock(t.clock).eventBus(bus)
          .arguments(ToolArguments.ofText("ls")).build();
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(call, SHELL);
      assertThat(isDone(stage)).isFalse();
      List<PermissionRequest> pending = svc.pending();
      assertThat(pending).hasSize(1);
      PermissionRequest r = pending.get(0);
      assertThat(r.callId()).isEqualTo("c1");
      assertThat(r.toolName()).isEqualTo("shell");
      assertThat(r.arguments().raw()).isEqualTo("ls");
      assertThat(r.argumentsVersion()).isZero();
      assertThat(r.deadline()).isEqualTo(t.clock.instant().plusSeconds(30));
      assertThat(r.remaining(t.ticker.read())).isEqualTo(Duration.ofSeconds(30));
      assertThat(PermissionRequest.of(call.snapshot())).contains(r);

      DecisionResult d = svc.decide(r.requestId(), Decision.approveOnce(r));
      assertThat(d.won()).isTrue();
      ToolCallSnapshot s = now(stage);
      assertThat(s.state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
      assertThat(s.change()).isEqualTo(Reason.APPROVED_ONCE);
      assertThat(svc.pending()).isEmpty();
      assertThat(t.deadlines.scheduled()).as("timer cancelled").isZero();

      List<Event> events = rec.eventsOf("c1");
      assertThat(events).extracting(e -> e.getClass().getSimpleName() + "@" + e.version())
          .containsExactly("CallCreated@0", "StateChanged@1", "StateChanged@2");
      ToolCallEvent.StateChanged asked = (ToolCallEvent.StateChanged) events.get(1);
      assertThat(asked.to()).isEqualTo(ToolCallState.PERMISSION_PENDING);
      assertThat(asked.snapshot().change()).isInstanceOf(Change.PermissionAsked.class);
      Change.PermissionAsked pa = (Change.PermissionAsked) asked.snapshot().change();
      assertThat(pa.requestId()).isEqualTo(r.requestId());
      assertThat(pa.deadlineTick()).isEqualTo(r.deadlineTick());
      ToolCallEvent.StateChanged resolvedEvent = (ToolCallEvent.StateChanged) events.get(2);
      assertThat(resolvedEvent.to()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
    }
  }

  @Test
  void noApprovalNeededLeavesTheCallPending() {
    try (PermissionService svc = t.service().build()) {
      ToolCall call = t.call("clock", "");
      ToolCallSnapshot s = now(svc.authorize(call, FREE));
      assertThat(s.state()).isEqualTo(ToolCallState.PENDING);
      assertThat(s.version()).isZero();
      assertThat(svc.pending()).isEmpty();
    }
  }

  @Test
  void allowRuleApprovesWithTheRuleAsCause() {
    PermissionPolicy policy = PermissionPolicy.builder().allow("shell(npm test:*)").build();
    try (PermissionService svc = t.service().policy(policy).build()) {
      ToolCallSnapshot s = now(svc.authorize(t.call("shell", "npm test --watch"), SHELL));
      assertThat(states(s)).containsExactly("PENDING:Created", "PERMISSION_APPROVED:auto_approved");
      assertThat(((Reason) s.change()).message()).contains("rule allow shell(npm test:*)");
      ToolCall chained = t.call("shell", "npm test && rm -rf /");
      svc.authorize(chained, SHELL);
      assertThat(chained.state()).as("a chained command is not covered by the prefix")
          .isEqualTo(ToolCallState.PERMISSION_PENDING);
    }
  }

  @Test
  void denyRuleDeniesWithoutAskingThroughPermissionPending() {
    PermissionPolicy policy = PermissionPolicy.builder().deny("shell(rm:*)").allow("shell").build();
    try (PermissionService svc = t.service().policy(policy).build()) {
      ToolCallSnapshot s = now(svc.authorize(t.call("shell", "rm -rf /tmp/x"), SHELL));
      assertThat(states(s)).containsExactly("PENDING:Created", "PERMISSION_PENDING:permission_required",
          "PERMISSION_DENIED:denied_policy");
      Outcome.Denied denied = (Outcome.Denied) s.outcome();
      assertThat(denied.source()).isEqualTo(DenialSource.POLICY);
      assertThat(denied.messageForModel()).contains("denied by policy").contains("deny shell(rm:*)");
      assertThat(svc.pending()).isEmpty();
      // a deny rule applies even to a tool that needs no approval
      PermissionPolicy denyClock = PermissionPolicy.builder().deny("clock").build();
      try (PermissionService svc2 = t.service().policy(denyClock).build()) {
        assertThat(now(svc2.authorize(t.call("clock", ""), FREE)).state())
            .isEqualTo(ToolCallState.PERMISSION_DENIED);
      }
    }
  }

  @Test
  void askRuleAsksEvenInAllowAllMode() {
    PermissionPolicy policy = PermissionPolicy.builder().ask("shell(git push:*)").build();
    try (PermissionService svc = t.service().policy(policy).approvalMode(ApprovalMode.ALLOW_ALL).build()) {
      assertThat(svc.authorize(t.call("shell", "git push origin"), SHELL)).isNotNull();
      assertThat(svc.pending()).hasSize(1);
      assertThat(now(svc.authorize(t.call("shell", "git status"), SHELL)).state())
          .isEqualTo(ToolCallState.PERMISSION_APPROVED);
    }
  }

  @Test
  void approvalModes() {
    PermissionPolicy policy = PermissionPolicy.builder().editTools("write_*").build();
    try (PermissionService svc = t.service().policy(policy).build()) {
      svc.setApprovalMode(ApprovalMode.READ_ONLY);
      ToolCallSnapshot planned = now(svc.authorize(t.call("write_file", "x"), WRITE));
      assertThat(planned.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
      assertThat(((Outcome.Denied) planned.outcome()).source()).isEqualTo(DenialSource.POLICY);
      assertThat(svc.authorize(t.call("read_file", "x"), READ)).isNotNull();
      assertThat(svc.pending()).as("read-only tools are asked about as usual in plan mode").hasSize(1);

      svc.setApprovalMode(ApprovalMode.AUTO_APPROVE_EDITS);
      assertThat(now(svc.authorize(t.call("write_file", "x"), WRITE)).state())
          .isEqualTo(ToolCallState.PERMISSION_APPROVED);
      svc.authorize(t.call("shell", "ls"), SHELL);
      assertThat(svc.pending()).as("not an edit tool: asked").hasSize(2);

      svc.setApprovalMode(ApprovalMode.ALLOW_ALL);
      ToolCallSnapshot yolo = now(svc.authorize(t.call("shell", "ls"), SHELL));
      assertThat(yolo.state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
      assertThat(((Reason) yolo.change()).message()).contains("ALLOW_ALL");
      assertThat(svc.pending()).as("waiting requests are not re-evaluated").hasSize(2);
    }
  }

  @Test
  void priorityDecidesAndDenyBeatsAllowAtTheSamePriority() {
    PermissionPolicy same = PermissionPolicy.builder().allow("shell").deny("shell").build();
    assertThat(same.evaluate("shell", ToolArguments.ofText("ls")).effect()).isEqualTo(PermissionRule.Effect.DENY);
    PermissionPolicy higher = PermissionPolicy.builder().deny("shell")
        .rule(PermissionRule.allow("shell(ls)").withPriority(10)).build();
    assertThat(higher.evaluate("shell", ToolArguments.ofText("ls")).effect())
        .isEqualTo(PermissionRule.Effect.ALLOW);
    assertThat(higher.evaluate("shell", ToolArguments.ofText("ls -la")).effect())
        .isEqualTo(PermissionRule.Effect.DENY);
  }

  @Test
  void lookAlikeNamesNeverMatchARuleOrAGrant() {
    PermissionPolicy policy = PermissionPolicy.builder().allow("shell").allow("sh*").build();
    GrantStore store = GrantStore.inMemory();
    store.add(new Grant("g", "shell", ArgumentPattern.ANY, Instant.EPOCH, null));
    try (PermissionService svc = t.service().policy(policy).grantStore(store).build()) {
      for (String lookAlike : List.of("shell\u200b", "Shell", "SHELL", "\uff53\uff48\uff45\uff4c\uff4c",
          "\u0455hell", "she\u200bll", "shell ")) {
        ToolCallSnapshot s = now(svc.authorize(t.call(lookAlike, "ls"), SHELL).toCompletableFuture()
            .completeOnTimeout(t.call("x", "x").snapshot(), 0, TimeUnit.SECONDS));
        assertThat(policy.evaluate(lookAlike, ToolArguments.ofText("ls")).rule()).as(lookAlike).isEmpty();
        assertThat(store.find(lookAlike, ToolArguments.ofText("ls"), Instant.EPOCH)).as(lookAlike).isEmpty();
        assertThat(s.state()).as(lookAlike).isNotEqualTo(ToolCallState.PERMISSION_APPROVED);
      }
      assertThat(svc.pending()).hasSize(7);
    }
  }

  @Test
  void approveForSessionCoversLaterCallsOfThatSessionOnly() {
    try (PermissionService svc = t.service().build()) {
      svc.authorize(t.call("shell", "npm test", "s1"), SHELL);
      PermissionRequest r = svc.pending().get(0);
      DecisionResult d = svc.decide(r.requestId(),
          Decision.approveForSession(r, ArgumentPattern.parse("npm test:*")));
      assertThat(d.won()).isTrue();
      assertThat(((DecisionResult.Won) d).grant()).isPresent();
      assertThat(svc.sessionGrants("s1")).hasSize(1);

      ToolCallSnapshot later = now(svc.authorize(t.call("shell", "npm test -x", "s1"), SHELL));
      assertThat(later.state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
      assertThat(((Reason) later.change()).message()).contains("session grant shell(npm test:*)");
      svc.authorize(t.call("shell", "npm publish", "s1"), SHELL);
      svc.authorize(t.call("shell", "npm test", "s2"), SHELL);
      assertThat(svc.pending()).as("other arguments and other sessions are asked about").hasSize(2);

      svc.forgetSession("s1");
      svc.authorize(t.call("shell", "npm test", "s1"), SHELL);
      assertThat(svc.pending()).hasSize(3);
    }
  }

  @Test
  void approveAlwaysWritesAGrantThatExpiresAndCanBeRevoked() {
    GrantStore store = GrantStore.inMemory();
    try (PermissionService svc = t.service().grantStore(store).build()) {
      svc.authorize(t.call("shell", "ls"), SHELL);
      PermissionRequest r = svc.pending().get(0);
      DecisionResult d = svc.decide(r.requestId(), Decision.approveAlways(r, ArgumentPattern.ANY,
          Duration.ofHours(1)));
      assertThat(d.won()).isTrue();
      assertThat(store.grants()).hasSize(1);
      Grant g = store.grants().get(0);
      assertThat(g.expiresAt()).isEqualTo(t.clock.instant().plus(Duration.ofHours(1)));

      assertThat(now(svc.authorize(t.call("shell", "pwd"), SHELL)).state())
          .isEqualTo(ToolCallState.PERMISSION_APPROVED);
      t.clock.advance(Duration.ofHours(1));
      assertThat(now(svc.authorize(t.call("shell", "pwd"), SHELL).toCompletableFuture()
          .completeOnTimeout(null, 0, TimeUnit.SECONDS))).as("expired: asked").isNull();
      t.clock.advance(Duration.ofHours(-1));
      assertThat(store.revoke(g.id())).isTrue();
      assertThat(svc.pending()).hasSize(1);
      svc.authorize(t.call("shell", "pwd"), SHELL);
      assertThat(svc.pending()).as("revoked: asked").hasSize(2);
    }
  }

  /**
   * A session grant store that fails (a database down) loses nothing: the approval for the session stands, and a
   * later call whose grant cannot be read is asked about rather than run or failed; both failures are logged.
   */
  @Test
  void aFailingSessionGrantStoreAsksInsteadAndKeepsTheApproval() {
    SessionGrantStore down = new SessionGrantStore() {
      @Override
      public List<Grant> of(String sessionId) {
        throw new IllegalStateException("the database is down");
      }

      @Override
      public void add(String sessionId, Grant grant) {
        throw new IllegalStateException("the database is down");
      }

      @Override
      public boolean revoke(String sessionId, String grantId) {
        return false;
      }

      @Override
      public void forget(String sessionId) {}

      @Override
      public java.util.Map<String, List<Grant>> all() {
        return java.util.Map.of();
      }
    };
    try (PermissionService svc = t.service().sessionGrantStore(down).build()) {
      svc.authorize(t.call("shell", "ls"), SHELL);
      PermissionRequest r = svc.pending().get(0);
      DecisionResult d = svc.decide(r.requestId(), Decision.approveForSession(r));
      assertThat(d.won()).as("the approval stands").isTrue();
      assertThat(((DecisionResult.Won) d).grant()).as("no grant was kept").isEmpty();
      svc.authorize(t.call("shell", "ls"), SHELL);
      assertThat(svc.pending()).as("asked, since the grants could not be read").hasSize(1);
    }
    assertThat(dev.toolcall.testing.Logs.of(PermissionService.class)).extracting(e -> e.message())
        .anyMatch(m -> m.contains("failed to keep grant")).anyMatch(m -> m.contains("failed to look up"));
  }

  /**
   * A runtime sharing a store re-opens a request it loaded, but another runtime decided it first and this call
   * adopted the decision meanwhile: resume completes at once with the version that left PERMISSION_PENDING, opening
   * nothing (before, it threw, and the call was failed as an internal error over the other runtime's approval).
   */
  @Test
  void resumingARequestDecidedMeanwhileCompletesWithTheDecision() {
    try (PermissionService svc = t.service().build()) {
      ToolCall call = t.call("shell", "ls");
      Instant deadline = t.clock.instant().plus(Duration.ofHours(1));
      assertThat(call.transition(ToolCallState.PENDING, 0, ToolCallState.PERMISSION_PENDING,
          new Change.PermissionAsked("perm-b-1", 0, deadline, t.ticker.read() + Duration.ofHours(1).toNanos()))
          .won()).isTrue();
      ToolCallSnapshot approved = call.transition(ToolCallState.PERMISSION_PENDING, ToolCallState.PERMISSION_APPROVED,
          Reason.APPROVED_ONCE).snapshot();
      CompletionStage<ToolCallSnapshot> stage = svc.resume(call, SHELL, t.clock.instant());
      assertThat(now(stage)).isSameAs(approved);
      assertThat(svc.pending()).isEmpty();
      assertThat(svc.request("perm-b-1")).isEmpty();
      PermissionRequest late = new PermissionRequest("perm-b-1", call.callId(), call.sessionId(), "shell",
          approved.arguments(), 0, t.clock.instant(), deadline, 0L);
      assertThat(svc.decide("perm-b-1", Decision.deny(late, "no"))).as("a late decision learns what won")
          .isInstanceOfSatisfying(DecisionResult.Lost.class, l -> assertThat(l.winnerState())
              .isEqualTo(ToolCallState.PERMISSION_APPROVED));
    }
  }

  @Test
  void aGrantIsWrittenOnlyIfApproveAlwaysWon() {
    GrantStore store = GrantStore.inMemory();
    try (PermissionService svc = t.service().grantStore(store).build()) {
      svc.authorize(t.call("shell", "ls"), SHELL);
      PermissionRequest r = svc.pending().get(0);
      assertThat(svc.decide(r.requestId(), Decision.deny(r, "no")).won()).isTrue();
      DecisionResult late = svc.decide(r.requestId(), Decision.approveAlways(r));
      assertThat(late).isInstanceOf(DecisionResult.Lost.class);
      assertThat(((DecisionResult.Lost) late).winnerCause().code()).isEqualTo("denied_user");
      assertThat(store.grants()).isEmpty();
    }
  }

  @Test
  void timeoutDeniesAtTheDeadlineNotBefore() {
    try (PermissionService svc = t.service().build()) {
      ToolCall call = t.call("shell", "ls");
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(call, SHELL);
      PermissionRequest r = svc.pending().get(0);
      t.deadlines.advance(Duration.ofSeconds(30).minusNanos(1));
      assertThat(isDone(stage)).isFalse();
      assertThat(r.remaining(t.ticker.read())).isEqualTo(Duration.ofNanos(1));
      t.deadlines.advance(Duration.ofNanos(1));
      ToolCallSnapshot s = now(stage);
      assertThat(s.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
      assertThat(s.change()).isEqualTo(Reason.PERMISSION_TIMEOUT);
      Outcome.Denied denied = (Outcome.Denied) s.outcome();
      assertThat(denied.source()).isEqualTo(DenialSource.TIMEOUT);
      assertThat(denied.messageForModel()).contains("nobody answered").contains("30 s");
      assertThat(svc.pending()).isEmpty();
      DecisionResult late = svc.decide(r.requestId(), Decision.approveOnce(r));
      assertThat(((DecisionResult.Lost) late).winnerCause()).isEqualTo(Reason.PERMISSION_TIMEOUT);
      assertThat(((DecisionResult.Lost) late).winnerState()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    }
  }

  /**
   * A decision is bound to the request it was made for: given to another request whose arguments version happens
   * to be the same, it is refused and changes nothing. Before, {@code decide(b, approveOnce(a))} approved b.
   */
  @Test
  void aDecisionMadeForOneRequestIsRefusedForAnother() {
    try (PermissionService svc = t.service().build()) {
      CompletionStage<ToolCallSnapshot> first = svc.authorize(t.call("shell", "ls"), SHELL);
      CompletionStage<ToolCallSnapshot> second = svc.authorize(t.call("shell", "rm -rf /"), SHELL);
      PermissionRequest a = svc.pending().get(0);
      PermissionRequest b = svc.pending().get(1);
      assertThat(a.argumentsVersion()).isEqualTo(b.argumentsVersion());
      for (Decision d : List.of(Decision.approveOnce(a), Decision.approveForSession(a), Decision.approveAlways(a),
          Decision.approveModified(a, ToolArguments.ofText("echo")), Decision.modifyAndAsk(a,
              ToolArguments.ofText("echo")), Decision.deny(a, "no"))) {
        DecisionResult r = svc.decide(b.requestId(), d);
        assertThat(r).as("%s", d).isEqualTo(new DecisionResult.WrongRequest(b.requestId(), a.requestId()));
        assertThat(r.won()).isFalse();
      }
      assertThat(isDone(first)).isFalse();
      assertThat(isDone(second)).isFalse();
      assertThat(svc.pending()).extracting(PermissionRequest::requestId).containsExactly(a.requestId(),
          b.requestId());
      assertThat(svc.sessionGrants("s")).isEmpty();
      assertThat(svc.decide(b.requestId(), Decision.deny(b, "no")).won()).isTrue();
      assertThat(now(second).state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    }
  }

  @Test
  void aDeadlineTaskThatFiresEarlyIsRescheduled() {
    java.util.List<Runnable> tasks = new java.util.ArrayList<>();
    DeadlineTimer early = new DeadlineTimer() {
      @Override
      public Handle schedule(Runnable task, Duration delay) {
        tasks.add(task);
        return () -> {};
      }

      @Override
      public void close() {}
    };
    try (PermissionService svc = t.service().timer(early).build()) {
      assertThat(svc.pending()).isEmpty(); // read: the only task is the deadline's (no unread-request check)
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(t.call("shell", "ls"), SHELL);
      tasks.remove(0).run(); // fires at once, 30 s early on the ticker
      assertThat(isDone(stage)).isFalse();
      assertThat(tasks).hasSize(1);
      t.ticker.advance(Duration.ofSeconds(30));
      tasks.remove(0).run();
      assertThat(now(stage).state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    }
  }

  @Test
  void perToolTimeoutOverridesTheDefaultAndHugeValuesAreClamped() {
    ToolDefinition quick = ToolDefinition.builder("shell").permissionTimeout(Duration.ofSeconds(2)).build();
    ToolDefinition forever = ToolDefinition.builder("shell").permissionTimeout(Duration.ofSeconds(Long.MAX_VALUE))
        .build();
    try (PermissionService svc = t.service().build()) {
      CompletionStage<ToolCallSnapshot> q = svc.authorize(t.call("shell", "a"), quick);
      CompletionStage<ToolCallSnapshot> f = svc.authorize(t.call("shell", "b"), forever);
      assertThat(svc.pending().get(1).deadline()).isEqualTo(Instant.MAX);
      assertThat(svc.pending().get(1).deadlineTick() - t.ticker.read()).as("clamped to about 146 years, not summed to"
          + " a saturated tick").isEqualTo(DeadlineTimer.MAX_DELAY_NANOS);
      t.deadlines.advance(Duration.ofSeconds(2));
      assertThat(now(q).state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
      t.deadlines.advance(Duration.ofDays(365 * 100));
      assertThat(isDone(f)).isFalse();
    }
    assertThatThrownBy(() -> PermissionService.builder().defaultTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("defaultTimeout");
    assertThatThrownBy(() -> PermissionService.builder().defaultTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("defaultTimeout");
  }

  @Test
  void modifyAndAskBumpsTheVersionAndStaleDecisionsAreRefused() {
    EventBus bus = EventBus.create();
    RecordingListener rec = new RecordingListener();
    bus.subscribe(rec);
    try (PermissionService svc = t.service().build()) {
      ToolCall call = ToolCall.builder("m1", "shell").ticker(t.ticker).eventBus(bus)
          .arguments(ToolArguments.ofText("rm -rf build")).build();
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(call, SHELL);
      PermissionRequest v1 = svc.pending().get(0);
      DecisionResult m = svc.decide(v1.requestId(), Decision.modifyAndAsk(v1, ToolArguments.ofText("rm -rf build/tmp")));
      assertThat(m.won()).isTrue();
      PermissionRequest v2 = svc.pending().get(0);
      assertThat(v2.requestId()).isEqualTo(v1.requestId());
      assertThat(v2.argumentsVersion()).isEqualTo(2);
      assertThat(v2.arguments().raw()).isEqualTo("rm -rf build/tmp");
      assertThat(v2.deadline()).isEqualTo(v1.deadline());

      DecisionResult stale = svc.decide(v1.requestId(), Decision.approveOnce(v1));
      assertThat(stale).isInstanceOf(DecisionResult.Stale.class);
      assertThat(((DecisionResult.Stale) stale).current()).isEqualTo(v2);
      assertThat(call.state()).isEqualTo(ToolCallState.PERMISSION_PENDING);

      assertThat(svc.decide(v2.requestId(), Decision.approveOnce(v2)).won()).isTrue();
      ToolCallSnapshot s = now(stage);
      assertThat(s.arguments().raw()).isEqualTo("rm -rf build/tmp");
      assertThat(s.argumentsVersion()).isEqualTo(v2.argumentsVersion());
      assertThat(rec.eventsOf("m1")).extracting(e -> e.getClass().getSimpleName())
          .containsExactly("CallCreated", "StateChanged", "ArgumentsModified", "StateChanged");
    }
  }

  @Test
  void approveWithModifiedArgumentsRunsWithExactlyThem() {
    try (PermissionService svc = t.service().build()) {
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(t.call("shell", "rm -rf /"), SHELL);
      PermissionRequest r = svc.pending().get(0);
      assertThat(svc.decide(r.requestId(), Decision.approveModified(r, ToolArguments.ofText("ls /"))).won())
          .isTrue();
      ToolCallSnapshot s = now(stage);
      assertThat(states(s)).containsExactly("PENDING:Created", "PERMISSION_PENDING:PermissionAsked",
          "PERMISSION_PENDING:ArgumentsModified", "PERMISSION_APPROVED:approved_once");
      assertThat(s.arguments().raw()).isEqualTo("ls /");
    }
  }

  @Test
  void denyPassesTheReasonToTheModel() {
    try (PermissionService svc = t.service().build()) {
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(t.call("shell", "rm -rf /"), SHELL);
      PermissionRequest r = svc.pending().get(0);
      assertThat(svc.decide(r.requestId(), Decision.deny(r, "never touch the root")).won()).isTrue();
      Outcome.Denied d = (Outcome.Denied) now(stage).outcome();
      assertThat(d.source()).isEqualTo(DenialSource.USER);
      assertThat(d.messageForModel()).contains("The user denied").contains("never touch the root");
    }
  }

  @Test
  void doubleApproveWinsOnceAndUnknownIdsAreSaid() {
    try (PermissionService svc = t.service().build()) {
      svc.authorize(t.call("shell", "ls"), SHELL);
      PermissionRequest r = svc.pending().get(0);
      assertThat(svc.decide(r.requestId(), Decision.approveOnce(r)).won()).isTrue();
      DecisionResult second = svc.decide(r.requestId(), Decision.approveOnce(r));
      assertThat(second).isInstanceOf(DecisionResult.Lost.class);
      assertThat(((DecisionResult.Lost) second).winnerCause()).isEqualTo(Reason.APPROVED_ONCE);
      assertThat(svc.decide("nope", new Decision.ApproveOnce("nope", 0)))
          .isEqualTo(new DecisionResult.UnknownRequest("nope"));
      assertThat(svc.decide("nope", Decision.approveOnce(r))).as("a decision for another request")
          .isEqualTo(new DecisionResult.WrongRequest("nope", r.requestId()));
    }
  }

  @Test
  void aCallCancelledFromOutsideLeavesTheQueueAndReleasesItsAwaiter() {
    try (PermissionService svc = t.service().build()) {
      ToolCall call = t.call("shell", "ls");
      CompletionStage<ToolCallSnapshot> stage = svc.authorize(call, SHELL);
      PermissionRequest r = svc.pending().get(0);
      assertThat(call.cancel("user pressed Esc").won()).isTrue();
      assertThat(now(stage).state()).isEqualTo(ToolCallState.CANCELLED);
      assertThat(svc.pending()).isEmpty();
      assertThat(t.deadlines.scheduled()).isZero();
      DecisionResult late = svc.decide(r.requestId(), Decision.approveOnce(r));
      assertThat(((DecisionResult.Lost) late).winnerState()).isEqualTo(ToolCallState.CANCELLED);
    }
  }

  @Test
  void aTerminalCallGetsNoRequest() {
    try (PermissionService svc = t.service().build()) {
      ToolCall call = t.call("shell", "ls");
      call.cancel("gone");
      assertThat(now(svc.authorize(call, SHELL)).state()).isEqualTo(ToolCallState.CANCELLED);
      assertThat(svc.pending()).isEmpty();
      ToolCall asked = t.call("shell", "ls");
      svc.authorize(asked, SHELL);
      assertThatThrownBy(() -> svc.authorize(asked, SHELL)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must be PENDING");
    }
  }

  @Test
  void anInlineListenerMayDecideOnThePermissionAskedEvent() {
    EventBus bus = EventBus.create();
    try (PermissionService svc = t.service().build()) {
      bus.subscribe(new EventListener() {
        @Override
        public void onStateChanged(ToolCallEvent.StateChanged e) {
          PermissionRequest.of(e.snapshot()).ifPresent(r -> svc.decide(r.requestId(), Decision.approveOnce(r)));
        }
      });
      ToolCall call = ToolCall.builder("i1", "shell").ticker(t.ticker).eventBus(bus).build();
      assertThat(now(svc.authorize(call, SHELL)).state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
      assertThat(svc.pending()).isEmpty();
      assertThat(t.deadlines.scheduled()).isZero();
    }
  }

  @Test
  void nextRequestPeeksTheOldestAndWakesWhenOneArrives() throws Exception {
    try (PermissionService svc = t.service().build()) {
      CompletableFuture<PermissionRequest> next = svc.nextRequest().toCompletableFuture();
      assertThat(next).isNotDone();
      assertThat(svc.awaitNext(Duration.ofMillis(1))).isEmpty();
      svc.authorize(t.call("shell", "first"), SHELL);
      svc.authorize(t.call("shell", "second"), SHELL);
      assertThat(next.get(10, TimeUnit.SECONDS).arguments().raw()).isEqualTo("first");
      assertThat(svc.awaitNext(Duration.ofSeconds(10)).orElseThrow().arguments().raw()).isEqualTo("first");
      assertThat(svc.pending()).extracting(r -> r.arguments().raw()).containsExactly("first", "second");
      PermissionRequest head = svc.pending().get(0);
      svc.decide(head.requestId(), Decision.approveOnce(head));
      assertThat(svc.nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS).arguments().raw())
          .isEqualTo("second");
    }
  }

  @Test
  void closeCancelsWaitingCallsReleasesAwaitersAndCancelsLaterCalls() throws Exception {
    PermissionService svc = t.service().build();
    ToolCall call = t.call("shell", "ls");
    CompletionStage<ToolCallSnapshot> stage = svc.authorize(call, SHELL);
    PermissionService empty = t.service().timer(new PermissionFakesHolder().deadlines).build();
    CompletableFuture<PermissionRequest> waiting = empty.nextRequest().toCompletableFuture();
    empty.close();
    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(CancellationException.class);
    assertThat(empty.awaitNext(Duration.ofSeconds(10))).isEmpty();

    svc.close();
    ToolCallSnapshot s = now(stage);
    assertThat(s.state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(((Outcome.Cancelled) s.outcome()).reason()).contains("closed");
    assertThat(svc.pending()).isEmpty();
    assertThat(t.deadlines.isClosed()).as("a shared timer is not the service's to close").isFalse();
    assertThat(t.deadlines.scheduled()).as("the request's deadline task was cancelled").isZero();
    ToolCall later = t.call("shell", "ls");
    assertThat(now(svc.authorize(later, SHELL)).state()).isEqualTo(ToolCallState.CANCELLED);
    svc.close(); // idempotent
  }

  /** A second fake scheduler for a second service in one test. */
  private final class PermissionFakesHolder {
    final dev.toolcall.testing.PermissionFakes.ManualTimer deadlines =
        new dev.toolcall.testing.PermissionFakes.ManualTimer(t.ticker);
  }

  @Test
  void theDefaultDeadlineThreadIsNamedDaemonAndGoneAfterClose() throws Exception {
    java.util.Set<Thread> others = Thread.getAllStackTraces().keySet(); // timers of other tests' runtimes, if any
    PermissionService svc = PermissionService.builder().defaultTimeout(Duration.ofHours(1)).build();
    svc.authorize(t.call("shell", "ls"), SHELL);
    Thread thread = Thread.getAllStackTraces().keySet().stream()
        .filter(th -> th.getName().equals("toolcall-timer") && !others.contains(th)).findFirst()
        .orElseThrow();
    assertThat(thread.isDaemon()).isTrue();
    svc.close();
    thread.join(10_000);
    assertThat(thread.isAlive()).isFalse();
  }

  @Test
  void requestOfASnapshotIsEmptyOutsidePermissionPending() {
    assertThat(PermissionRequest.of(t.call("shell", "x").snapshot())).isEmpty();
  }
}
