package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.testing.TestPrograms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a script of src/test/node under Node with the official AG-UI client, both found by {@link TestPrograms}
 * ({@code TOOLCALL_NODE}, else {@code PATH}; {@code AGUI_CLIENT_DIR}). Never skips: a missing Node or client fails
 * the test, naming the variable and the script that installs them.
 */
final class NodeClient {
  private NodeClient() {}

  /** Runs {@code script} with {@code env}; returns its output (stdout and stderr together) after checking exit 0. */
  static String run(String script, Map<String, String> env) throws IOException, InterruptedException {
    Path modules = TestPrograms.aguiClientModules();
    ProcessBuilder pb = new ProcessBuilder(TestPrograms.node().toString(), "src/test/node/" + script).redirectErrorStream(true);
    pb.environment().putAll(env);
    pb.environment().put("NODE_PATH", modules.toString());
    pb.environment().put("SUPPRESS_TRANSFORMATION_WARNINGS", "1");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("node finished").isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("node %s exit code; output:%n%s", script, text).isZero();
    return text;
  }
}
