package dev.toolcall.mcp;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.TurnResult;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The example of docs/integrations.md, compiled and run by {@link McpExampleTest}. */
final class McpExample {
  private McpExample() {}

  @SuppressWarnings("try") // the attachment is held by the try, not used in it (outside the docs' excerpt)
  // docs:begin
  static TurnResult ask(ModelClient model, ServerParameters server, String question) throws Exception {
    var transport = new StdioClientTransport(server, new JacksonMcpJsonMapper(new com.fasterxml.jackson.databind
        .ObjectMapper()));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().build();
        McpToolSource tools = McpToolSource.builder("files", transport)
            .trustReadOnlyHints(true) // read-only tools run without asking; the rest ask a person
            .customize((spec, definition) -> definition.timeout(Duration.ofMinutes(2)))
            .connect()
            .attach(runtime)) { // the server's tools join the runtime's, and follow tools/list_changed
      Agent agent = Agent.builder(model, runtime).build();
      return agent.send(question).toCompletableFuture().get(5, TimeUnit.MINUTES);
    }
  }
  // docs:end
}
