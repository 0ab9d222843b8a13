package dev.toolcall.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolcall.acp.Editor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --acp}: the demo's agent served over ACP. An editor opens a session and sends the demo's message; it allows
 * the shell command and leaves the deploy unanswered (its deadline denies it and the agent withdraws the request);
 * the story runs to the model's summary.
 */
class DemoAcpTest {

  @Test
  void theDemoServesItsStoryToAnEditor() throws Exception {
    Demo.Options o = Demo.Options.parse("--pace", "0.02", "--deploy-timeout-ms", "300");
    try (Editor e = new Editor((in, out) -> DemoAcp.serve(o, in, out))) {
      e.response(e.request("initialize", Map.of("protocolVersion", 1)));
      String s = e.response(e.request("session/new", Map.of("cwd", "/tmp", "mcpServers", List.of())))
          .path("result").path("sessionId").asText();
      int p = e.request("session/prompt", Map.of("sessionId", s, "prompt",
          List.of(Map.of("type", "text", "text", Demo.USER_MESSAGE))));
      JsonNode shell = e.agentRequest("session/request_permission");
      assertThat(shell.path("params").path("toolCall").path("title").asText()).isEqualTo("shell: mvn test");
      assertThat(shell.path("params").path("toolCall").path("kind").asText()).isEqualTo("execute");
      e.answer(shell.get("id"), Map.of("outcome", Map.of("outcome", "selected", "optionId", "allow_once")));
      JsonNode deploy = e.agentRequest("session/request_permission");
      JsonNode withdrawn = e.until(m -> m.path("method").asText().equals("$/cancel_request"));
      assertThat(withdrawn.path("params").path("requestId")).isEqualTo(deploy.get("id"));
      assertThat(e.response(p).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      String text = String.join("", e.updates("agent_message_chunk").stream()
          .map(u -> u.path("content").path("text").asText()).toList());
      assertThat(text).contains("Here is where things stand").contains("- Tests: they pass here")
          .contains("- Deploy: not done");
      List<String> titles = new java.util.ArrayList<>();
      for (String kind : List.of("tool_call", "tool_call_update")) {
        e.updates(kind).forEach(u -> titles.add(u.path("title").asText()));
      }
      assertThat(titles)
          .contains("read_file: README.md", "shell: mvn test", "deploy: production");
    }
  }
}
