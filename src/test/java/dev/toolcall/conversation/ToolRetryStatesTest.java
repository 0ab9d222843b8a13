package dev.toolcall.conversation;

import dev.toolcall.StateDetail;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.EXECUTING_TOOLS;
import static dev.toolcall.ConversationState.GENERATING_RESPONSE;
import static dev.toolcall.ConversationState.IDLE;
import static dev.toolcall.ConversationState.PROCESSING_TOOL_RESULTS;
import static dev.toolcall.ConversationState.TRANSIENT_FAILURE;
import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.EventListener;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 03's {@code executing_tools <-> transient_failure}, taken by a real turn: while a call of the turn waits out
 * a retry backoff the conversation is in {@code transient_failure}, its detail carrying the failure and the call's
 * retry count, and it is back in {@code executing_tools} before the batch's end moves it on.
 */
class ToolRetryStatesTest {
  private final List<ConversationSnapshot> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger attempts = new AtomicInteger();
  /** Opened when a listener has seen transient_failure: the last attempt waits for it, so the order is certain. */
  private final CountDownLatch sawTransient = new CountDownLatch(1);
  private ToolCallRuntime runtime;

  @AfterEach
  void close() {
    runtime.close();
  }

  private Agent agent(RetryPolicy retry, ScriptedModel model, CountDownLatch failedOnce) {
    Tool flaky = Tool.of(ToolDefinition.builder("fetch").description("flaky fetch").readOnly(true)
        .requiresApproval(false).retryPolicy(retry).build(), inv -> {
          if (attempts.incrementAndGet() <= 2) {
            failedOnce.countDown();
            throw new TransientToolException("503 from the status page");
          }
          sawTransient.await(10, TimeUnit.SECONDS);
          return ToolResult.of("build #142 failed");
        });
    runtime = ToolCallRuntime.builder().tools(flaky).build();
    runtime.events().subscribe(new EventListener() {
      @Override
      public void onConversationEvent(ConversationEvent e) {
        seen.add(e.snapshot());
        if (e.snapshot().state() == TRANSIENT_FAILURE) {
          sawTransient.countDown();
        }
      }
    });
    return Agent.builder(model, runtime).build();
  }

  @Test
  void aRetriedCallShowsTransientFailureWithItsRetryCount() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "fetch", "{}")).thenText("done");
    Agent agent = agent(new RetryPolicy(3, Duration.ofMillis(30), 1.0, Duration.ofMillis(30), 0), model,
        new CountDownLatch(1));
    TurnResult turn = agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(turn.calls().get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    List<ConversationState> states = seen.stream().map(ConversationSnapshot::state).toList();
    assertThat(states).containsSubsequence(EXECUTING_TOOLS, TRANSIENT_FAILURE, EXECUTING_TOOLS,
        PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE);
    List<StateDetail.TransientFailure> details = seen.stream().filter(s -> s.state() == TRANSIENT_FAILURE)
        .map(s -> (StateDetail.TransientFailure) s.detail()).toList();
    assertThat(details).isNotEmpty();
    assertThat(details.get(0).retryCount()).isEqualTo(1);
    assertThat(details).allSatisfy(d -> {
      assertThat(d.retryCount()).isBetween(1, 2);
      assertThat(d.error()).contains("c1").contains("503 from the status page");
    });
    for (int i = 1; i < states.size(); i++) {
      if (states.get(i - 1) == TRANSIENT_FAILURE) {
        assertThat(states.get(i)).as("what follows transient_failure").isIn(EXECUTING_TOOLS, IDLE);
      }
    }
  }

  @Test
  void anAbortDuringTheBackoffEndsTheTurnFromTransientFailure() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "fetch", "{}")).thenText("never");
    CountDownLatch failedOnce = new CountDownLatch(1);
    Agent agent = agent(new RetryPolicy(3, Duration.ofSeconds(30), 1.0, Duration.ofSeconds(30), 0), model,
        failedOnce);
    CompletableFuture<TurnResult> turn = agent.send("go").toCompletableFuture();
    assertThat(failedOnce.await(10, TimeUnit.SECONDS)).isTrue();
    awaitState(agent, TRANSIENT_FAILURE);
    agent.abort();
    TurnResult r = turn.get(10, TimeUnit.SECONDS);
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(r.calls().get(0).snapshot().state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(agent.conversation().state()).isEqualTo(IDLE);
    assertThat(attempts).as("the retry never ran").hasValue(1);
  }

  private static void awaitState(Agent agent, ConversationState state) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (agent.conversation().state() != state) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("no " + state + " within 10 s; in " + agent.conversation().state());
      }
      Thread.onSpinWait();
    }
  }
}
