package dev.toolcall.presentation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Seed 01's "denied shows at once": a call the person denies is drawn denied while its sibling still runs, through
 * a real runtime and a live display attached to its bus, not when the batch ends.
 */
class DeniedWhileSiblingsRunTest {

  @Test
  void aDeniedCallIsDrawnDeniedWhileItsSiblingStillRuns() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    Tool slow = Tool.of(ToolDefinition.builder("build").description("builds").readOnly(true)
        .requiresApproval(false).build(), inv -> {
          started.countDown();
          release.await(10, TimeUnit.SECONDS);
          return ToolResult.of("built");
        });
    Tool shell = Tool.of(ToolDefinition.builder("shell").description("runs").build(), inv -> ToolResult.of("ran"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(slow, shell).build()) {
      TerminalRenderer renderer = TerminalRenderer.builder().presenter(Presenter.create()).ansi(false).width(120)
          .build();
      LiveDisplay live = renderer.live(out, Duration.ofMillis(20)).attach(rt.events());
      Batch batch = rt.schedule("s", List.of(CallRequest.of("c1", "build", "{}"),
          CallRequest.of("c2", "shell", "{}")));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      PermissionRequest r = rt.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      rt.permissions().decide(r.requestId(), Decision.deny(r, "not on my machine"));
      assertThat(batch.calls().get(1).whenTerminal().toCompletableFuture().get(10, TimeUnit.SECONDS).state())
          .isEqualTo(ToolCallState.PERMISSION_DENIED);
      live.refresh();
      String whileRunning = bytes.toString(StandardCharsets.UTF_8);
      assertThat(batch.calls().get(0).state()).as("the sibling still runs").isEqualTo(ToolCallState.RUNNING);
      assertThat(whileRunning.lines().filter(l -> l.contains("shell")).toList()).last()
          .satisfies(l -> assertThat(l).startsWith("🚫 shell"));
      assertThat(whileRunning).doesNotContain("✅ build");
      assertThat(live.snapshots()).filteredOn(s -> s.callId().equals("c2")).singleElement()
          .satisfies(s -> assertThat(s.state()).isEqualTo(ToolCallState.PERMISSION_DENIED));
      release.countDown();
      batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      live.close();
    }
  }
}
