package dev.toolcall;

import dev.toolcall.testing.Printed;
import dev.toolcall.runtime.ToolCallRuntime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.testing.Readme;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs the README's quick start, and checks the README shows exactly this code. */
@ExtendWith(Printed.Capture.class)
class QuickStartTest {

  @Test
  void quickStartRunsAndTheReadmeShowsIt(Printed printed) throws Exception {
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    // README:begin
    Tool readFile = Tool.of(
        ToolDefinition.builder("read_file").description("Reads a file").readOnly(true).requiresApproval(false)
            .build(),
        inv -> ToolResult.of("contents of " + inv.arguments().raw()));
    Tool shell = Tool.of(
        ToolDefinition.builder("shell").description("Runs a shell command").build(), // needs approval
        inv -> ToolResult.of("ran " + inv.arguments().raw()));

    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
        .tools(readFile, shell)
        .permissions(p -> p.defaultTimeout(Duration.ofMinutes(2)))
        .build()) {
      runtime.events().subscribe(new dev.toolcall.event.EventListener() {
        @Override
        public void onStateChanged(dev.toolcall.event.ToolCallEvent.StateChanged e) {
          seen.add(e.callId() + " " + e.from() + " -> " + e.to());
        }
      });

      Batch batch = runtime.schedule("session-1", List.of(
          CallRequest.of("call_1", "read_file", "{\"path\":\"README.md\"}"),
          CallRequest.of("call_2", "shell", "{\"command\":\"npm test\"}"),
          CallRequest.of("call_3", "shel", "{\"command\":\"rm -rf /\"}")));   // a hallucinated name

      // The UI side: answer the permission request for the shell call.
      PermissionRequest ask = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      runtime.permissions().decide(ask.requestId(), Decision.approveOnce(ask));

      for (CallResult r : batch.join()) {   // one per call, in request order
        System.out.println(r.callId() + " " + r.snapshot().state() + ": " + r.messageForModel());
      }
    }
    // README:end
    assertThat(seen).contains("call_1 PENDING -> RUNNING", "call_2 PERMISSION_PENDING -> PERMISSION_APPROVED",
        "call_2 RUNNING -> COMPLETED", "call_3 RUNNING -> FAILED");

    assertThat(printed.text().lines()).hasSize(3).allMatch(l -> l.startsWith("call_"));
    Readme.assertShows("src/test/java/dev/toolcall/QuickStartTest.java");
  }
}
