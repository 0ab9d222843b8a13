package dev.toolcall.acp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolResult;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.Readme;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README's "Editors (ACP)": runs its code as the program an editor starts, with System.in and System.out wired to
 * an editor that opens a session, prompts and allows the call once, and checks the README shows exactly this code.
 */
class ReadmeAcpTest {

  /** The program an editor starts (its stdin and stdout are the editor's). */
  static void program(Tool clean, ModelClient model) throws Exception {
    // README:begin acp
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(clean).build();
    try (AcpAgent acp = AcpAgent.builder(runtime, sessionId -> Agent.builder(model, runtime)).build()) {
      acp.serve(System.in, System.out);      // until the editor closes stdin; logs go to stderr, never stdout
    }
    runtime.close();
    // README:end acp
  }

  @Test
  void theReadmeAcpAgentServesAnEditorAndTheReadmeShowsIt() throws Exception {
    Tool clean = Tool.of(ToolDefinition.builder("clean").description("Deletes the build directory")
        .requiresApproval(true).build(), inv -> ToolResult.of("deleted build/"));
    ModelClient model = ModelClient.blocking(request -> request.lastMessage() instanceof ToolResultMessage r
        ? ModelResponse.text("Done: " + r.content())
        : ModelResponse.toolCalls("", List.of(new ToolCallRequest("call_1", "clean", "{}"))));
    InputStream stdin = System.in;
    PrintStream stdout = System.out;
    try (Editor editor = new Editor((in, out) -> {
      System.setIn(in);
      System.setOut(new PrintStream(out, true, "UTF-8"));
      program(clean, model);
    })) {
      editor.response(editor.request("initialize", Map.of("protocolVersion", 1)));
      String s = editor.response(editor.request("session/new", Map.of("cwd", "/tmp", "mcpServers", List.of())))
          .path("result").path("sessionId").asText();
      int p = editor.request("session/prompt", Map.of("sessionId", s, "prompt",
          List.of(Map.of("type", "text", "text", "Clean up the build"))));
      editor.answer(editor.agentRequest("session/request_permission").get("id"),
          Map.of("outcome", Map.of("outcome", "selected", "optionId", "allow_once")));
      assertThat(editor.response(p).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(editor.updates("agent_message_chunk")).extracting(u -> u.path("content").path("text").asText())
          .containsExactly("Done: deleted build/");
    } finally {
      System.setIn(stdin);
      System.setOut(stdout);
    }
    Readme.assertShows("src/test/java/dev/toolcall/acp/ReadmeAcpTest.java", "acp");
  }
}
