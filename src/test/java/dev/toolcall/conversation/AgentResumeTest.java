package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.RuntimeSnapshot;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.Batch;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, part 3: an Agent turn that waits for approvals survives a restart. Process A's turn asks the model, which
 * calls a read-only tool (it runs) and a shell command (it waits for a person); A's agent and runtime are snapshotted
 * to JSON and A stops. Process B re-creates the model client and the tools, restores both, the person approves on B,
 * the shell runs once, and the model gets exactly one result per call, in order, and answers.
 */
class AgentResumeTest {

  static final class Tools {
    final AtomicInteger shellRuns = new AtomicInteger();
    final AtomicInteger readRuns = new AtomicInteger();

    List<Tool> all() {
      return List.of(
          Tool.of(ToolDefinition.builder("read_file").readOnly(true).requiresApproval(false).build(), inv -> {
            readRuns.incrementAndGet();
            return ToolResult.of("contents of a.txt");
          }),
          Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
            shellRuns.incrementAndGet();
            return ToolResult.of("tests passed");
          }));
    }
  }

  @Test
  void aTurnWaitingForApprovalGoesOnAfterARestart() throws Exception {
    Tools a = new Tools();
    String agentJson;
    String runtimeJson;
    ScriptedModel modelA = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "read_file", "{\"path\":\"a\"}"),
        ScriptedModel.call("call_2", "shell", "{\"command\":\"npm test\"}"));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(a.all()).build()) {
      Agent agent = Agent.builder(modelA, runtime).conversationId("conv-7").build();
      CompletionStage<TurnResult> turn = agent.send("Run the tests");
      PermissionRequest asked = runtime.permissions().nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(asked.callId()).isEqualTo("call_2");
      awaitState(agent, ConversationState.AWAITING_TOOL_APPROVAL);
      runtime.scheduler().activeCalls(); // the read has ended or not: the agent's snapshot reads each call once
      AgentSnapshot saved = agent.snapshot(); // first the agent's state, then the runtime's
      runtimeJson = runtime.snapshot().toJson();
      agentJson = saved.toJson();
      assertThat(saved.conversation().state()).isEqualTo(ConversationState.AWAITING_TOOL_APPROVAL);
      assertThat(turn.toCompletableFuture().isDone()).isFalse();
    }
    assertThat(a.shellRuns).hasValue(0);

    Tools b = new Tools();
    ScriptedModel modelB = new ScriptedModel().thenText("The tests passed.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(b.all()).build()) {
      List<Batch> owed = runtime.restore(RuntimeSnapshot.fromJson(runtimeJson));
      Agent agent = Agent.builder(modelB, runtime).resume(AgentSnapshot.fromJson(agentJson)).build();
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.AWAITING_TOOL_APPROVAL);
      CompletionStage<TurnResult> resumed = agent.resume(owed);
      PermissionRequest again = runtime.permissions().nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(again.callId()).isEqualTo("call_2");
      assertThat(runtime.permissions().decide(again.requestId(), Decision.approveOnce(again)).won()).isTrue();

      TurnResult result = resumed.toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(result.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(result.text()).isEqualTo("The tests passed.");
      assertThat(b.shellRuns).as("the approved call ran once, after the restart").hasValue(1);
      assertThat(a.readRuns).as("held until executing_tools, the read never ran in the first process").hasValue(0);
      assertThat(b.readRuns).as("approved before the restart, it ran once after it").hasValue(1);
      ModelRequest sent = modelB.requests().get(0);
      List<Message> m = sent.messages();
      assertThat(m).hasSize(4);
      assertThat(m.get(0)).isEqualTo(new UserMessage("Run the tests"));
      assertThat(m.get(2)).isEqualTo(new ToolResultMessage("call_1", "read_file", "contents of a.txt", false));
      assertThat(m.get(3)).isEqualTo(new ToolResultMessage("call_2", "shell", "tests passed", false));
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
      assertThat(agent.conversation().snapshot().turn()).as("the same turn, not a new one").isEqualTo(1);
    }
  }

  @Test
  void aCallInNeitherSnapshotIsAnsweredAsUnknownAndATurnWaitingForTheModelAsksAgain() throws Exception {
    Tools b = new Tools();
    // the agent's state says executing_tools with one open call that no runtime snapshot holds
    ConversationSnapshot c = ConversationSnapshot.initial("conv-9", java.time.Instant.parse("2026-11-25T09:00:00Z"), 0)
        .next(ConversationState.PROCESSING_USER_MESSAGE, null, ConversationReasons.USER_MESSAGE, 1)
        .next(ConversationState.AWAITING_LLM_RESPONSE, null, ConversationReasons.MODEL_REQUESTED, 2)
        .next(ConversationState.PROCESSING_LLM_RESPONSE, null, ConversationReasons.MODEL_RESPONDED, 3)
        .next(ConversationState.EXECUTING_TOOLS, null, ConversationReasons.TOOLS_STARTED, 4);
    AgentSnapshot saved = new AgentSnapshot(c, List.of(new UserMessage("go"),
        new AssistantMessage("", List.of(new ToolCallRequest("call_9", "shell", "{\"command\":\"make\"}")))),
        List.of());
    ScriptedModel model = new ScriptedModel().thenText("I will check first.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(b.all()).build()) {
      Agent agent = Agent.builder(model, runtime).resume(AgentSnapshot.fromJson(saved.toJson())).build();
      TurnResult r = agent.resume(List.of()).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(model.requests().get(0).messages().get(2)).isInstanceOfSatisfying(ToolResultMessage.class, m -> {
        assertThat(m.callId()).isEqualTo("call_9");
        assertThat(m.isError()).isTrue();
        assertThat(m.content()).startsWith("Outcome unknown");
      });
      assertThat(b.shellRuns).hasValue(0);
      assertThat(agent.resume(List.of()).toCompletableFuture()).as("nothing left to resume")
          .isCompletedExceptionally();
    }
  }

  private static void awaitState(Agent agent, ConversationState s) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (agent.conversation().state() != s) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("conversation never reached " + s + "; it is " + agent.conversation().state());
      }
      Thread.onSpinWait();
    }
  }
}
