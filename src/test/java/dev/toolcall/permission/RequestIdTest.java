package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, part 5: request ids cannot be guessed from others. They were {@code perm-<per-service random>-<n>}, so
 * one request's id gave away every other's; now each is {@code perm-} and 128 bits from SecureRandom.
 */
class RequestIdTest {

  @Test
  void consecutiveRequestIdsShareNothingButThePrefix() {
    Tool shell = Tool.of(ToolDefinition.builder("shell").build(), inv -> ToolResult.of("ok"));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build()) {
      List<CallRequest> calls = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        calls.add(CallRequest.of("call_" + i, "shell", "{}"));
      }
      runtime.schedule("s", calls);
      List<String> ids = runtime.permissions().pending().stream().map(PermissionRequest::requestId).toList();
      assertThat(ids).hasSize(200).allMatch(id -> id.matches("perm-[a-z2-7]{26}"));
      assertThat(new HashSet<>(ids)).hasSize(200);
      Set<String> lastChars = new HashSet<>();
      Set<String> firstChars = new HashSet<>();
      for (String id : ids) {
        firstChars.add(id.substring(5, 7));
        lastChars.add(id.substring(id.length() - 2));
      }
      // with a shared prefix or a counter, one end would be (nearly) constant
      assertThat(firstChars).hasSizeGreaterThan(100);
      assertThat(lastChars).hasSizeGreaterThan(100);
    }
  }
}
