package dev.toolcall.otel;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** A tool call and an agent turn on the core alone; run by {@link CoreWithoutOpenTelemetryTest} in its loader. */
public final class CoreOnlyRun implements Callable<String> {
  @Override
  public String call() throws Exception {
    Tool echo = Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true).requiresApproval(false)
        .build(), inv -> ToolResult.of("echo ok"));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(echo).build()) {
      String direct = runtime.schedule("s", List.of(CallRequest.of("c1", "echo", "{}"))).join().get(0)
          .messageForModel();
      ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("c2", "echo", "{}")).thenText("done");
      TurnResult turn = Agent.builder(model, runtime).build().send("go").toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      return direct + " | " + turn.ending() + ": " + turn.text();
    }
  }
}
