package dev.toolcall.acp;

import dev.toolcall.ToolResult;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.UserMessage;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The ACP tests' fixture: a runtime with a {@code shell} tool that needs approval (it records every command it ran;
 * a command starting with {@code sleep} blocks until interrupted), a {@code deploy} tool whose requests time out after
 * {@code deployTimeout}, and an ACP agent whose sessions' scripted model asks for one call per user message
 * ({@code deploy} when the message starts with "deploy", {@code shell} with the command after "run " otherwise), then
 * answers {@code "tool said: <result>"}. Every turn's model sees the whole conversation, so {@link #asked} counts the
 * messages the model was sent.
 */
final class AcpShell implements AutoCloseable {
  final List<String> ran = new CopyOnWriteArrayList<>();
  final List<Integer> asked = new CopyOnWriteArrayList<>();
  final ToolCallRuntime runtime;
  final AcpAgent acp;
  private final AtomicInteger ids = new AtomicInteger();

  AcpShell(Duration deployTimeout, ConversationStore store, Consumer<String> onRan) {
    String schema = "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},"
        + "\"required\":[\"command\"],\"additionalProperties\":false}";
    Tool shell = Tool.of(ToolDefinition.builder("shell").description("Runs a command").parameters(schema)
        .requiresApproval(true).build(), inv -> {
          String c = inv.arguments().asJson().path("command").asText();
          if (c.startsWith("sleep")) {
            Thread.sleep(60_000);
          }
          ran.add(c);
          onRan.accept(c);
          return ToolResult.of("ran: " + c);
        });
    Tool deploy = Tool.of(ToolDefinition.builder("deploy").description("Deploys").parameters(schema)
        .requiresApproval(true).permissionTimeout(deployTimeout).build(), inv -> {
          String c = "deploy " + inv.arguments().asJson().path("command").asText();
          ran.add(c);
          onRan.accept(c);
          return ToolResult.of("deployed");
        });
    runtime = ToolCallRuntime.builder().tools(shell, deploy).build();
    acp = AcpAgent.builder(runtime, id -> Agent.builder(model(), runtime)).conversations(store)
        .toolKinds(d -> ToolKind.EXECUTE).maxMessageBytes(64 * 1024).build();
  }

  AcpShell(Duration deployTimeout) {
    this(deployTimeout, ConversationStore.inMemory(), c -> { });
  }

  private ModelClient model() {
    return ModelClient.blocking(request -> {
      asked.add(request.messages().size());
      if (request.lastMessage() instanceof ToolResultMessage r) {
        return ModelResponse.text("tool said: " + r.content());
      }
      String said = request.lastMessage() instanceof UserMessage u ? u.text() : "";
      boolean deploy = said.startsWith("deploy");
      String command = said.contains("run ") ? said.substring(said.indexOf("run ") + 4) : said;
      String args = Connection.JSON.createObjectNode().put("command", command).toString();
      return ModelResponse.toolCalls("Let me do that. ", List.of(new ToolCallRequest(
          "call-" + ids.incrementAndGet(), deploy ? "deploy" : "shell", args)));
    });
  }

  @Override
  public void close() {
    acp.close();
    runtime.close();
  }
}
