package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.EXECUTING_TOOLS;
import static dev.toolcall.ConversationState.TRANSIENT_FAILURE;
import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.EventListener;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 03's {@code transient_failure -> executing_tools} is published before the retried attempt starts, on real
 * threads (the tool pool, the runtime's timer), in every one of many runs; and the conversation's retry states are
 * driven by the scheduler's own threads, never the common pool (before, the watch subscribed on the common pool and
 * raced the scheduler's timer with one of its own: in most runs the retried attempt started first, and a common-pool
 * thread was left behind after close).
 */
class ToolRetryOrderTest {
  private static final int RUNS = 40;

  /** Per conversation: the state the conversation was in when attempt 2 of its call entered the tool. */
  private final Map<String, ConversationState> atRetry = new ConcurrentHashMap<>();
  /** Per conversation: its events and the tool's entries, in the order they happened. */
  private final Map<String, List<String>> story = new ConcurrentHashMap<>();
  private final List<String> threads = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
  private final Map<String, Agent> agents = new ConcurrentHashMap<>();
  private ToolCallRuntime runtime;

  @AfterEach
  void close() {
    if (runtime != null) {
      runtime.close();
    }
  }

  private static boolean isSubsequence(List<String> all, List<String> wanted) {
    int k = 0;
    for (String x : all) {
      if (k < wanted.size() && x.equals(wanted.get(k))) {
        k++;
      }
    }
    return k == wanted.size();
  }

  @Test
  void theReturnToExecutingToolsIsPublishedBeforeTheRetryStarts() throws Exception {
    RetryPolicy retry = new RetryPolicy(2, Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0);
    Tool flaky = Tool.of(ToolDefinition.builder("fetch").description("flaky").readOnly(true).requiresApproval(false)
        .retryPolicy(retry).build(), inv -> {
          String conv = inv.sessionId();
          int n = attempts.computeIfAbsent(conv, k -> new AtomicInteger()).incrementAndGet();
          story.get(conv).add("attempt " + n);
          if (n == 1) {
            throw new TransientToolException("503");
          }
          atRetry.put(conv, agents.get(conv).conversation().state());
          return ToolResult.of("ok");
        });
    runtime = ToolCallRuntime.builder().tools(flaky).build();
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ConversationEvent c && !c.isCreation()) {
        story.computeIfAbsent(c.snapshot().conversationId(), k -> new CopyOnWriteArrayList<>())
            .add(c.snapshot().state().wireName());
        if (c.snapshot().state() == TRANSIENT_FAILURE || c.from() == TRANSIENT_FAILURE) {
          threads.add(Thread.currentThread().getName());
        }
      }
    }));
    int late = 0;
    for (int i = 0; i < RUNS; i++) {
      String conv = "conv-" + i;
      story.put(conv, new CopyOnWriteArrayList<>());
      ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "fetch", "{}")).thenText("done");
      Agent agent = Agent.builder(model, runtime).conversationId(conv).build();
      agents.put(conv, agent);
      assertThat(agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS).ending())
          .isEqualTo(TurnResult.Ending.ANSWERED);
      List<String> s = new ArrayList<>(story.get(conv));
      int back = s.lastIndexOf(EXECUTING_TOOLS.wireName());
      int retried = s.indexOf("attempt 2");
      boolean shown = isSubsequence(s, List.of("executing_tools", "attempt 1", "transient_failure", "executing_tools",
          "attempt 2", "processing_tool_results"));
      if (!shown || back > retried || atRetry.get(conv) != EXECUTING_TOOLS) {
        late++;
      }
    }
    assertThat(late).as("runs of %s in which the retry started before transient_failure -> executing_tools was"
        + " published (or transient_failure was not shown at all)", RUNS).isZero();
    assertThat(threads).as("threads that moved the conversation in and out of transient_failure").isNotEmpty()
        .noneMatch(n -> n.startsWith("ForkJoinPool.commonPool"));
  }
}
