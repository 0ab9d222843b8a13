package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ConversationState;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolResult;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ConversationBusyException;
import dev.toolcall.conversation.DecisionReport;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two instances (two runtimes, each with its own pool and directory) on one PostgreSQL: a turn suspended on A is
 * resumed on B; A, still holding its own agent of the turn, then answers a resume from the store's truth (already
 * resumed) and never calls the model; an outcome reached while the turn was suspended (a deadline) is what the model
 * is told; two instances racing for one conversation run one step.
 */
class PostgresDirectoryTest {

  private static final String DB = "toolcall_directory";
  private final AtomicInteger shellRuns = new AtomicInteger();

  @BeforeAll
  static void schema() {
    DataSource db = PgCluster.database(DB);
    PostgresCallStore.create(db).applySchema();
  }

  private Tool shell(Duration timeout) {
    return Tool.of(ToolDefinition.builder("shell").permissionTimeout(timeout).build(), inv -> {
      shellRuns.incrementAndGet();
      return ToolResult.of("deployed");
    });
  }

  private static ToolCallRuntime runtime(PostgresCallStore store, String owner, Tool tool) {
    return ToolCallRuntime.builder().tools(tool).sharedStore(store.shared(owner, Duration.ofSeconds(3))).build();
  }

  @Test
  void aTurnSuspendedOnOneInstanceIsResumedOnAnotherAndTheFirstDoesNotAnswerItAgain() throws Exception {
    Tool shell = shell(Duration.ofHours(1));
    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    ScriptedModel modelA = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell", "{\"c\":\"deploy\"}"))
        .thenText("A answered again");
    ScriptedModel modelB = new ScriptedModel().thenText("Deployed.");
    try (ToolCallRuntime a = runtime(storeA, "a", shell); ToolCallRuntime b = runtime(storeB, "b", shell);
        AgentDirectory dirA = AgentDirectory.builder(a, storeA.conversations(), id -> Agent.builder(modelA, a))
            .owner("a").build();
        AgentDirectory dirB = AgentDirectory.builder(b, storeB.conversations(), id -> Agent.builder(modelB, b))
            .owner("b").build()) {
      TurnResult r = dirA.send("d-1", "Deploy").toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      Interrupt i = r.interrupts().get(0);
      List<Decision> approve = List.of(new Decision.ApproveOnce(i.requestId(), i.argumentsVersion()));

      TurnResult done = dirB.resumeWith("d-1", approve).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(done.decisions()).extracting(DecisionReport::status).containsExactly(DecisionReport.Status.ACCEPTED);
      assertThat(shellRuns).hasValue(1);
      assertThat(modelB.requests().get(0).messages().get(2))
          .isEqualTo(new ToolResultMessage("call_1", "shell", "deployed", false));

      // A still holds its agent of the suspended turn; the store says the turn went on elsewhere
      TurnResult late = dirA.resumeWith("d-1", approve).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(late.ending()).isEqualTo(TurnResult.Ending.NOT_INTERRUPTED);
      assertThat(late.decisions()).extracting(DecisionReport::status)
          .doesNotContain(DecisionReport.Status.ACCEPTED);
      assertThat(modelA.requests()).hasSize(1);
      assertThat(shellRuns).hasValue(1);
      assertThat(dirA.snapshot("d-1").orElseThrow().conversation().state()).isEqualTo(ConversationState.IDLE);
    }
  }

  @Test
  void theModelIsToldTheStoredOutcomeOfACallDeniedAtItsDeadlineWhileSuspended() throws Exception {
    Tool shell = shell(Duration.ofMillis(300));
    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    ScriptedModel modelA = new ScriptedModel().thenCalls(ScriptedModel.call("call_9", "shell", "{\"c\":\"x\"}"));
    ScriptedModel modelB = new ScriptedModel().thenText("It timed out.");
    try (ToolCallRuntime a = runtime(storeA, "a2", shell); ToolCallRuntime b = runtime(storeB, "b2", shell);
        AgentDirectory dirA = AgentDirectory.builder(a, storeA.conversations(), id -> Agent.builder(modelA, a))
            .build();
        AgentDirectory dirB = AgentDirectory.builder(b, storeB.conversations(), id -> Agent.builder(modelB, b))
            .build()) {
      CountDownLatch denied = new CountDownLatch(1);
      for (ToolCallRuntime r : List.of(a, b)) { // whichever instance sweeps first denies it
        r.events().subscribe(new EventListener() {
          @Override
          public void onStateChanged(ToolCallEvent.StateChanged e) {
            if (e.snapshot().state() == ToolCallState.PERMISSION_DENIED) {
              denied.countDown();
            }
          }
        });
      }
      assertThat(dirA.send("d-2", "Go").toCompletableFuture().get(10, TimeUnit.SECONDS).ending())
          .isEqualTo(TurnResult.Ending.INTERRUPTED);
      assertThat(denied.await(10, TimeUnit.SECONDS)).isTrue();
      TurnResult r = dirB.resumeWith("d-2", List.of()).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      Message told = modelB.requests().get(0).messages().get(2);
      assertThat(told).isInstanceOf(ToolResultMessage.class);
      assertThat(((ToolResultMessage) told).content()).doesNotContain("Outcome unknown").contains("nobody answered the permission request in time")
          .doesNotContain("stopped").doesNotContain("unreachable");
      assertThat(shellRuns).hasValue(0);
    }
  }

  /**
   * Invariant: two instances sending to one new conversation at once run exactly one step; the other is refused
   * busy. Repeated 100 times with a start latch.
   */
  @Test
  void twoInstancesRacingForOneConversationRunOneStep() throws Exception {
    Tool shell = shell(Duration.ofHours(1));
    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (ToolCallRuntime a = runtime(storeA, "a3", shell); ToolCallRuntime b = runtime(storeB, "b3", shell)) {
      for (int round = 0; round < 100; round++) {
        ScriptedModel model = new ScriptedModel();
        CompletableFuture<dev.toolcall.conversation.ModelResponse> held = model.thenHold();
        List<AgentDirectory> dirs = List.of(
            AgentDirectory.builder(a, storeA.conversations(), id -> Agent.builder(model, a)).build(),
            AgentDirectory.builder(b, storeB.conversations(), id -> Agent.builder(model, b)).build());
        CountDownLatch start = new CountDownLatch(1);
        String conversation = "race-" + round;
        List<Future<CompletableFuture<TurnResult>>> steps = new ArrayList<>();
        for (AgentDirectory dir : dirs) {
          steps.add(pool.submit(() -> {
            start.await();
            return dir.send(conversation, "go").toCompletableFuture();
          }));
        }
        start.countDown();
        List<CompletableFuture<TurnResult>> started = new ArrayList<>();
        for (Future<CompletableFuture<TurnResult>> f : steps) {
          started.add(f.get(10, TimeUnit.SECONDS));
        }
        held.complete(dev.toolcall.conversation.ModelResponse.text("ok"));
        int ran = 0;
        for (CompletableFuture<TurnResult> f : started) {
          try {
            assertThat(f.get(10, TimeUnit.SECONDS).text()).isEqualTo("ok");
            ran++;
          } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ConversationBusyException.class);
          }
        }
        assertThat(ran).as("round " + round).isEqualTo(1);
        assertThat(model.requests()).hasSize(1);
        dirs.forEach(AgentDirectory::close);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
