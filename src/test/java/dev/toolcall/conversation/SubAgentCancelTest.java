package dev.toolcall.conversation;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Cancelling a call cancels every call nested under it, and theirs in turn, with no code in the tools: three levels
 * of nested calls through the scheduler, and three levels of agents (a sub-agent built with
 * {@link Agent.Builder#parent}, whose turn is aborted so that it never asks its model again).
 */
class SubAgentCancelTest {

  /** The final state of every call the runtime saw, by call id, with a latch per awaited id. */
  private static final class FinalStates extends ConcurrentHashMap<String, ToolCallState> {
    private final Map<String, CountDownLatch> ended = new ConcurrentHashMap<>();

    FinalStates(ToolCallRuntime rt, List<String> ids) {
      ids.forEach(id -> ended.put(id, new CountDownLatch(1)));
      rt.events().subscribe(new EventListener() {
        @Override
        public void onStateChanged(ToolCallEvent.StateChanged e) {
          if (e.to().isTerminal()) {
            put(e.sourceId(), e.to());
            CountDownLatch l = ended.get(e.sourceId());
            if (l != null) {
              l.countDown();
            }
          }
        }
      });
    }

    /** Waits (bounded) until every awaited call has ended. */
    void awaitAll() throws InterruptedException {
      for (Map.Entry<String, CountDownLatch> e : ended.entrySet()) {
        assertThat(e.getValue().await(10, TimeUnit.SECONDS)).as("call %s ended", e.getKey()).isTrue();
      }
    }
  }

  @Test
  void cancellingTheTopCallCancelsThreeLevelsOfNestedCalls() throws Exception {
    AtomicReference<ToolCallRuntime> rt = new AtomicReference<>();
    CountDownLatch leafRunning = new CountDownLatch(1);
    CountDownLatch leafInterrupted = new CountDownLatch(1); // counted down on the tool's thread, after its cancel
    Tool task = Tool.of(ToolDefinition.builder("task").description("runs a sub-task").readOnly(true)
        .requiresApproval(false).timeout(Duration.ofSeconds(30)).build(), inv -> {
          int depth = inv.arguments().asJson().path("depth").asInt();
          if (depth == 3) {
            leafRunning.countDown();
            try {
              new CountDownLatch(1).await(20, TimeUnit.SECONDS); // hangs until interrupted by its cancel
            } catch (InterruptedException e) {
              leafInterrupted.countDown();
              throw e;
            }
            return ToolResult.of("leaf finished (never)");
          }
          CallResult sub = rt.get().schedule("s", List.of(CallRequest.of(inv.callId() + "." + (depth + 1), "task",
              "{\"depth\":" + (depth + 1) + "}").nestedIn(inv.callId()))).join().get(0);
          return ToolResult.of("level " + depth + " > " + sub.messageForModel());
        });
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(task).build()) {
      rt.set(runtime);
      FinalStates states = new FinalStates(runtime, List.of("c", "c.1", "c.1.2", "c.1.2.3"));
      var batch = runtime.schedule("s", List.of(CallRequest.of("c", "task", "{\"depth\":0}")));
      assertThat(leafRunning.await(10, TimeUnit.SECONDS)).isTrue();

      batch.calls().get(0).cancel("the user pressed Esc");

      List<CallResult> results = batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(results.get(0).snapshot().state()).isEqualTo(ToolCallState.CANCELLED);
      states.awaitAll();
      assertThat(states).containsEntry("c.1", ToolCallState.CANCELLED).containsEntry("c.1.2", ToolCallState.CANCELLED)
          .containsEntry("c.1.2.3", ToolCallState.CANCELLED);
      assertThat(leafInterrupted.await(10, TimeUnit.SECONDS)).as("the leaf's tool was interrupted").isTrue();
    }
  }

  @Test
  void abortingTheTopTurnAbortsTwoLevelsOfSubAgentsAndEveryCallUnderThem() throws Exception {
    AtomicReference<ToolCallRuntime> rt = new AtomicReference<>();
    CountDownLatch leafRunning = new CountDownLatch(1);
    Map<Integer, ScriptedModel> models = new ConcurrentHashMap<>();
    Map<Integer, TurnResult> subTurns = new ConcurrentHashMap<>();
    CountDownLatch subTurnEnded = new CountDownLatch(2);
    Tool hang = Tool.of(ToolDefinition.builder("hang").description("waits").readOnly(true).requiresApproval(false)
        .timeout(Duration.ofSeconds(30)).build(), inv -> {
          leafRunning.countDown();
          new CountDownLatch(1).await(20, TimeUnit.SECONDS);
          return ToolResult.of("never");
        });
    Tool delegate = Tool.of(ToolDefinition.builder("delegate").description("runs a sub-agent").readOnly(true)
        .requiresApproval(false).timeout(Duration.ofSeconds(30)).build(), inv -> {
          int depth = inv.arguments().asJson().path("depth").asInt();
          ScriptedModel m = new ScriptedModel().thenCalls(depth == 2
              ? call(inv.callId() + ".h", "hang", "{}")
              : call(inv.callId() + ".d", "delegate", "{\"depth\":" + (depth + 1) + "}"))
              .thenText("sub-agent answer (must never be asked for)");
          models.put(depth, m);
          Agent sub = Agent.builder(m, rt.get()).conversationId("sub-" + inv.callId()).parent(inv).build();
          var stage = sub.send("do it").toCompletableFuture();
          stage.thenAccept(r -> {
            subTurns.put(depth, r);
            subTurnEnded.countDown();
          });
          return ToolResult.of(stage.get(20, TimeUnit.SECONDS).text()); // interrupted when this call is cancelled
        });
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(delegate, hang).build()) {
      rt.set(runtime);
      FinalStates states = new FinalStates(runtime, List.of("t", "t.d", "t.d.h"));
      ScriptedModel top = new ScriptedModel().thenCalls(call("t", "delegate", "{\"depth\":1}")).thenText("top");
      Agent agent = Agent.builder(top, runtime).build();
      var turn = agent.send("go").toCompletableFuture();
      assertThat(leafRunning.await(10, TimeUnit.SECONDS)).isTrue();

      agent.abort();

      assertThat(turn.get(10, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ABORTED);
      states.awaitAll();
      assertThat(states).containsEntry("t", ToolCallState.CANCELLED).containsEntry("t.d", ToolCallState.CANCELLED)
          .containsEntry("t.d.h", ToolCallState.CANCELLED);
      assertThat(subTurnEnded.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(subTurns.values()).extracting(TurnResult::ending).containsOnly(TurnResult.Ending.ABORTED);
      assertThat(models.get(1).requests()).as("the first sub-agent asked its model once").hasSize(1);
      assertThat(models.get(2).requests()).as("the second sub-agent asked its model once").hasSize(1);
      assertThat(top.requests()).hasSize(1);
    }
  }
}
