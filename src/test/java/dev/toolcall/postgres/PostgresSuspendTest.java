package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentSnapshot;
import dev.toolcall.ConversationState;
import dev.toolcall.conversation.DecisionReport;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.Batch;
import dev.toolcall.permission.Decision;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, part 1, through PostgreSQL: instance A's turn ends interrupted at once (no thread waits for the person);
 * its conversation and calls are in the shared store; A is redeployed. Instance B loads the conversation, restores the
 * calls, finds the same interrupt (same request id, same absolute deadline), and a person's decision posted to B
 * resumes the turn: the tool runs once, the model gets one result, and a replay of the decision changes nothing.
 */
class PostgresSuspendTest {

  @Test
  void aTurnInterruptedOnOneInstanceIsResumedOnAnother() throws Exception {
    DataSource db = PgCluster.database("toolcall_suspend");
    PostgresCallStore.create(db).applySchema();
    AtomicInteger shellRuns = new AtomicInteger();
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      shellRuns.incrementAndGet();
      return ToolResult.of("deployed");
    });

    Interrupt before;
    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second("toolcall_suspend"), 4));
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell)
        .sharedStore(storeA.shared("a", Duration.ofSeconds(30))).build()) {
      Agent agent = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
          "{\"command\":\"deploy\"}")), a).conversationId("conv-s").suspendOnApproval(true).build();
      TurnResult r = agent.send("Deploy").toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      before = r.interrupts().get(0);
      assertThat(storeA.saveConversation(agent.snapshot())).isTrue();
    }
    assertThat(shellRuns).hasValue(0);

    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second("toolcall_suspend"), 4));
    ScriptedModel modelB = new ScriptedModel().thenText("Deployed.");
    try (ToolCallRuntime b = ToolCallRuntime.builder().tools(shell)
        .sharedStore(storeB.shared("b", Duration.ofSeconds(30))).build()) {
      AgentSnapshot saved = storeB.loadConversation("conv-s").orElseThrow();
      List<Batch> owed = b.restore(storeB.snapshot(Clock.systemUTC()));
      Agent agent = Agent.builder(modelB, b).resume(saved).suspendOnApproval(true).build();
      TurnResult again = agent.resume(owed).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(again.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      Interrupt after = again.interrupts().get(0);
      assertThat(after.requestId()).isEqualTo(before.requestId());
      assertThat(after.deadline()).isEqualTo(before.deadline());

      List<Decision> approve = List.of(new Decision.ApproveOnce(after.requestId(), after.argumentsVersion()));
      TurnResult done = agent.resumeWith(approve).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(done.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.ACCEPTED);
      assertThat(shellRuns).hasValue(1);
      assertThat(modelB.requests().get(0).messages().get(2))
          .isEqualTo(new ToolResultMessage("call_1", "shell", "deployed", false));
      TurnResult replay = agent.resumeWith(approve).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(replay.ending()).isEqualTo(TurnResult.Ending.NOT_INTERRUPTED);
      assertThat(replay.decisions()).extracting(DecisionReport::status)
          .containsExactly(DecisionReport.Status.ALREADY_ANSWERED);
      assertThat(shellRuns).hasValue(1);
      assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
    }
  }
}
