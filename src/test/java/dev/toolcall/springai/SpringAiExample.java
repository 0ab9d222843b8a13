package dev.toolcall.springai;

import dev.toolcall.runtime.ToolCallRuntime;
import java.time.Duration;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The example of docs/integrations.md, run by {@link SpringAiExampleTest} in a real Spring context. */
@Configuration(proxyBeanMethods = false)
class SpringAiExample {

  // docs:begin
  /** The runtime, a bean of its own: the application answers approvals on it; closed with the context. */
  @Bean(destroyMethod = "close")
  ToolCallRuntime toolCallRuntime() {
    return ToolCallRuntime.builder().build();
  }

  /** The one bean that gives every ChatClient the lifecycle: the tools each request offers run under the runtime. */
  @Bean
  ToolCallingManager toolCallingManager(ToolCallRuntime runtime) {
    return SpringAiToolCallingManager.builder(runtime)
        .customize((name, tool) -> tool.requiresApproval(name.equals("deploy"))
            .timeout(Duration.ofSeconds(30)).permissionTimeout(Duration.ofMinutes(2)))
        .build();
  }

  // and the provider model takes it, as Spring AI's models do:
  // OpenAiChatModel.builder().openAiApi(api).toolCallingManager(toolCallingManager).build()
  // docs:end
}
