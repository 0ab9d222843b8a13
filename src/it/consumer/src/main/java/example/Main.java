package example;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.List;

/** Runs one call through the library from a consumer's class path; exits non-zero if it did not complete. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    Tool echo = Tool.of(ToolDefinition.builder("echo").description("Echoes its text").readOnly(true)
        .requiresApproval(false)
        .parameters(new com.fasterxml.jackson.databind.ObjectMapper().readTree(
            "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}"))
        .build(), inv -> ToolResult.of(inv.arguments().asJson().get("text").asText()));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(echo).build()) {
      CallResult r = runtime.schedule("s", List.of(CallRequest.of("c1", "echo", "{\"text\":\"hello\"}"))).join()
          .get(0);
      if (!r.messageForModel().equals("hello") || r.isError()) {
        throw new IllegalStateException("unexpected result: " + r.snapshot());
      }
      System.out.println("consumer: " + r.callId() + " " + r.snapshot().state() + " " + r.messageForModel());
    }
  }
}
