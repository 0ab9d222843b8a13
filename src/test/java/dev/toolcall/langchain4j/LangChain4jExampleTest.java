package dev.toolcall.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.langchain4j.readme.TravelAssistant;
import dev.toolcall.permission.Decision;
import dev.toolcall.testing.Readme;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Runs the example of docs/integrations.md with a scripted LangChain4j model, and checks the doc shows this code. */
class LangChain4jExampleTest {

  @Test
  void theExampleRunsAndTheDocShowsIt() throws Exception {
    LangChain4jAdapterTest.ScriptedChatModel model = new LangChain4jAdapterTest.ScriptedChatModel()
        .then(r -> LangChain4jAdapterTest.calls(LangChain4jAdapterTest.call("c1", "temperature",
            "{\"city\":\"Oslo\"}")))
        .then(r -> LangChain4jAdapterTest.text("It is -3.5 °C in Oslo."));
    TurnResult r = LangChain4jExample.ask(model, "How cold is Oslo?");
    assertThat(r.calls()).singleElement().satisfies(c -> assertThat(c.messageForModel()).isEqualTo("-3.5"));
    assertThat(r.text()).isEqualTo("It is -3.5 °C in Oslo.");

    assertTheDocShows("src/test/java/dev/toolcall/langchain4j/LangChain4jExample.java");
  }

  /**
   * The AiServices example: a read runs at once, a booking waits for a person who approves it, and the model's
   * answer is the service's answer; the doc and the README show the code as it is.
   */
  @Test
  void theAiServicesExampleRunsAndTheDocsShowIt() throws Exception {
    LangChain4jAdapterTest.ScriptedChatModel model = new LangChain4jAdapterTest.ScriptedChatModel()
        .then(r -> LangChain4jAdapterTest.calls(LangChain4jAdapterTest.call("c1", "temperature",
            "{\"city\":\"Oslo\"}"), LangChain4jAdapterTest.call("c2", "book", "{\"city\":\"Oslo\"}")))
        .then(r -> LangChain4jAdapterTest.text("It is -3.5 °C in Oslo; booked."));
    try (ToolCallRuntime runtime = TravelAssistant.runtime()) {
      java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
      runtime.permissions().onRequest(req -> {
        asked.add(req.toolName() + " in " + req.sessionId());
        runtime.permissions().decide(req.requestId(), Decision.approveOnce(req));
      }, Runnable::run);
      assertThat(TravelAssistant.assistant(model, runtime).chat("alice", "How cold is Oslo? Book it."))
          .isEqualTo("It is -3.5 °C in Oslo; booked.");
      assertThat(asked).containsExactly("book in alice");
      java.util.List<dev.langchain4j.data.message.ChatMessage> sent = model.requests.get(1).messages();
      assertThat(sent.subList(sent.size() - 2, sent.size())).extracting(m ->
          ((dev.langchain4j.data.message.ToolExecutionResultMessage) m).text()).containsExactly("-3.5", "booked Oslo");
    }
    // the README and docs/integrations.md show the class whole, with its imports
    String example = "src/test/java/dev/toolcall/langchain4j/readme/TravelAssistant.java";
    Readme.assertShows(example, "langchain4j");
    String source = Files.readString(Path.of(example), StandardCharsets.UTF_8);
    String begin = "// README:begin langchain4j\n";
    String shown = source.substring(source.indexOf(begin) + begin.length(),
        source.indexOf("// README:end langchain4j"));
    assertThat(Files.readString(Path.of("docs/integrations.md"), StandardCharsets.UTF_8))
        .as("docs/integrations.md shows the example as it is").contains("```java\n" + shown + "```\n");
  }

  private static void assertTheDocShows(String file) throws Exception {
    String source = Files.readString(Path.of(file), StandardCharsets.UTF_8);
    String code = source.substring(source.indexOf("// docs:begin\n") + "// docs:begin\n".length(),
        source.indexOf("  // docs:end")).lines().map(l -> l.startsWith("  ") ? l.substring(2) : l)
        .filter(l -> !l.strip().startsWith("// README:"))
        .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
    assertThat(Files.readString(Path.of("docs/integrations.md"), StandardCharsets.UTF_8))
        .as("docs/integrations.md shows the example as it is").contains(code);
  }
}
