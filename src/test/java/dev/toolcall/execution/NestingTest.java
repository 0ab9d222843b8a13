package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallState;
import dev.toolcall.ToolResult;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.Race;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Which parent a nested call is linked to when one call id runs in several sessions at once (a sub-agent's calls
 * name their parent by id only), and that the registry of running calls neither loses nor keeps a run when runs of
 * one id start and end on many threads at once.
 */
class NestingTest {

  /** Tools: {@code parent} runs until {@link #release} opens; {@code child} runs until it is cancelled. */
  private static final class Tools {
    final CountDownLatch release = new CountDownLatch(1);
    final Semaphore parentsRunning = new Semaphore(0);
    final Semaphore childrenRunning = new Semaphore(0);

    ToolCallRuntime runtime() {
      Tool parent = Tool.of(ToolDefinition.builder("parent").description("waits").requiresApproval(false)
          .timeout(Duration.ofSeconds(30)).build(), inv -> {
            parentsRunning.release();
            release.await(20, TimeUnit.SECONDS);
            return ToolResult.of("parent done");
          });
      Tool child = Tool.of(ToolDefinition.builder("child").description("waits until cancelled")
          .requiresApproval(false).timeout(Duration.ofSeconds(30)).build(), inv -> {
            childrenRunning.release();
            new CountDownLatch(1).await(20, TimeUnit.SECONDS); // interrupted by its cancel
            return ToolResult.of("child finished (it should have been cancelled)");
          });
      return ToolCallRuntime.builder().tools(parent, child).scheduler(s -> s.maxParallel(64)).build();
    }
  }

  private static Batch schedule(ToolCallRuntime rt, String session, String id, String tool, String parentId) {
    CallRequest r = CallRequest.of(id, tool, "{}");
    return rt.schedule(session, List.of(parentId == null ? r : r.nestedIn(parentId)));
  }

  /** Waits for the batch of one call; its run has let go of the registry by then (the batch is told last). */
  private static ToolCallState ended(Batch b) throws Exception {
    return b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS).get(0).snapshot().state();
  }

  private static void await(Semaphore running, int n) throws InterruptedException {
    assertThat(running.tryAcquire(n, 10, TimeUnit.SECONDS)).as("%d tools running", n).isTrue();
  }

  @Test
  void aNestedCallBelongsToItsOwnSessionsParentElseToTheOnlyOneElseToNone() throws Exception {
    Tools t = new Tools();
    try (ToolCallRuntime rt = t.runtime()) {
      Nesting nesting = rt.scheduler().nesting;
      Batch c1 = schedule(rt, "s1", "c", "parent", null);
      Batch c2 = schedule(rt, "s2", "c", "parent", null);
      await(t.parentsRunning, 2);
      assertThat(nesting.size()).isEqualTo(2);

      Batch k1 = schedule(rt, "s1", "k1", "child", "c"); // its own session runs "c": that one is its parent
      Batch k3 = schedule(rt, "s3", "k3", "child", "c"); // two other sessions run "c": no parent
      await(t.childrenRunning, 2);
      assertThat(nesting.size()).isEqualTo(4);

      c1.calls().get(0).cancel("the user stopped s1");
      assertThat(ended(c1)).isEqualTo(ToolCallState.CANCELLED);
      assertThat(ended(k1)).isEqualTo(ToolCallState.CANCELLED);
      assertThat(k3.calls().get(0).snapshot().isTerminal()).as("the call with no parent runs on").isFalse();
      assertThat(nesting.size()).isEqualTo(2);

      Batch k3b = schedule(rt, "s3", "k3b", "child", "c"); // now only s2 runs "c": the only one is its parent
      await(t.childrenRunning, 1);
      c2.calls().get(0).cancel("the user stopped s2");
      assertThat(ended(c2)).isEqualTo(ToolCallState.CANCELLED);
      assertThat(ended(k3b)).isEqualTo(ToolCallState.CANCELLED);
      // c2's end cancelled its children before it told its batch, so k3 would have ended by now if it were linked
      assertThat(k3.calls().get(0).snapshot().isTerminal()).as("the call with no parent runs on").isFalse();
      assertThat(nesting.size()).isEqualTo(1);

      k3.calls().get(0).cancel("test over");
      assertThat(ended(k3)).isEqualTo(ToolCallState.CANCELLED);
      assertThat(nesting.size()).isZero();
    }
  }

  /**
   * Invariant: however the starts and ends of runs of one call id in many sessions interleave, every running call
   * is registered (a nested call in its session is linked to it, so it is cancelled when its parent ends) and none
   * stays registered after it ended.
   */
  @Test
  void runsOfOneIdStartingAndEndingAtOnceAreAllRegisteredAndAllLetGo() throws Exception {
    int sessions = 8;
    for (int round = 0; round < 20; round++) {
      Tools t = new Tools();
      try (ToolCallRuntime rt = t.runtime()) {
        Nesting nesting = rt.scheduler().nesting;
        Batch[] parents = new Batch[sessions];
        Race.run(sessions, Duration.ofSeconds(10), i -> parents[i] = schedule(rt, "s" + i, "c", "parent", null));
        await(t.parentsRunning, sessions);
        assertThat(nesting.size()).as("round %d", round).isEqualTo(sessions);

        Batch[] children = new Batch[sessions];
        for (int i = 0; i < sessions; i++) {
          children[i] = schedule(rt, "s" + i, "k" + i, "child", "c");
        }
        await(t.childrenRunning, sessions);
        t.release.countDown(); // every parent completes at once, and leaves the registry at once

        for (int i = 0; i < sessions; i++) {
          assertThat(ended(parents[i])).isEqualTo(ToolCallState.COMPLETED);
          assertThat(ended(children[i])).as("round %d, child in s%d", round, i).isEqualTo(ToolCallState.CANCELLED);
        }
        assertThat(nesting.size()).as("round %d", round).isZero();
      }
    }
  }
}
