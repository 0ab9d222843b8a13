package dev.toolcall.micrometer;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.CallRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * In Spring Boot, an {@code ObservationRegistry} bean is all it takes: the auto-configured runtime's calls are
 * observed on it. Without one, nothing of Micrometer is configured.
 */
class ToolCallObservationAutoConfigurationTest {

  public static final class Stock {
    @Tool(description = "Counts an item in stock")
    public int stock(String item) {
      return item.length();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    ToolCallbackProvider stockTools() {
      return MethodToolCallbackProvider.builder().toolObjects(new Stock()).build();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Registry {
    @Bean
    TestObservationRegistry observationRegistry() {
      return TestObservationRegistry.create();
    }
  }

  @BeforeAll
  static void quietBoot() {
    System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
  }

  static ConfigurableApplicationContext start(Class<?>... sources) {
    SpringApplication app = new SpringApplication(sources);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    return app.run("--toolcall.spring-ai.enabled=true", "--toolcall.read-only-tools=stock");
  }

  @Test
  void theRuntimeIsObservedOnTheApplicationsRegistry() throws Exception {
    TestObservationRegistry registry;
    try (ConfigurableApplicationContext context = start(App.class, Registry.class)) {
      registry = context.getBean(TestObservationRegistry.class);
      assertThat(context.getBean(ToolCallObservations.class)).isNotNull();
      context.getBean(ToolCallRuntime.class).schedule("chat-1", List.of(CallRequest.of("c1", "stock",
          "{\"item\":\"apples\"}"))).whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    assertThat(registry).hasObservationWithNameEqualTo(ToolCallObservations.TOOL_CALL).that()
        .hasLowCardinalityKeyValue("gen_ai.tool.name", "stock")
        .hasLowCardinalityKeyValue("toolcall.outcome", "completed").hasBeenStopped();
  }

  @Test
  void withoutARegistryBeanNothingOfMicrometerIsConfigured() {
    try (ConfigurableApplicationContext context = start(App.class)) {
      assertThat(context.getBeanNamesForType(ToolCallObservations.class)).isEmpty();
      assertThat(context.getBeanNamesForType(ObservationRegistry.class)).isEmpty();
      assertThat(context.getBean(ToolCallRuntime.class).registry().names()).containsExactly("stock");
    }
  }
}
