package dev.toolcall.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.a2a.A2aFixtures;
import dev.toolcall.testing.TestPrograms;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code --a2a}: the demo agent served over A2A, tried the way the README says (the official client running
 * src/test/node/a2a-try.cjs): the shell and deploy calls make the task input-required, the script approves them, the
 * task completes with the demo's answer; Enter stops the server.
 */
class DemoA2aTest {

  @Test
  void theDemoAgentIsServedOverA2aAndTheReadmesClientGetsItsAnswer() throws Exception {
    PipedOutputStream keys = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(keys);
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(screen, true, StandardCharsets.UTF_8);
    CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
      try {
        DemoA2a.serve(new String[] {"--a2a", "--port", "0", "--pace", "0.01"}, in, out);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Pattern ready = Pattern.compile("A2A_URL=(\\S+) A2A_TOKEN=(\\S+)");
    Matcher m = ready.matcher("");
    for (int i = 0; i < 400 && !m.find(); i++) { // waits for the server's first lines (no timing is asserted)
      Thread.sleep(50);
      m = ready.matcher(screen.toString(StandardCharsets.UTF_8));
    }
    assertThat(m.find(0)).as("the demo printed its URL and token: %s", screen).isTrue();
    ProcessBuilder pb = new ProcessBuilder(TestPrograms.node().toString(), "src/test/node/a2a-try.cjs")
        .redirectErrorStream(true);
    pb.environment().put("NODE_PATH", A2aFixtures.clientModules().toString());
    pb.environment().put("A2A_URL", m.group(1));
    pb.environment().put("A2A_TOKEN", m.group(2));
    Process p = pb.start();
    String client = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(client).contains("approving shell", "approving deploy", "TASK_STATE_COMPLETED: ");
    keys.write('\n');
    keys.flush();
    served.get(10, TimeUnit.SECONDS);
    assertThat(screen.toString(StandardCharsets.UTF_8)).contains("/.well-known/agent-card.json", "context: demo");
  }
}
