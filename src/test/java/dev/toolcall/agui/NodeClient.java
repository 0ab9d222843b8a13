package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a script of src/test/node under Node with the official AG-UI client that {@code .ci/ensure-node-client.sh}
 * installed. Never skips: a missing Node or client fails the test, naming the script that installs them.
 */
final class NodeClient {
  private NodeClient() {}

  static Path clientDir() {
    String dir = System.getenv("AGUI_CLIENT_DIR");
    return dir != null ? Path.of(dir) : Path.of(System.getProperty("user.home"), ".cache", "toolcall", "agui-client");
  }

  static String node() {
    for (String candidate : List.of("/usr/bin/node", "/usr/local/bin/node")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return "node";
  }

  /** Runs {@code script} with {@code env}; returns its output (stdout and stderr together) after checking exit 0. */
  static String run(String script, Map<String, String> env) throws IOException, InterruptedException {
    Path modules = clientDir().resolve("node_modules");
    assertThat(modules.resolve("@ag-ui/client/package.json"))
        .as("the AG-UI client is installed: run `bash .ci/ensure-node-client.sh` first").exists();
    ProcessBuilder pb = new ProcessBuilder(node(), "src/test/node/" + script).redirectErrorStream(true);
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
