package dev.toolcall.mcp;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.conversation.TurnResult;
import dev.toolcall.testing.ScriptedModel;
import io.modelcontextprotocol.client.transport.ServerParameters;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Runs the MCP example of docs/integrations.md against the test server, and checks the doc shows this code. */
class McpExampleTest {

  @Test
  void theExampleRunsAndTheDocShowsIt() throws Exception {
    String javaBin = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ServerParameters server = ServerParameters.builder(javaBin).args("-cp", cp, TestMcpServer.class.getName()).build();
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "files_echo", "{\"text\":\"hello\"}"))
        .thenText("The server said hello.");

    TurnResult r = McpExample.ask(model, server, "Say hello through the server");

    assertThat(r.calls()).singleElement().satisfies(c -> assertThat(c.messageForModel()).isEqualTo("echo: hello"));
    assertThat(r.text()).isEqualTo("The server said hello.");
    String source = Files.readString(Path.of("src/test/java/dev/toolcall/mcp/McpExample.java"),
        StandardCharsets.UTF_8);
    String code = source.substring(source.indexOf("// docs:begin\n") + "// docs:begin\n".length(),
        source.indexOf("  // docs:end")).lines().map(l -> l.startsWith("  ") ? l.substring(2) : l)
        .collect(Collectors.joining("\n", "", "\n"));
    assertThat(Files.readString(Path.of("docs/integrations.md"), StandardCharsets.UTF_8))
        .as("docs/integrations.md shows the example as it is").contains(code);
  }
}
