package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.wire.SessionTokens;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 3: the AG-UI endpoint on the embedded server, driven by the official AG-UI TypeScript client
 * ({@code @ag-ui/client} from npm, run under Node by {@code src/test/node/agui-client.cjs}): a turn with an approval,
 * a denial with a reason, edited arguments, an older client answering through {@code forwardedProps.command.resume},
 * a request nobody answers (its deadline passes; the client cancels the expired interrupt), and the same with agents
 * whose turns suspend on approval ({@code Agent.Builder.suspendOnApproval}: resumed by {@code resumeWith}), and a
 * response with two requests (both in the interrupt; a resume with one malformed entry decides neither). The script asserts
 * the event shapes the client applied; this test asserts what ran on the server.
 */
class AguiNodeClientTest {

  @Test
  void theOfficialClientApprovesDeniesEditsAndTimesOut() throws Exception {
    SessionTokens tokens = SessionTokens.create();
    try (Shell shell = new Shell(Duration.ofSeconds(2));
        ApprovalServer server = ApprovalServer.builder(shell.runtime).access(tokens).agents(shell::agent).start()) {
      String url = server.aguiUri().toString();
      StringBuilder map = new StringBuilder("{");
      for (String t : new String[] {"approve", "deny", "edit", "legacy", "timeout", "suspend-approve", "suspend-edit", "pair"}) {
        map.append(map.length() > 1 ? "," : "").append('"').append(t).append("\":\"").append(tokens.issue(t))
            .append('"');
      }
      String out = NodeClient.run("agui-client.cjs", Map.of("AGUI_URL", url, "AGUI_TIMEOUT_URL", url,
          "AGUI_TOKENS", map.append('}').toString()));

      assertThat(out).containsPattern("(?m)^\\d+ passed, 0 failed$");
      // Each approved command ran exactly once; the denied and the timed-out ones never ran.
      assertThat(shell.ran).containsExactlyInAnyOrder("echo hi", "echo edited", "echo old", "echo s1", "echo s2 edited",
          "echo p 1");
      assertThat(server.openStreams()).isZero();
    }
  }
}
