package dev.toolcall;

import dev.toolcall.testing.Printed;
import dev.toolcall.runtime.RuntimeSnapshot;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Runs the README's "Survive a restart" code, and checks the README shows exactly this code. */
@ExtendWith(Printed.Capture.class)
class ReadmeRestartTest {

  @TempDir
  Path dir;

  @Test
  void theReadmeRestartRunsAndTheReadmeShowsIt(Printed printed) throws Exception {
    Tool shell = Tool.of(ToolDefinition.builder("shell").build(),
        inv -> ToolResult.of("ran " + inv.arguments().raw()));
    Path file = dir.resolve("toolcall-state.json");
    // README:begin
    // First process: a call waits for approval when the process stops.
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build()) {
      runtime.schedule("session-1", List.of(CallRequest.of("call_1", "shell", "{\"command\":\"npm test\"}")));
      runtime.permissions().awaitNext(Duration.ofSeconds(5));  // the request is open
      runtime.snapshot().writeTo(file);                         // atomically: the old file or the new one
    }

    // After the restart: the same request (same id, same deadline) waits again; the model gets its one result.
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build()) {
      List<Batch> owed = runtime.restore(RuntimeSnapshot.readFrom(file));
      PermissionRequest request = runtime.permissions().pending().get(0);
      runtime.permissions().decide(request.requestId(), Decision.approveOnce(request));
      CallResult result = owed.get(0).join().get(0);
      System.out.println(result.callId() + ": " + result.outcome().messageForModel());  // call_1: ran {"command":"npm test"}
    }
    // README:end
    assertThat(printed.text()).isEqualTo("call_1: ran {\"command\":\"npm test\"}" + System.lineSeparator());
    Readme.assertShows("src/test/java/dev/toolcall/ReadmeRestartTest.java");
    assertThat(RuntimeSnapshot.readFrom(file).calls()).singleElement()
        .extracting(CallRecord::state).isEqualTo(ToolCallState.PERMISSION_PENDING);
  }
}
