package dev.toolcall.agui;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.UserMessage;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The remote tests' fixture: a runtime with a {@code shell} tool that needs approval (it records every command it
 * ran), a {@code deploy} tool whose requests time out after {@code deployTimeout}, and per thread an agent whose
 * scripted model asks for one call ({@code deploy} in threads named {@code timeout*}, {@code shell} otherwise) with
 * the command the user named after "run ", then answers {@code "tool said: <result>"}. Agents of threads named
 * {@code suspend*} suspend on approval (their turn ends INTERRUPTED and goes on by {@code resumeWith}). In threads
 * whose name contains {@code pair} one response asks for two {@code shell} calls, {@code <command> 1} and
 * {@code <command> 2}.
 */
final class Shell implements AutoCloseable {
  final List<String> ran = new CopyOnWriteArrayList<>();
  final ToolCallRuntime runtime;
  private final Map<String, Agent> agents = new ConcurrentHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();

  Shell(Duration deployTimeout) {
    String schema = "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},"
        + "\"required\":[\"command\"],\"additionalProperties\":false}";
    Tool shell = Tool.of(ToolDefinition.builder("shell").description("Runs a command").parameters(schema)
        .requiresApproval(true).build(), inv -> {
          String c = inv.arguments().asJson().path("command").asText();
          ran.add(c);
          return ToolResult.of("ran: " + c);
        });
    Tool deploy = Tool.of(ToolDefinition.builder("deploy").description("Deploys").parameters(schema)
        .requiresApproval(true).permissionTimeout(deployTimeout).build(), inv -> {
          ran.add("deploy " + inv.arguments().asJson().path("command").asText());
          return ToolResult.of("deployed");
        });
    runtime = ToolCallRuntime.builder().tools(shell, deploy).build();
  }

  Agent agent(String threadId) {
    return agents.computeIfAbsent(threadId, id -> Agent.builder(model(id), runtime).conversationId(id)
        .suspendOnApproval(id.startsWith("suspend")).build());
  }

  private ModelClient model(String threadId) {
    String tool = threadId.startsWith("timeout") ? "deploy" : "shell";
    return ModelClient.blocking(request -> {
      if (request.lastMessage() instanceof ToolResultMessage r) {
        return ModelResponse.text("tool said: " + r.content());
      }
      String said = request.lastMessage() instanceof UserMessage u ? u.text() : "";
      String command = said.contains("run ") ? said.substring(said.indexOf("run ") + 4) : said;
      if (threadId.contains("pair")) {
        return ModelResponse.toolCalls("", List.of(
            new ToolCallRequest(threadId + "-call-" + ids.incrementAndGet(), tool, args(command + " 1")),
            new ToolCallRequest(threadId + "-call-" + ids.incrementAndGet(), tool, args(command + " 2"))));
      }
      String args = args(command);
      return ModelResponse.toolCalls("", List.of(new ToolCallRequest(
          threadId + "-call-" + ids.incrementAndGet(), tool, args)));
    });
  }

  private static String args(String command) {
    return Wire.text(Wire.JSON.createObjectNode().put("command", command));
  }

  @Override
  public void close() {
    runtime.close();
  }
}
