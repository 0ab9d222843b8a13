package dev.toolcall.springai;

import static dev.toolcall.springai.SpringAiAdapterTest.call;
import static dev.toolcall.springai.SpringAiAdapterTest.calls;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Spring Boot auto-configuration through a real {@code SpringApplication} (auto-configuration found through the
 * jar's {@code AutoConfiguration.imports}, as in an application): nothing changes without
 * {@code toolcall.spring-ai.enabled=true}; with it, the application's tool beans run through the drop-in manager
 * under the properties' settings, the runtime is a bean of its own, and it closes with the context. Boot's logging
 * system is turned off for these tests ({@code org.springframework.boot.logging.LoggingSystem=none}) so the test
 * logging stays as the suite configures it.
 */
class ToolCallAutoConfigurationTest {

  /** An application with a tool bean, as Spring AI documents it. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    final SpringAiAdapterTest.Shop shop = new SpringAiAdapterTest.Shop();

    @Bean
    ToolCallbackProvider shopTools() {
      return MethodToolCallbackProvider.builder().toolObjects(shop).build();
    }
  }

  /** The same with a manager of its own. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class AppWithItsOwnManager {
    @Bean
    ToolCallingManager toolCallingManager() {
      return DefaultToolCallingManager.builder().build();
    }
  }

  private final ExecutorService person = Executors.newSingleThreadExecutor();
  private ConfigurableApplicationContext context;

  @BeforeAll
  static void quietBoot() {
    System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
  }

  @AfterEach
  void close() {
    if (context != null) {
      context.close();
    }
    person.shutdownNow();
  }

  private ConfigurableApplicationContext run(Class<?> app, String... properties) {
    SpringApplication a = new SpringApplication(app);
    a.setWebApplicationType(WebApplicationType.NONE);
    a.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
    a.setLogStartupInfo(false);
    a.setDefaultProperties(java.util.Arrays.stream(properties).map(p -> p.split("=", 2))
        .collect(java.util.stream.Collectors.toMap(p -> p[0], p -> (Object) p[1])));
    context = a.run();
    return context;
  }

  @Test
  void theJarRegistersTheAutoConfiguration() {
    assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
        .contains(ToolCallAutoConfiguration.class.getName());
  }

  @Test
  void withoutThePropertyNothingChanges() {
    run(App.class);
    assertThat(context.getBeansOfType(ToolCallRuntime.class)).isEmpty();
    assertThat(context.getBeansOfType(SpringAiToolCallingManager.class)).isEmpty();
  }

  @Test
  void withThePropertyTheToolBeansRunThroughTheManagerUnderTheProperties() {
    run(App.class, "toolcall.spring-ai.enabled=true", "toolcall.read-only-tools=stock",
        "toolcall.tool-timeout=30s", "toolcall.permission-timeout=2m");
    ToolCallRuntime runtime = context.getBean(ToolCallRuntime.class); // its own bean: no cast
    ToolCallingManager manager = context.getBean(ToolCallingManager.class);
    assertThat(manager).isInstanceOf(SpringAiToolCallingManager.class);
    assertThat(((SpringAiToolCallingManager) manager).runtime()).isSameAs(runtime);
    assertThat(runtime.registry().find("stock")).hasValueSatisfying(t -> {
      assertThat(t.definition().readOnly()).isTrue();
      assertThat(t.definition().requiresApproval()).isFalse();
      assertThat(t.definition().timeout()).isEqualTo(Duration.ofSeconds(30));
    });
    assertThat(runtime.registry().find("deploy")).hasValueSatisfying(t -> assertThat(t.definition()
        .requiresApproval()).isTrue());

    List<PermissionRequest> asked = new CopyOnWriteArrayList<>();
    runtime.permissions().onRequest(r -> {
      asked.add(r);
      runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
    }, person);
    App app = context.getBean(App.class);
    SpringAiAdapterTest.ScriptedChatModel model = new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> calls(call("c1", "stock", "{\"product\":\"apple\"}"), call("c2", "deploy", "{\"env\":\"prod\"}")))
        .then(p -> SpringAiAdapterTest.text("done"));
    assertThat(ChatClient.create(model).prompt().user("go")
        .toolCallbacks(context.getBean(ToolCallbackProvider.class).getToolCallbacks()).call().content())
        .isEqualTo("done");
    assertThat(app.shop.deployed).containsExactly("prod");
    assertThat(asked).singleElement().satisfies(r -> {
      assertThat(r.toolName()).isEqualTo("deploy");
      assertThat(Duration.between(r.createdAt(), r.deadline())).isEqualTo(Duration.ofMinutes(2));
    });

    context.close();
    assertThat(runtime.scheduler().isClosed()).as("the runtime closes with the context").isTrue();
  }

  @Test
  void anApplicationsOwnManagerIsKept() {
    run(AppWithItsOwnManager.class, "toolcall.spring-ai.enabled=true");
    assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(DefaultToolCallingManager.class);
    assertThat(context.getBeansOfType(ToolCallRuntime.class)).hasSize(1); // reachable, for the application's use
  }
}
