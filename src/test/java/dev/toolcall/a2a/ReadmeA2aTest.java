package dev.toolcall.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.Readme;
import dev.toolcall.testing.TestPrograms;
import dev.toolcall.tool.Tool;
import dev.toolcall.wire.SessionTokens;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's section "Other agents (A2A)": its Java (the server) runs here, and its JavaScript (the official
 * client sending a message and approving what is asked) runs under Node against it, as the README says to try it.
 */
class ReadmeA2aTest {

  @Test
  void theReadmesServerAnswersTheReadmesClient() throws Exception {
    A2aFixtures.Runs runs = new A2aFixtures.Runs();
    List<Tool> tools = A2aFixtures.tools(runs, Duration.ofHours(1));
    ModelClient model = A2aFixtures.model();
    // README:begin a2a
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools).build();
    AgentDirectory agents = AgentDirectory.builder(runtime, ConversationStore.inMemory(),
        conversationId -> Agent.builder(model, runtime)).build();
    SessionTokens tokens = SessionTokens.create();
    String token = tokens.issue("demo");   // the bearer token an A2A client sends for context "demo"
    A2aServer server = A2aServer.builder(runtime, agents).access(tokens)
        .card("deployer", "Deploys what you ask; a person approves each deploy", "1.0.0")
        .start();                          // http://127.0.0.1:<port>/.well-known/agent-card.json
    // README:end a2a
    try (runtime; agents; server) {
      ProcessBuilder pb = new ProcessBuilder(TestPrograms.node().toString(), "src/test/node/a2a-try.cjs")
          .redirectErrorStream(true);
      pb.environment().put("NODE_PATH", A2aFixtures.clientModules().toString());
      pb.environment().put("A2A_URL", server.baseUri().toString());
      pb.environment().put("A2A_TOKEN", token);
      pb.environment().put("A2A_TEXT", "deploy web");
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(out).isEqualTo("approving deploy {\"target\":\"web\"}\nTASK_STATE_COMPLETED: result: deployed web\n");
      assertThat(runs.deploy).hasValue(1);
    }
    Readme.assertShows("src/test/java/dev/toolcall/a2a/ReadmeA2aTest.java", "a2a");
    String script = Files.readString(Path.of("src/test/node/a2a-try.cjs"));
    String js = script.substring(script.indexOf("// README:begin") + 16, script.indexOf("// README:end")).strip();
    assertThat(Files.readString(Path.of("README.md"))).as("the README shows src/test/node/a2a-try.cjs").contains(js);
  }
}
