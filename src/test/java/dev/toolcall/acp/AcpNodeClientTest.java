package dev.toolcall.acp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.testing.TestPrograms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The ACP agent driven by the official Agent Client Protocol SDK ({@code @agentclientprotocol/sdk} from npm, its
 * client side, run under Node by {@code src/test/node/acp-client.mjs}), which starts {@link AcpTestAgent} as a
 * subprocess the way an editor does and talks to it over its stdio: a turn with an approval, a denial with a reason,
 * a cancel with a permission pending, a request nobody answers until its deadline, a session loaded again, an "always"
 * grant that a second turn does not ask again, and raw hostile input (a malformed and an oversized message, an unknown
 * method, wrong params, an unknown session, answers to a request never made, under the wrong id type, and replayed).
 * The script checks what the client saw and prints "N passed, N failed"; this test checks that and what ran. Never
 * skips: a missing Node or SDK fails, naming the variable and the script that installs them.
 */
class AcpNodeClientTest {

  @Test
  void theOfficialClientApprovesDeniesCancelsTimesOutAndLoads() throws Exception {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String agent = Connection.JSON.writeValueAsString(new String[] {java, "-cp", cp, AcpTestAgent.class.getName(),
        "1500"});
    Path sdk = TestPrograms.acpClientDir();
    ProcessBuilder pb = new ProcessBuilder(TestPrograms.node().toString(), "src/test/node/acp-client.mjs")
        .redirectErrorStream(true);
    pb.environment().put("ACP_CLIENT_DIR", sdk.toString());
    pb.environment().put("ACP_AGENT", agent);
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("node finished").isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("node exit code; output:%n%s", text).isZero();
    assertThat(text).as(text).containsPattern("(?m)^(\\d+) passed, 0 failed$");
    // Each approved command ran once; the denied, cancelled, timed-out and hostile ones never ran.
    assertThat(text.lines().filter(l -> l.startsWith("ran: ")).toList())
        .containsExactly("ran: echo hi", "ran: echo one", "ran: echo a", "ran: echo b");
  }
}
