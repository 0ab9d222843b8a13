package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.Readme;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The README's Spring Boot adoption, run as a Spring Boot application: the tool bean the application already has, the
 * one property, and the two methods a web controller calls to list and answer approvals while a {@code ChatClient}
 * call waits on another thread.
 */
class SpringAiReadmeTest {

  static final String PROPERTY = "toolcall.spring-ai.enabled=true";

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class ShopApplication {
    final SpringAiAdapterTest.Shop shop = new SpringAiAdapterTest.Shop();

    // README:begin spring
    @Bean // the tools, as Spring AI has them
    ToolCallbackProvider shopTools() {
      return MethodToolCallbackProvider.builder().toolObjects(shop).build();
    }
    // README:end spring
  }

  /** What a web controller calls. */
  static final class Controller {
    // README:begin approvals
    // in a @RestController, with the ToolCallRuntime bean injected:
    List<PermissionRequest> pending(ToolCallRuntime runtime, String conversationId) {
      return runtime.permissions().pending().stream()
          .filter(r -> r.sessionId().equals(conversationId)).toList();
    }

    DecisionResult approve(ToolCallRuntime runtime, String requestId) {
      PermissionRequest r = runtime.permissions().request(requestId).orElseThrow();
      return runtime.permissions().decide(requestId, Decision.approveOnce(r));
    }
    // README:end approvals
  }

  @BeforeAll
  static void quietBoot() {
    System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
  }

  @Test
  void theReadmesSpringBootAdoptionRuns() throws Exception {
    Readme.assertShows("src/test/java/dev/toolcall/springai/SpringAiReadmeTest.java", "spring");
    Readme.assertShows("src/test/java/dev/toolcall/springai/SpringAiReadmeTest.java", "approvals");
    assertThat(Files.readString(Path.of("README.md"))).contains(PROPERTY);

    SpringApplication app = new SpringApplication(ShopApplication.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    app.setDefaultProperties(java.util.Map.of(PROPERTY.split("=")[0], PROPERTY.split("=")[1]));
    try (ConfigurableApplicationContext context = app.run()) {
      ToolCallRuntime runtime = context.getBean(ToolCallRuntime.class);
      Controller web = new Controller();
      ToolCallingManager manager = context.getBean(ToolCallingManager.class);
      SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
          .then(p -> SpringAiAdapterTest.calls(SpringAiAdapterTest.call("c1", "deploy", "{\"env\":\"prod\"}")))
          .then(SpringAiSessionTest.echoToolResponse());
      CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> ChatClient.create(model).prompt()
          .user("deploy").toolCallbacks(context.getBean(ToolCallbackProvider.class).getToolCallbacks())
          .toolContext(java.util.Map.of(SpringAiToolCallingManager.CONVERSATION_ID, "chat-7")).call().content());
      PermissionRequest waiting = runtime.permissions().nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(web.pending(runtime, "chat-7")).containsExactly(waiting);
      assertThat(web.pending(runtime, "chat-8")).isEmpty();
      assertThat(web.approve(runtime, waiting.requestId())).isInstanceOf(DecisionResult.Won.class);
      assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo("\"deployed to prod\"");
      assertThat(context.getBean(ShopApplication.class).shop.deployed).containsExactly("prod");
    }
  }
}
