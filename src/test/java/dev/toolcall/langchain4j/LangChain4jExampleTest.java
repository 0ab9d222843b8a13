package dev.toolcall.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.conversation.TurnResult;
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

    String source = Files.readString(Path.of("src/test/java/dev/toolcall/langchain4j/LangChain4jExample.java"),
        StandardCharsets.UTF_8);
    String code = source.substring(source.indexOf("// docs:begin\n") + "// docs:begin\n".length(),
        source.indexOf("  // docs:end")).lines().map(l -> l.startsWith("  ") ? l.substring(2) : l)
        .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
    assertThat(Files.readString(Path.of("docs/integrations.md"), StandardCharsets.UTF_8))
        .as("docs/integrations.md shows the example as it is").contains(code);
  }
}
