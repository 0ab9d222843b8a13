package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentSnapshot;
import dev.toolcall.ConversationState;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.Batch;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, parts 1 and 3 through PostgreSQL, with no file: an agent's turn waits for an approval on process A, whose
 * calls are in the shared store and whose conversation is saved there; A is redeployed (closed: it hands its calls
 * over); process B loads the conversation and restores the calls from the database, the person approves on B, the
 * tool runs once, and the model gets exactly one result per call and answers, in the same turn.
 */
class PostgresAgentResumeTest {

  @Test
  void aTurnWaitingForApprovalGoesOnInAnotherProcessFromTheDatabase() throws Exception {
    DataSource db = PgCluster.database("toolcall_agent_resume");
    PostgresCallStore.create(db).applySchema();
    AtomicInteger shellRuns = new AtomicInteger();
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      shellRuns.incrementAndGet();
      return ToolResult.of("tests passed");
    });

    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second("toolcall_agent_resume"), 4));
    ScriptedModel modelA = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
        "{\"command\":\"npm test\"}"));
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell)
        .sharedStore(storeA.shared("a", Duration.ofSeconds(30))).build()) {
      Agent agent = Agent.builder(modelA, a).conversationId("conv-pg").build();
      CompletionStage<TurnResult> turn = agent.send("Run the tests");
      a.permissions().nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (agent.conversation().state() != ConversationState.AWAITING_TOOL_APPROVAL) {
        assertThat(System.nanoTime()).as("the turn never waited for approval").isLessThan(until);
        Thread.onSpinWait();
      }
      assertThat(storeA.saveConversation(agent.snapshot())).isTrue();
      assertThat(turn.toCompletableFuture().isDone()).isFalse();
    } // redeployed: A hands its calls over, nothing is cancelled
    assertThat(shellRuns).hasValue(0);

    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second("toolcall_agent_resume"), 4));
    ScriptedModel modelB = new ScriptedModel().thenText("The tests passed.");
    try (ToolCallRuntime b = ToolCallRuntime.builder().tools(shell)
        .sharedStore(storeB.shared("b", Duration.ofSeconds(30))).build()) {
      AgentSnapshot saved = storeB.loadConversation("conv-pg").orElseThrow();
      List<Batch> owed = b.restore(storeB.snapshot(Clock.systemUTC()));
      Agent agent = Agent.builder(modelB, b).resume(saved).build();
      CompletionStage<TurnResult> resumed = agent.resume(owed);
      PermissionRequest again = b.permissions().nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(again.callId()).isEqualTo("call_1");
      assertThat(b.permissions().decide(again.requestId(), Decision.approveOnce(again)).won()).isTrue();

      TurnResult result = resumed.toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(result.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(result.text()).isEqualTo("The tests passed.");
      assertThat(shellRuns).as("the approved call ran once, after the redeploy").hasValue(1);
      List<Message> sent = modelB.requests().get(0).messages();
      assertThat(sent).hasSize(3);
      assertThat(sent.get(2)).isEqualTo(new ToolResultMessage("call_1", "shell", "tests passed", false));
      assertThat(agent.conversation().snapshot().turn()).as("the same turn").isEqualTo(1);
      assertThat(storeB.saveConversation(agent.snapshot())).as("a later state replaces it").isTrue();
      assertThat(storeB.saveConversation(saved)).as("an older one never does").isFalse();
      assertThat(storeB.loadConversation("conv-pg").orElseThrow().conversation().state())
          .isEqualTo(ConversationState.IDLE);
    }
  }
}
