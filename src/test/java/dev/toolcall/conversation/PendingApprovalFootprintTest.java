package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.Heap;
import dev.toolcall.testing.ScriptedModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What one pending approval of a suspended turn retains, class by class (the JVM's class histogram after full GCs):
 * a turn interrupted on 81 approvals against one interrupted on 1, divided by 80; and what a suspended turn retains,
 * 500 agents each with one turn interrupted on one approval against 500 idle agents. The companion of
 * {@link SuspendMemoryTest}, for finding what to cut. Tagged stress: it measures.
 * Run: {@code mvn test -DexcludedGroups= -Dgroups=stress -Dtest=PendingApprovalFootprintTest}.
 */
@Tag("stress")
class PendingApprovalFootprintTest {

  @Test
  void whatAPendingApprovalAndASuspendedTurnRetain() throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(SuspendMemoryTest.shell()).build()) {
      int k = 81;
      List<ToolCallRequest> calls = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        calls.add(ScriptedModel.call("m" + i, "shell", "{\"command\":\"job " + i + "\"}"));
      }
      Agent big = Agent.builder(new ScriptedModel().thenCalls(calls.toArray(ToolCallRequest[]::new)), runtime)
          .conversationId("many").suspendOnApproval(true)
          .limits(TurnLimits.builder().maxToolCallsPerTurn(1000).maxCallsPerTool(1000).build()).build();
      Agent one = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("m0", "shell",
          "{\"command\":\"job 0\"}")), runtime).conversationId("one").suspendOnApproval(true).build();
      // warm up the code of a turn with one call and of one with several, so that the histograms below hold no
      // one-time linkage (lambdas, string concatenation) that the big turn would otherwise be charged with
      Agent warm = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("w", "shell", "{}")), runtime)
          .conversationId("warm").suspendOnApproval(true).build();
      warm.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
      Agent warmMany = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("w1", "shell", "{}"),
          ScriptedModel.call("w2", "shell", "{}"), ScriptedModel.call("w3", "shell", "{}")), runtime)
          .conversationId("warm-many").suspendOnApproval(true).build();
      warmMany.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);

      Map<String, long[]> h0 = Heap.histogram();
      assertThat(one.send("Run it").toCompletableFuture().get(10, TimeUnit.SECONDS).interrupts()).hasSize(1);
      Map<String, long[]> h1 = Heap.histogram();
      assertThat(big.send("Run them").toCompletableFuture().get(10, TimeUnit.SECONDS).interrupts()).hasSize(k);
      Map<String, long[]> h2 = Heap.histogram();
      Map<String, long[]> perApproval = minus(h2, h1, h0);
      System.out.println("== per further pending approval of a suspended turn (" + (k - 1) + " more):\n"
          + Heap.growth(Map.of(), perApproval, k - 1, 8));

      int n = 500;
      List<Agent> idle = new ArrayList<>();
      List<Agent> suspended = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        idle.add(Agent.builder(new ScriptedModel(), runtime).conversationId("idle-" + i).suspendOnApproval(true)
            .build());
      }
      Map<String, long[]> h3 = Heap.histogram();
      for (int i = 0; i < n; i++) {
        Agent a = Agent.builder(new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
            "{\"command\":\"deploy " + i + "\"}")), runtime).conversationId("s-" + i).suspendOnApproval(true).build();
        assertThat(a.send("Deploy " + i).toCompletableFuture().get(10, TimeUnit.SECONDS).ending())
            .isEqualTo(TurnResult.Ending.INTERRUPTED);
        suspended.add(a);
      }
      Map<String, long[]> h4 = Heap.histogram();
      Map<String, long[]> afterIdle = new java.util.HashMap<>(h4);
      System.out.println("== per agent with a suspended turn on one approval, beyond " + n + " idle agents:\n"
          + Heap.growth(h3, afterIdle, n, 8));
      assertThat(idle).hasSize(n);
      assertThat(suspended).hasSize(n);
      assertThat(List.of(one, big, warm, warmMany)).hasSize(4);
    }
  }

  /** {@code b - a} minus {@code a0 -> a1}'s growth (a - a0): what the big turn added beyond the one-call turn. */
  private static Map<String, long[]> minus(Map<String, long[]> b, Map<String, long[]> a, Map<String, long[]> a0) {
    Map<String, long[]> out = new java.util.HashMap<>();
    java.util.Set<String> keys = new java.util.HashSet<>(b.keySet());
    keys.addAll(a.keySet());
    for (String key : keys) {
      long[] vb = b.getOrDefault(key, new long[2]);
      long[] va = a.getOrDefault(key, new long[2]);
      long[] v0 = a0.getOrDefault(key, new long[2]);
      out.put(key, new long[] {(vb[0] - va[0]) - (va[0] - v0[0]), (vb[1] - va[1]) - (va[1] - v0[1])});
    }
    return out;
  }
}
