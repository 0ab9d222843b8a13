package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

/** Runs the Spring AI example of docs/integrations.md under a real ChatClient, and checks the doc shows it. */
class SpringAiExampleTest {

  @Test
  void theExampleRunsAndTheDocShowsIt() throws Exception {
    SpringAiAdapterTest.Shop shop = new SpringAiAdapterTest.Shop();
    List<ToolCallback> callbacks = List.of(MethodToolCallbackProvider.builder().toolObjects(shop).build()
        .getToolCallbacks());
    ToolCallingManager manager = SpringAiExample.toolCallingManager(callbacks);
    SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> SpringAiAdapterTest.calls(SpringAiAdapterTest.call("c1", "stock", "{\"product\":\"apple\"}")))
        .then(p -> SpringAiAdapterTest.text("12 apples."));
    try {
      assertThat(ChatClient.create(model).prompt().user("apples?").toolCallbacks(callbacks).call().content())
          .isEqualTo("12 apples.");
    } finally {
      ((SpringAiToolCallingManager) manager).runtime().close();
    }
    String source = Files.readString(Path.of("src/test/java/dev/toolcall/springai/SpringAiExample.java"),
        StandardCharsets.UTF_8);
    String code = source.substring(source.indexOf("// docs:begin\n") + "// docs:begin\n".length(),
        source.indexOf("  // docs:end")).lines().map(l -> l.startsWith("  ") ? l.substring(2) : l)
        .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
    assertThat(Files.readString(Path.of("docs/integrations.md"), StandardCharsets.UTF_8))
        .as("docs/integrations.md shows the example as it is").contains(code);
  }
}
