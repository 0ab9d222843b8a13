package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolResult;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.Heap;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What an instance's heap keeps of a suspended turn when its conversations live in the store (an
 * {@link AgentDirectory} over a shared PostgreSQL store): the turn's agent is let go and its calls are handed over
 * to the store, so the heap retained per suspended turn stays near zero however many there are (target: under 100
 * bytes, over 10,000 suspended turns by default; {@code -Dtoolcall.suspended.turns=N}). Then one of them is resumed
 * on the same instance from the store alone, which proves the turns are still there to be resumed.
 */
@Tag("stress")
class SuspendedTurnHeapTest {

  @Test
  void aSuspendedTurnLeavesNothingInTheInstancesHeap() throws Exception {
    int n = Integer.getInteger("toolcall.suspended.turns", 10_000);
    DataSource db = PgCluster.database("toolcall_suspended_heap");
    PostgresCallStore.create(db).applySchema();
    PostgresCallStore store = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second("toolcall_suspended_heap"), 8));
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ran"));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell)
        .sharedStore(store.shared("heap", Duration.ofSeconds(30))).build();
        AgentDirectory dir = AgentDirectory.builder(runtime, store.conversations(),
            id -> Agent.builder(new ClusterModel(), runtime)).build()) {
      Interrupt first = null;
      // warm up: classes, pools, and the bounded caches an instance keeps whatever the load (the store view's window
      // of its own writes holds the latest 4,096 calls)
      for (int i = 0; i < 4_400; i++) {
        TurnResult r = dir.send("warm-" + i, "deploy w" + i).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      }
      var histBefore = Boolean.getBoolean("toolcall.heap.histogram") ? Heap.histogram() : null;
      long before = Heap.usedAfterGc();
      for (int i = 0; i < n; i++) {
        TurnResult r = dir.send("s-" + i, "deploy t" + i).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
        if (i == 0) {
          first = r.interrupts().get(0);
        }
      }
      long perTurn = (Heap.usedAfterGc() - before) / n;
      if (histBefore != null) {
        System.out.println(Heap.growth(histBefore, Heap.histogram(), n, 12));
      }
      System.out.println("suspended turns: " + n + "; heap retained per suspended turn: " + perTurn + " B; agents held: "
          + dir.heldAgents() + "; requests open in this runtime's queue: " + runtime.permissions().pending().size());
      assertThat(dir.heldAgents()).isZero();
      assertThat(runtime.permissions().pending()).isEmpty();
      assertThat(perTurn).as("heap retained per suspended turn").isLessThan(100);

      TurnResult done = dir.resumeWith("s-0", List.of(new Decision.ApproveOnce(first.requestId(),
          first.argumentsVersion()))).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(done.text()).isEqualTo("done: [ran]");
    }
  }
}
