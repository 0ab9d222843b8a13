package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.permission.PermissionRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs the Spring AI example of docs/integrations.md in a real Spring context under a real ChatClient, and checks the
 * doc shows it. Also the bean the doc showed before, which Spring Boot gave an empty {@code List<ToolCallback>}
 * (Spring AI's tools are not beans): it built a runtime with no tools, and every call was answered "unknown tool".
 */
class SpringAiExampleTest {

  @Test
  void theExampleRunsAndTheDocShowsIt() throws Exception {
    SpringAiAdapterTest.Shop shop = new SpringAiAdapterTest.Shop();
    ToolCallRuntime runtime;
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(SpringAiExample.class)) {
      runtime = context.getBean(ToolCallRuntime.class);
      ToolCallingManager manager = context.getBean(ToolCallingManager.class);
      SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
          .then(p -> SpringAiAdapterTest.calls(SpringAiAdapterTest.call("c1", "stock", "{\"product\":\"apple\"}")))
          .then(p -> SpringAiAdapterTest.text("12 apples."));
      assertThat(ChatClient.create(model).prompt().user("apples?").tools(shop).call().content())
          .isEqualTo("12 apples.");
      assertThat(runtime.registry().find("stock")).hasValueSatisfying(t -> assertThat(t.definition()
          .requiresApproval()).isFalse());
    }
    assertThat(runtime.scheduler().isClosed()).as("closed with the context").isTrue();
    String source = Files.readString(Path.of("src/test/java/dev/toolcall/springai/SpringAiExample.java"),
        StandardCharsets.UTF_8);
    String code = source.substring(source.indexOf("// docs:begin\n") + "// docs:begin\n".length(),
        source.indexOf("  // docs:end")).lines().map(l -> l.startsWith("  ") ? l.substring(2) : l)
        .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
    assertThat(Files.readString(Path.of("docs/integrations.md"), StandardCharsets.UTF_8))
        .as("docs/integrations.md shows the example as it is").contains(code);
  }

  /** The bean the doc showed before, as Spring gives it its arguments: no ToolCallback beans, an empty list. */
  @Configuration(proxyBeanMethods = false)
  static class Before {
    @Bean
    ToolCallingManager toolCallingManager(List<ToolCallback> callbacks) {
      return SpringAiToolCallingManager.create(ToolCallRuntime.builder()
          .tools(SpringAiTools.tools(callbacks, (name, tool) -> tool.requiresApproval(false))).build());
    }
  }

  @Test
  void theFormerBeanWithAnEmptyListRunsTheRequestsTools() {
    SpringAiAdapterTest.Shop shop = new SpringAiAdapterTest.Shop();
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Before.class)) {
      SpringAiToolCallingManager manager = context.getBean(SpringAiToolCallingManager.class);
      assertThat(manager.runtime().registry().tools()).as("Spring passed an empty list").isEmpty();
      List<PermissionRequest> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
      manager.runtime().permissions().onRequest(r -> {
        asked.add(r);
        manager.runtime().permissions().decide(r.requestId(), dev.toolcall.permission.Decision.approveOnce(r));
      }, Runnable::run);
      SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
          .then(p -> SpringAiAdapterTest.calls(SpringAiAdapterTest.call("c1", "deploy", "{\"env\":\"prod\"}")))
          .then(SpringAiSessionTest.echoToolResponse());
      assertThat(ChatClient.create(model).prompt().user("deploy").tools(shop).call().content())
          .isEqualTo("\"deployed to prod\"");
      assertThat(shop.deployed).containsExactly("prod");
      assertThat(asked).hasSize(1);
      assertThat(manager.runtime().scheduler().isClosed()).isFalse();
    }
  }
}
