package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A tool that schedules sub-calls and waits for them (the sub-agent pattern) cannot deadlock on the permit it holds
 * itself: nested calls run under their parent's permit. Before the fix, with {@code maxParallel(1)} the sub-call
 * waited for the parent's permit and the parent waited for the sub-call until its timeout.
 */
class NestedCallsTest {

  @Test
  void threeLevelsOfNestedCallsCompleteWithOnePermit() throws Exception {
    AtomicReference<ToolCallRuntime> rt = new AtomicReference<>();
    Tool task = Tool.of(ToolDefinition.builder("task").description("runs a sub-task").readOnly(true)
        .requiresApproval(false).timeout(Duration.ofSeconds(20)).build(), inv -> {
          int depth = Integer.parseInt(inv.arguments().asJson().path("depth").asText("0"));
          if (depth == 3) {
            return ToolResult.of("leaf");
          }
          CallResult sub = rt.get().schedule("s", List.of(CallRequest.of(inv.callId() + "." + (depth + 1), "task",
              "{\"depth\":\"" + (depth + 1) + "\"}").nestedIn(inv.callId()))).join().get(0);
          return ToolResult.of("level " + depth + " > " + sub.messageForModel());
        });
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(task)
        .scheduler(s -> s.maxParallel(1)).build()) {
      rt.set(runtime);
      List<CallResult> results = runtime.schedule("s", List.of(CallRequest.of("c", "task", "{\"depth\":\"0\"}")))
          .whenDone().toCompletableFuture().get(15, TimeUnit.SECONDS);
      assertThat(results.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(results.get(0).messageForModel()).isEqualTo("level 0 > level 1 > level 2 > leaf");
      assertThat(runtime.scheduler().runningCount()).isZero();
    }
  }

  /**
   * A nested call still waiting when its parent ends is cancelled with it (the parent's run keeps its children,
   * made on the first one: issue 30 made that queue lazy).
   */
  @Test
  void aNestedCallStillWaitingIsCancelledWhenItsParentEnds() throws Exception {
    AtomicReference<ToolCallRuntime> rt = new AtomicReference<>();
    AtomicReference<dev.toolcall.ToolCall> child = new AtomicReference<>();
    java.util.concurrent.CountDownLatch scheduled = new java.util.concurrent.CountDownLatch(1);
    Tool ask = Tool.of(ToolDefinition.builder("ask").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("asked"));
    Tool parent = Tool.of(ToolDefinition.builder("parent").readOnly(true).requiresApproval(false)
        .timeout(Duration.ofSeconds(20)).build(), inv -> {
          Batch b = rt.get().schedule("s", List.of(CallRequest.of("c.1", "ask", "{}").nestedIn(inv.callId())));
          child.set(b.calls().get(0));
          scheduled.countDown();
          return ToolResult.of("done without waiting");
        });
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(parent, ask).build()) {
      rt.set(runtime);
      List<CallResult> results = runtime.schedule("s", List.of(CallRequest.of("c", "parent", "{}")))
          .whenDone().toCompletableFuture().get(15, TimeUnit.SECONDS);
      assertThat(scheduled.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(results.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      dev.toolcall.ToolCallSnapshot s = child.get().whenTerminal().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(s.state()).as("the nested call waited for approval when its parent ended")
          .isEqualTo(ToolCallState.CANCELLED);
      assertThat(runtime.permissions().pending()).isEmpty();
    }
  }
}
