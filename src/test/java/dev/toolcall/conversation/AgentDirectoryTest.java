package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.ConversationState;
import dev.toolcall.ToolResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The directory in one process (the in-memory conversation store): a step takes the conversation, a second step of the
 * same conversation is refused busy and changes nothing, the conversation is stored after each step, and an agent the
 * directory let go of is loaded again from the store.
 */
class AgentDirectoryTest {

  private final AtomicInteger shellRuns = new AtomicInteger();
  private final Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
      inv -> {
        shellRuns.incrementAndGet();
        return ToolResult.of("deployed");
      });

  @Test
  void aTurnInterruptsIsStoredAndIsResumedThroughTheDirectory() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell", "{\"command\":\"x\"}"))
        .thenText("Done.");
    ConversationStore store = ConversationStore.inMemory();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build();
        AgentDirectory dir = AgentDirectory.builder(runtime, store, id -> Agent.builder(model, runtime)).build()) {
      TurnResult r = dir.send("c1", "Deploy").toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      ConversationStore.Stored stored = store.read("c1").orElseThrow();
      assertThat(stored.held()).isFalse();
      assertThat(stored.snapshot().orElseThrow().conversation().state())
          .isEqualTo(ConversationState.AWAITING_TOOL_APPROVAL);

      Interrupt i = r.interrupts().get(0);
      TurnResult done = dir.resumeWith("c1", List.of(new Decision.ApproveOnce(i.requestId(), i.argumentsVersion())))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(done.text()).isEqualTo("Done.");
      assertThat(shellRuns).hasValue(1);
      assertThat(dir.snapshot("c1").orElseThrow().conversation().state()).isEqualTo(ConversationState.IDLE);
      assertThat(dir.snapshot("c1").orElseThrow().messages()).hasSize(4);
    }
  }

  @Test
  void anIdleConversationTheDirectoryLetGoOfIsLoadedFromTheStore() throws Exception {
    ScriptedModel model = new ScriptedModel().thenText("One.").thenText("Two.");
    ConversationStore store = ConversationStore.inMemory();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build();
        AgentDirectory dir = AgentDirectory.builder(runtime, store, id -> Agent.builder(model, runtime))
            .maxAgents(0).build()) {
      assertThat(dir.send("c2", "first").toCompletableFuture().get(10, TimeUnit.SECONDS).text()).isEqualTo("One.");
      assertThat(dir.heldAgents()).isZero();
      assertThat(dir.send("c2", "second").toCompletableFuture().get(10, TimeUnit.SECONDS).text()).isEqualTo("Two.");
      // the second request carried the first exchange, read back from the store
      assertThat(model.requests().get(1).messages()).hasSize(3);
    }
  }

  /**
   * Invariant: of several steps of one conversation started at once, exactly one runs; every other is refused busy,
   * and the model is asked exactly once. Repeated 100 times with a start latch.
   */
  @Test
  void ofStepsRacingForOneConversationExactlyOneRuns() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build()) {
      for (int round = 0; round < 100; round++) {
        ScriptedModel model = new ScriptedModel();
        CompletableFuture<ModelResponse> held = model.thenHold();
        ConversationStore store = ConversationStore.inMemory();
        List<AgentDirectory> dirs = new ArrayList<>();
        for (int d = 0; d < 4; d++) { // four instances on one store
          dirs.add(AgentDirectory.builder(runtime, store, id -> Agent.builder(model, runtime)).owner("i" + d).build());
        }
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
        held.complete(ModelResponse.text("ok"));
        int ran = 0;
        int busy = 0;
        for (CompletableFuture<TurnResult> f : started) {
          try {
            assertThat(f.get(10, TimeUnit.SECONDS).text()).isEqualTo("ok");
            ran++;
          } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ConversationBusyException.class);
            busy++;
          }
        }
        assertThat(ran).as("round " + round).isEqualTo(1);
        assertThat(busy).isEqualTo(3);
        assertThat(model.requests()).hasSize(1);
        dirs.forEach(AgentDirectory::close);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aStepOfABusyConversationChangesNothing() throws Exception {
    ScriptedModel model = new ScriptedModel();
    CompletableFuture<ModelResponse> held = model.thenHold();
    ConversationStore store = ConversationStore.inMemory();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build();
        AgentDirectory a = AgentDirectory.builder(runtime, store, id -> Agent.builder(model, runtime)).build();
        AgentDirectory b = AgentDirectory.builder(runtime, store, id -> Agent.builder(model, runtime)).build()) {
      CompletableFuture<TurnResult> first = a.send("c3", "one").toCompletableFuture();
      long revision = store.read("c3").orElseThrow().revision();
      assertThatThrownBy(() -> b.abort("c3").toCompletableFuture().join()).isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(ConversationBusyException.class).hasMessageContaining("conversation c3 is busy");
      assertThat(store.read("c3").orElseThrow().revision()).isEqualTo(revision);
      held.complete(ModelResponse.text("ok"));
      assertThat(first.get(10, TimeUnit.SECONDS).text()).isEqualTo("ok");
      assertThat(store.read("c3").orElseThrow().held()).isFalse();
    }
  }

  /** A turn that a step of this instance runs is aborted in place (it was refused busy before). */
  @Test
  void abortStopsTheTurnAStepOfThisInstanceRuns() throws Exception {
    ScriptedModel model = new ScriptedModel();
    CompletableFuture<ModelResponse> held = model.thenHold();
    ConversationStore store = ConversationStore.inMemory();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build();
        AgentDirectory dir = AgentDirectory.builder(runtime, store, id -> Agent.builder(model, runtime)).build()) {
      CompletableFuture<TurnResult> turn = dir.send("c5", "one").toCompletableFuture();
      dir.abort("c5").toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(turn.get(10, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ABORTED);
      ConversationStore.Stored stored = store.read("c5").orElseThrow();
      assertThat(stored.held()).isFalse();
      assertThat(stored.snapshot().orElseThrow().conversation().state()).isEqualTo(ConversationState.IDLE);
      held.complete(ModelResponse.text("late"));
      assertThat(dir.send("c5", "two").toCompletableFuture().get(10, TimeUnit.SECONDS).text())
          .isEqualTo("script exhausted");
    }
  }

  @Test
  void takeChecksItsArguments() {
    ConversationStore store = ConversationStore.inMemory();
    assertThatThrownBy(() -> store.take(" ", "o", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("conversationId");
    assertThatThrownBy(() -> store.take("c", "o", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
  }

  @Test
  void aHolderWhoseLeaseLapsedAndWasTakenOverCannotPut() {
    dev.toolcall.testing.MovableClock clock =
        new dev.toolcall.testing.MovableClock(java.time.Instant.parse("2026-01-01T00:00:00Z"));
    ConversationStore store = ConversationStore.inMemory(clock);
    ConversationStore.Taken a = (ConversationStore.Taken) store.take("c", "a", Duration.ofSeconds(10));
    assertThat(store.take("c", "b", Duration.ofSeconds(10))).isInstanceOf(ConversationStore.Busy.class);
    clock.advance(Duration.ofSeconds(11));
    ConversationStore.Taken b = (ConversationStore.Taken) store.take("c", "b", Duration.ofSeconds(10));
    AgentSnapshot snap = new AgentSnapshot(Conversation.builder("c").build().snapshot(), List.of(), List.of());
    assertThat(store.put(a, snap)).isFalse();
    assertThat(store.renew(a, Duration.ofSeconds(10))).isFalse();
    assertThat(store.put(b, snap)).isTrue();
    assertThat(store.read("c").orElseThrow().snapshot()).contains(snap);
  }
}
