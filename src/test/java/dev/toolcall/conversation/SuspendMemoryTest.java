package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.Heap;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 29's figures: memory retained per suspended turn and per pending approval of a suspended turn, after full
 * GCs, and no thread per suspended turn. (1) 2,000 agents, each with one turn interrupted on one approval, against
 * 2,000 idle agents; (2) one agent whose turn is interrupted on 80 approvals at once. Tagged stress: it measures.
 * Run: {@code mvn test -DexcludedGroups= -Dgroups=stress -Dtest=SuspendMemoryTest}.
 */
@Tag("stress")
class SuspendMemoryTest {

  static Tool shell() {
    return Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ok"));
  }

  @Test
  void memoryPerSuspendedTurnAndPerPendingApproval() throws Exception {
    int n = 2_000;
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell()).build()) {
      List<Agent> idle = new ArrayList<>(n);
      long b0 = Heap.usedAfterGc();
      for (int i = 0; i < n; i++) {
        idle.add(Agent.builder(new ScriptedModel(), runtime).conversationId("idle-" + i).build());
      }
      long perIdleAgent = (Heap.usedAfterGc() - b0) / n;

      // warm up, then count threads: suspended turns must not add any
      Agent warm = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("c", "shell", "{}")), runtime)
          .conversationId("warm").suspendOnApproval(true).build();
      warm.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
      int threadsBefore = Thread.activeCount();
      List<Agent> suspended = new ArrayList<>(n);
      long b1 = Heap.usedAfterGc();
      for (int i = 0; i < n; i++) {
        ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
            "{\"command\":\"deploy " + i + "\"}"));
        Agent a = Agent.builder(model, runtime).conversationId("s-" + i).suspendOnApproval(true).build();
        TurnResult r = a.send("Deploy " + i).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
        suspended.add(a);
      }
      long perSuspended = (Heap.usedAfterGc() - b1) / n;
      int threadsAfter = Thread.activeCount();
      assertThat(runtime.permissions().pending()).hasSize(n + 1);
      assertThat(threadsAfter).as("no thread per suspended turn").isLessThanOrEqualTo(threadsBefore + 2);

      // the same turns without suspension: each stage stays pending until a person answers
      List<Agent> waiting = new ArrayList<>(n);
      List<java.util.concurrent.CompletionStage<TurnResult>> stages = new ArrayList<>(n);
      long bw = Heap.usedAfterGc();
      for (int i = 0; i < n; i++) {
        ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
            "{\"command\":\"deploy " + i + "\"}"));
        Agent a = Agent.builder(model, runtime).conversationId("w-" + i).build();
        stages.add(a.send("Deploy " + i));
        waiting.add(a);
      }
      for (Agent a : waiting) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (a.conversation().state() != ConversationState.AWAITING_TOOL_APPROVAL) {
          assertThat(System.nanoTime()).as("never waited for approval").isLessThan(until);
          Thread.onSpinWait();
        }
      }
      long perWaiting = (Heap.usedAfterGc() - bw) / n;
      assertThat(stages).noneMatch(st -> st.toCompletableFuture().isDone());

      int k = 80;
      ScriptedModel many = new ScriptedModel();
      List<ToolCallRequest> calls = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        calls.add(ScriptedModel.call("m" + i, "shell", "{\"command\":\"job " + i + "\"}"));
      }
      many.thenCalls(calls.toArray(ToolCallRequest[]::new));
      Agent big = Agent.builder(many, runtime).conversationId("many").suspendOnApproval(true)
          .limits(TurnLimits.builder().maxToolCallsPerTurn(1000).maxCallsPerTool(1000).build()).build();
      Agent oneMore = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("x", "shell", "{}")), runtime)
          .conversationId("one").suspendOnApproval(true).build();
      // the turn results are checked and let go before measuring: what is counted is what the agent and the
      // runtime retain for the suspended turn, not the caller's copy of its result
      long b2 = Heap.usedAfterGc();
      assertThat(oneMore.send("x").toCompletableFuture().get(10, TimeUnit.SECONDS).interrupts()).hasSize(1);
      long oneTurn = Heap.usedAfterGc() - b2;
      long b3 = Heap.usedAfterGc();
      assertThat(big.send("Run them").toCompletableFuture().get(10, TimeUnit.SECONDS).interrupts()).hasSize(k);
      long bigTurn = Heap.usedAfterGc() - b3;
      long perApproval = (bigTurn - oneTurn) / (k - 1);

      System.out.println("idle agent: " + perIdleAgent + " B; agent with a turn suspended on one approval: "
          + perSuspended + " B (so the suspended turn itself: " + (perSuspended - perIdleAgent) + " B); each further "
          + "pending approval of a suspended turn: " + perApproval + " B; threads before/after " + n
          + " suspended turns: " + threadsBefore + "/" + threadsAfter + "; agent whose turn waits in process (no "
          + "suspension): " + perWaiting + " B");
      assertThat(idle).hasSize(n);
      assertThat(suspended).hasSize(n);
      assertThat(perSuspended).isGreaterThan(perIdleAgent);
    }
  }
}
