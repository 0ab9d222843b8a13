package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Arguments a person edited while asked are checked against the tool's schema again before the tool runs: an edit
 * that breaks the schema ends the call FAILED with a message for the model, and the tool never runs; a valid edit
 * runs with exactly the edited arguments.
 */
class EditedArgumentsTest {
  private final AtomicInteger runs = new AtomicInteger();
  private final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Tool deploy = Tool.of(ToolDefinition.builder("deploy").description("deploys")
      .parameters("{\"type\":\"object\",\"properties\":{\"env\":{\"enum\":[\"staging\",\"production\"]}},"
          + "\"required\":[\"env\"],\"additionalProperties\":false}").build(), inv -> {
            runs.incrementAndGet();
            seen.add(inv.arguments().raw());
            return ToolResult.of("deployed");
          });

  private CallResult decideWith(String edited) throws Exception {
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(deploy).build()) {
      Batch b = rt.schedule("s", List.of(CallRequest.of("c1", "deploy", "{\"env\":\"staging\"}")));
      PermissionRequest r = rt.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      ToolArguments args = ToolArguments.ofJson(new com.fasterxml.jackson.databind.ObjectMapper().readTree(edited));
      assertThat(rt.permissions().decide(r.requestId(), Decision.approveModified(r, args)).won()).isTrue();
      return b.join().get(0);
    }
  }

  @Test
  void anEditThatBreaksTheSchemaFailsTheCallWithoutRunningTheTool() throws Exception {
    CallResult r = decideWith("{\"env\":\"prod-eu\"}");
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.INVALID_ARGUMENTS);
      assertThat(f.message()).startsWith("The edited arguments are not valid").contains("env");
    });
    assertThat(runs).hasValue(0);
  }

  @Test
  void aValidEditRunsWithExactlyTheEditedArguments() throws Exception {
    CallResult r = decideWith("{\"env\":\"production\"}");
    assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
    assertThat(seen).containsExactly("{\"env\":\"production\"}");
  }
}
