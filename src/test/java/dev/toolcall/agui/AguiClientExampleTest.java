package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.wire.SessionTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The client side shown in docs/agui.md ("A client"), run as it stands with the official {@code @ag-ui/client} under
 * Node against the embedded server: it sends a message, approves the request the agent asks, and prints the answer;
 * the tool ran once. Checks docs/agui.md shows exactly the script.
 */
class AguiClientExampleTest {

  @Test
  void theDocsClientApprovesAndPrintsTheAnswer() throws Exception {
    SessionTokens tokens = SessionTokens.create();
    try (Shell shell = new Shell(Duration.ofSeconds(30));
        ApprovalServer server = ApprovalServer.builder(shell.runtime).access(tokens).agents(shell::agent).start()) {
      String out = NodeClient.run("agui-try.cjs", Map.of("AGUI_URL", server.aguiUri().toString(),
          "AGUI_TOKEN", tokens.issue("try"), "AGUI_THREAD", "try"));
      assertThat(out.lines()).containsExactly("approving shell {\"command\":\"echo hello\"}", "tool said: ran: echo hello");
      assertThat(shell.ran).containsExactly("echo hello");
    }
    String script = Files.readString(Path.of("src/test/node/agui-try.cjs"));
    String js = script.substring(script.indexOf("// README:begin") + "// README:begin".length(),
        script.indexOf("// README:end")).strip();
    assertThat(Files.readString(Path.of("docs/agui.md"))).as("docs/agui.md shows src/test/node/agui-try.cjs")
        .contains(js);
  }
}
