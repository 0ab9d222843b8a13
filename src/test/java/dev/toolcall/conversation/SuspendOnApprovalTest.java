package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.runtime.RuntimeSnapshot;
import dev.toolcall.execution.Batch;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionKind;
import dev.toolcall.testing.PermissionFakes.ManualTicker;
import dev.toolcall.testing.PermissionFakes.ManualTimer;
import dev.toolcall.testing.Race;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, part 1: a turn that reaches awaiting_tool_approval with {@link Agent.Builder#suspendOnApproval} ends at
 * once INTERRUPTED, listing its open requests; {@link Agent#resumeWith} goes on with it (the tool runs once, the model
 * gets one result per call), in this process or after a restart; partial, stale, unknown, foreign, replayed,
 * invalid, duplicate and not-allowed decisions get a report each and change nothing.
 */
class SuspendOnApprovalTest {

  static final ObjectMapper JSON = new ObjectMapper();

  static final class Tools {
    final AtomicInteger shellRuns = new AtomicInteger();
    final List<String> commands = Collections.synchronizedList(new ArrayList<>());

    List<Tool> all() {
      return List.of(
          Tool.of(ToolDefinition.builder("read_file").readOnly(true).requiresApproval(false).build(),
              inv -> ToolResult.of("contents")),
          Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1))
              .parameters(schema()).build(), inv -> {
                shellRuns.incrementAndGet();
                commands.add(inv.arguments().asJson().get("command").asText());
                return ToolResult.of("ran " + inv.arguments().asJson().get("command").asText());
              }));
    }

    static com.fasterxml.jackson.databind.JsonNode schema() {
      try {
        return JSON.readTree("{\"type\":\"object\",\"required\":[\"command\"],\"properties\":{\"command\":"
            + "{\"type\":\"string\",\"minLength\":1}},\"additionalProperties\":false}");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
  }

  static TurnResult join(java.util.concurrent.CompletionStage<TurnResult> s) throws Exception {
    return s.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static ScriptedModel twoShells() {
    return new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell", "{\"command\":\"make\"}"),
        ScriptedModel.call("call_2", "shell", "{\"command\":\"make test\"}")).thenText("Done.");
  }

  @Test
  void aTurnThatNeedsAPersonEndsInterruptedAndGoesOnWhenDecided() throws Exception {
    Tools tools = new Tools();
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "read_file", "{}"),
        ScriptedModel.call("call_2", "shell", "{\"command\":\"make\"}")).thenText("Built.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent agent = Agent.builder(model, runtime).conversationId("s1").suspendOnApproval(true).build();
      TurnResult r = join(agent.send("build it"));

      assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      assertThat(r.interrupts()).hasSize(1);
      Interrupt i = r.interrupts().get(0);
      assertThat(i.callId()).isEqualTo("call_2");
      assertThat(i.toolName()).isEqualTo("shell");
      assertThat(i.sessionId()).isEqualTo("s1");
      assertThat(i.arguments().asJson().get("command").asText()).isEqualTo("make");
      int v = i.argumentsVersion();
      assertThat(i.requestId()).matches("perm-[a-z2-7]{26}");
      assertThat(i.deadline()).isEqualTo(i.createdAt().plus(Duration.ofHours(1)));
      assertThat(i.allowed()).isEqualTo(EnumSet.allOf(DecisionKind.class));
      assertThat(JSON.readTree(i.responseSchema()).at("/properties/requestId/const").asText())
          .isEqualTo(i.requestId());
      assertThat(JSON.readTree(i.responseSchema()).at("/properties/arguments/required/0").asText())
          .as("edited arguments must match the tool's schema").isEqualTo("command");
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.AWAITING_TOOL_APPROVAL);
      assertThat(runtime.permissions().pending()).extracting(p -> p.requestId()).containsExactly(i.requestId());
      assertThat(agent.interrupts()).isEqualTo(r.interrupts());
      assertThat(tools.shellRuns).hasValue(0);
      assertThat(model.requests()).hasSize(1);

      TurnResult done = join(agent.resumeWith(List.of(new Decision.ApproveOnce(i.requestId(), v))));
      assertThat(done.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.ACCEPTED);
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(done.text()).isEqualTo("Built.");
      assertThat(tools.shellRuns).hasValue(1);
      List<Message> sent = model.requests().get(1).messages();
      assertThat(sent.subList(2, sent.size())).containsExactly(
          new ToolResultMessage("call_1", "read_file", "contents", false),
          new ToolResultMessage("call_2", "shell", "ran make", false));
      assertThat(done.toolResults()).hasSize(2);
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
      assertThat(agent.conversation().snapshot().turn()).as("the same turn").isEqualTo(1);
      assertThat(agent.interrupts()).isEmpty();
    }
  }

  @Test
  void aPartialSetOfDecisionsKeepsTheTurnInterruptedListingWhatIsStillOpen() throws Exception {
    Tools tools = new Tools();
    ScriptedModel model = twoShells();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent agent = Agent.builder(model, runtime).conversationId("s1").suspendOnApproval(true).build();
      TurnResult r = join(agent.send("build and test"));
      assertThat(r.interrupts()).extracting(Interrupt::callId).containsExactly("call_1", "call_2");
      Interrupt first = r.interrupts().get(0);
      Interrupt second = r.interrupts().get(1);
      assertThat(first.requestId()).isNotEqualTo(second.requestId());

      TurnResult partial = join(agent.resumeWith(List.of(new Decision.ApproveOnce(first.requestId(), first.argumentsVersion()))));
      assertThat(partial.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      assertThat(partial.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.ACCEPTED);
      assertThat(partial.interrupts()).extracting(Interrupt::requestId).containsExactly(second.requestId());
      assertThat(tools.shellRuns).as("the approved tool waits for the turn").hasValue(0);
      assertThat(model.requests()).hasSize(1);
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.AWAITING_TOOL_APPROVAL);

      TurnResult done = join(agent.resumeWith(List.of(new Decision.Deny(second.requestId(), second.argumentsVersion(), "not now"))));
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(tools.commands).containsExactly("make");
      List<Message> sent = model.requests().get(1).messages();
      assertThat(sent).hasSize(4);
      assertThat(((ToolResultMessage) sent.get(2)).content()).isEqualTo("ran make");
      assertThat(((ToolResultMessage) sent.get(3)).isError()).isTrue();
      assertThat(((ToolResultMessage) sent.get(3)).content()).contains("not now");
    }
  }

  @Test
  void staleUnknownInvalidDuplicateAndNotAllowedDecisionsAreRefusedAndChangeNothing() throws Exception {
    Tools tools = new Tools();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent agent = Agent.builder(twoShells(), runtime).conversationId("s1").suspendOnApproval(true)
          .allowedDecisions(EnumSet.of(DecisionKind.APPROVE_ONCE, DecisionKind.DENY, DecisionKind.APPROVE_MODIFIED,
              DecisionKind.MODIFY_AND_ASK))
          .build();
      TurnResult r = join(agent.send("go"));
      String a = r.interrupts().get(0).requestId();
      String b = r.interrupts().get(1).requestId();
      int v = r.interrupts().get(0).argumentsVersion();
      int vb = r.interrupts().get(1).argumentsVersion();
      assertThat(r.interrupts().get(0).allowed()).doesNotContain(DecisionKind.APPROVE_ALWAYS);
      // a person edits the first request's arguments: version 1
      TurnResult edited = join(agent.resumeWith(List.of(new Decision.ModifyAndAsk(a, v,
          ToolArguments.ofJson(JSON.readTree("{\"command\":\"make all\"}"))))));
      assertThat(edited.decisions().get(0).status()).isEqualTo(DecisionReport.Status.ACCEPTED);
      int v1 = edited.interrupts().get(0).argumentsVersion();
      assertThat(v1).isGreaterThan(v);

      TurnResult refused = join(agent.resumeWith(List.of(
          new Decision.ApproveOnce(a, v), // stale: made on the version before the edit
          new Decision.ApproveOnce("perm-aaaaaaaaaaaaaaaaaaaaaaaaaa", 0), // forged
          new Decision.ApproveModified(b, vb, ToolArguments.ofJson(JSON.readTree("{\"cmd\":1}")))))); // invalid
      assertThat(refused.decisions()).extracting(DecisionReport::status).containsExactly(
          DecisionReport.Status.STALE, DecisionReport.Status.UNKNOWN_REQUEST,
          DecisionReport.Status.INVALID_ARGUMENTS);
      TurnResult notAllowed = join(agent.resumeWith(List.of(
          new Decision.ApproveAlways(b, vb, dev.toolcall.permission.ArgumentPattern.ANY, null))));
      assertThat(notAllowed.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.NOT_ALLOWED);
      assertThat(notAllowed.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      assertThat(notAllowed.interrupts()).hasSize(2);
      TurnResult twice = join(agent.resumeWith(List.of(new Decision.Deny(b, vb, "x"),
          new Decision.ApproveOnce(b, vb))));
      assertThat(twice.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.ACCEPTED, DecisionReport.Status.DUPLICATE);
      assertThat(refused.decisions().get(0).message()).contains("version " + v).contains("version " + v1);
      assertThat(refused.decisions().get(2).message()).contains("command");
      assertThat(twice.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      assertThat(twice.interrupts()).extracting(Interrupt::requestId, Interrupt::argumentsVersion)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(a, v1));
      assertThat(runtime.permissions().request(a).orElseThrow().arguments().asJson().get("command").asText())
          .isEqualTo("make all");
      assertThat(tools.shellRuns).hasValue(0);

      TurnResult done = join(agent.resumeWith(List.of(new Decision.ApproveOnce(a, v1))));
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(tools.commands).containsExactly("make all");
    }
  }

  @Test
  void anotherSessionsRequestIsAnsweredAsUnknownAndStaysOpen() throws Exception {
    Tools tools = new Tools();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent alice = Agent.builder(twoShells(), runtime).conversationId("alice").suspendOnApproval(true).build();
      Agent bob = Agent.builder(twoShells(), runtime).conversationId("bob").suspendOnApproval(true).build();
      TurnResult ra = join(alice.send("go"));
      TurnResult rb = join(bob.send("go"));
      String bobs = rb.interrupts().get(0).requestId();

      TurnResult r = join(alice.resumeWith(List.of(new Decision.ApproveOnce(bobs, 0))));
      assertThat(r.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.UNKNOWN_REQUEST);
      assertThat(r.decisions().get(0).message()).as("says nothing of the other session")
          .isEqualTo("Not applied: no such request in this conversation.");
      assertThat(runtime.permissions().request(bobs)).isPresent();
      assertThat(bob.interrupts()).isEqualTo(rb.interrupts());
      assertThat(alice.interrupts()).isEqualTo(ra.interrupts());
      assertThat(tools.shellRuns).hasValue(0);
    }
  }

  @Test
  void aReplayedDecisionIsAlreadyAnsweredAndRunsNothingAgain() throws Exception {
    Tools tools = new Tools();
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
        "{\"command\":\"make\"}")).thenText("Built.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent agent = Agent.builder(model, runtime).conversationId("s1").suspendOnApproval(true).build();
      Interrupt i = join(agent.send("go")).interrupts().get(0);
      List<Decision> approve = List.of(new Decision.ApproveOnce(i.requestId(), i.argumentsVersion()));
      assertThat(join(agent.resumeWith(approve)).ending()).isEqualTo(TurnResult.Ending.ANSWERED);

      TurnResult replay = join(agent.resumeWith(approve));
      assertThat(replay.ending()).isEqualTo(TurnResult.Ending.NOT_INTERRUPTED);
      assertThat(replay.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.ALREADY_ANSWERED);
      assertThat(replay.decisions().get(0).message()).contains("approved_once");
      assertThat(tools.shellRuns).hasValue(1);
      assertThat(model.requests()).hasSize(2);
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
    }
  }

  /** Two clients post the same approval at once: exactly one goes on with the turn; the tool runs once. */
  @Test
  void twoClientsRacingToResumeTheSameTurn() throws Exception {
    for (int round = 0; round < 20; round++) {
      Tools tools = new Tools();
      ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
          "{\"command\":\"make\"}")).thenText("Built.");
      try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
        Agent agent = Agent.builder(model, runtime).conversationId("s1").suspendOnApproval(true).build();
        Interrupt open = join(agent.send("go")).interrupts().get(0);
        List<CompletableFuture<TurnResult>> results = Collections.synchronizedList(new ArrayList<>());
        Race.run(2, Duration.ofSeconds(10), i -> results.add(agent.resumeWith(List.of(new Decision.ApproveOnce(
            open.requestId(), open.argumentsVersion()))).toCompletableFuture()));
        List<TurnResult> ends = new ArrayList<>();
        for (CompletableFuture<TurnResult> f : results) {
          ends.add(f.get(10, TimeUnit.SECONDS));
        }
        assertThat(ends).extracting(TurnResult::ending).containsExactlyInAnyOrder(TurnResult.Ending.ANSWERED,
            TurnResult.Ending.NOT_INTERRUPTED);
        assertThat(ends).flatExtracting(TurnResult::decisions).extracting(DecisionReport::status)
            .containsExactlyInAnyOrder(DecisionReport.Status.ACCEPTED, DecisionReport.Status.ALREADY_ANSWERED);
        assertThat(tools.shellRuns).hasValue(1);
        assertThat(model.requests()).hasSize(2);
      }
    }
  }

  @Test
  void aDeadlinePassingWhileSuspendedDeniesTheCallAndTheNextResumeGoesOn() throws Exception {
    Tools tools = new Tools();
    ManualTicker ticker = new ManualTicker();
    ManualTimer timer = new ManualTimer(ticker);
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
        "{\"command\":\"make\"}")).thenText("Nobody answered.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).ticker(ticker).timer(timer).build()) {
      Agent agent = Agent.builder(model, runtime).conversationId("s1").suspendOnApproval(true).build();
      Interrupt open = join(agent.send("go")).interrupts().get(0);
      String id = open.requestId();
      timer.advance(Duration.ofHours(1).plusSeconds(1));
      assertThat(runtime.permissions().request(id)).isEmpty();
      assertThat(agent.interrupts()).as("nothing open any more").isEmpty();
      assertThat(agent.conversation().state()).as("the turn waits for a resume")
          .isEqualTo(ConversationState.AWAITING_TOOL_APPROVAL);

      TurnResult late = join(agent.resumeWith(List.of(new Decision.ApproveOnce(id, open.argumentsVersion()))));
      assertThat(late.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.ALREADY_ANSWERED);
      assertThat(late.decisions().get(0).message()).contains("permission_timeout");
      assertThat(late.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(tools.shellRuns).hasValue(0);
      ToolResultMessage told = (ToolResultMessage) model.requests().get(1).messages().get(2);
      assertThat(told.isError()).isTrue();
      assertThat(told.callId()).isEqualTo("call_1");
    }
  }

  @Test
  void abortingASuspendedTurnCancelsItsCalls() throws Exception {
    Tools tools = new Tools();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent agent = Agent.builder(twoShells(), runtime).conversationId("s1").suspendOnApproval(true).build();
      TurnResult r = join(agent.send("go"));
      agent.abort();
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
      assertThat(runtime.permissions().pending()).isEmpty();
      assertThat(agent.interrupts()).isEmpty();
      TurnResult after = join(agent.resumeWith(List.of(new Decision.ApproveOnce(r.interrupts().get(0).requestId(),
          r.interrupts().get(0).argumentsVersion()))));
      assertThat(after.ending()).isEqualTo(TurnResult.Ending.NOT_INTERRUPTED);
      assertThat(after.decisions().get(0).status()).isEqualTo(DecisionReport.Status.ALREADY_ANSWERED);
      assertThat(tools.shellRuns).hasValue(0);
      assertThat(agent.messages()).filteredOn(m -> m instanceof ToolResultMessage).hasSize(2);
    }
  }

  @Test
  void aSuspendedTurnGoesOnInARestartedProcess() throws Exception {
    Tools a = new Tools();
    String agentJson;
    String runtimeJson;
    Interrupt before;
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(a.all()).build()) {
      Agent agent = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "read_file", "{}"),
          ScriptedModel.call("call_2", "shell", "{\"command\":\"make\"}")), runtime)
          .conversationId("s1").suspendOnApproval(true).build();
      TurnResult r = join(agent.send("go"));
      before = r.interrupts().get(0);
      agentJson = agent.snapshot().toJson();
      runtimeJson = runtime.snapshot().toJson();
    }
    Tools b = new Tools();
    ScriptedModel modelB = new ScriptedModel().thenText("Built.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(b.all()).build()) {
      List<Batch> owed = runtime.restore(RuntimeSnapshot.fromJson(runtimeJson));
      Agent agent = Agent.builder(modelB, runtime).resume(AgentSnapshot.fromJson(agentJson))
          .suspendOnApproval(true).build();
      TurnResult again = join(agent.resume(owed));
      assertThat(again.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      assertThat(again.interrupts()).hasSize(1);
      Interrupt after = again.interrupts().get(0);
      assertThat(after.requestId()).as("the same request id after a restart").isEqualTo(before.requestId());
      assertThat(after.deadline()).isEqualTo(before.deadline());
      assertThat(after.callId()).isEqualTo("call_2");

      TurnResult done = join(agent.resumeWith(List.of(new Decision.ApproveOnce(after.requestId(), after.argumentsVersion()))));
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(b.shellRuns).hasValue(1);
      assertThat(a.shellRuns).hasValue(0);
      List<Message> sent = modelB.requests().get(0).messages();
      assertThat(sent.subList(2, sent.size())).extracting(m -> ((ToolResultMessage) m).callId())
          .containsExactly("call_1", "call_2");
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
      assertThat(runtime.scheduler().activeCalls()).noneMatch(c -> c.state() == ToolCallState.PERMISSION_PENDING);
    }
  }

  /**
   * Two restarts: the read-only call runs after the first (it was held in the first process), the turn is still
   * interrupted on the shell, and the second restart must still know the read's result. Before, a resumed turn's
   * snapshot dropped the results of its restored calls, and the model was told "outcome unknown" for the read.
   */
  @Test
  void aSuspendedTurnSurvivesTwoRestartsWithEveryResultKnown() throws Exception {
    String agentJson;
    String runtimeJson;
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(new Tools().all()).build()) {
      Agent agent = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "read_file", "{}"),
          ScriptedModel.call("call_2", "shell", "{\"command\":\"make\"}")), runtime)
          .conversationId("s1").suspendOnApproval(true).build();
      assertThat(join(agent.send("go")).ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      agentJson = agent.snapshot().toJson();
      runtimeJson = runtime.snapshot().toJson();
    }
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(new Tools().all()).build()) {
      List<Batch> owed = runtime.restore(RuntimeSnapshot.fromJson(runtimeJson));
      Agent agent = Agent.builder(new ScriptedModel(), runtime).resume(AgentSnapshot.fromJson(agentJson))
          .suspendOnApproval(true).build();
      assertThat(join(agent.resume(owed)).ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      for (Batch b : owed) {
        for (dev.toolcall.ToolCall c : b.calls()) {
          if (c.callId().equals("call_1")) {
            c.whenTerminal().toCompletableFuture().get(10, TimeUnit.SECONDS);
          }
        }
      }
      agentJson = agent.snapshot().toJson();
      runtimeJson = runtime.snapshot().toJson();
    }
    Tools c = new Tools();
    ScriptedModel model = new ScriptedModel().thenText("Built.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(c.all()).build()) {
      List<Batch> owed = runtime.restore(RuntimeSnapshot.fromJson(runtimeJson));
      Agent agent = Agent.builder(model, runtime).resume(AgentSnapshot.fromJson(agentJson))
          .suspendOnApproval(true).build();
      Interrupt i = join(agent.resume(owed)).interrupts().get(0);
      TurnResult done = join(agent.resumeWith(List.of(new Decision.ApproveOnce(i.requestId(),
          i.argumentsVersion()))));
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      List<Message> sent = model.requests().get(0).messages();
      assertThat(sent.subList(2, sent.size())).containsExactly(
          new ToolResultMessage("call_1", "read_file", "contents", false),
          new ToolResultMessage("call_2", "shell", "ran make", false));
      assertThat(c.shellRuns).hasValue(1);
    }
  }

  /**
   * Something outside the agent ends the conversation's turn while it is interrupted (conversation().abort()), and a
   * new message starts a new turn: the interrupted turn's calls are cancelled with it, and a late decision for it
   * neither runs its tool nor touches the new turn.
   */
  @Test
  void aNewTurnAfterTheConversationWasStoppedOutsideDropsTheInterruptedOne() throws Exception {
    Tools tools = new Tools();
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
        "{\"command\":\"make\"}")).thenText("Hello again.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent agent = Agent.builder(model, runtime).conversationId("s1").suspendOnApproval(true).build();
      Interrupt i = join(agent.send("go")).interrupts().get(0);
      assertThat(agent.resume(List.of()).toCompletableFuture()).as("resumeWith, not resume, goes on with it")
          .isCompletedExceptionally();
      agent.conversation().abort();
      TurnResult next = join(agent.send("hi"));
      assertThat(next.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(runtime.permissions().pending()).isEmpty();
      TurnResult late = join(agent.resumeWith(List.of(new Decision.ApproveOnce(i.requestId(),
          i.argumentsVersion()))));
      assertThat(late.ending()).isEqualTo(TurnResult.Ending.NOT_INTERRUPTED);
      assertThat(late.decisions().get(0).status()).isEqualTo(DecisionReport.Status.ALREADY_ANSWERED);
      assertThat(tools.shellRuns).hasValue(0);
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
      List<Message> m = agent.messages();
      assertThat(m).hasSize(5); // user, assistant with the call, its cancellation, user, answer
      assertThat(((ToolResultMessage) m.get(2)).isError()).isTrue();
    }
  }
}
