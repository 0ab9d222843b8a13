package dev.toolcall.springai;

import dev.toolcall.ToolCallRuntime;
import java.time.Duration;
import java.util.List;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;

/** The example of docs/integrations.md, run by {@link SpringAiExampleTest}. */
final class SpringAiExample {

  // docs:begin
  /** In a Spring configuration: the one bean that gives every ChatClient the lifecycle. */
  static ToolCallingManager toolCallingManager(List<ToolCallback> callbacks) {
    ToolCallRuntime runtime = ToolCallRuntime.builder()
        .tools(SpringAiTools.tools(callbacks, (name, tool) -> tool.requiresApproval(name.equals("deploy"))
            .timeout(Duration.ofSeconds(30)).permissionTimeout(Duration.ofMinutes(2))))
        .build();
    return SpringAiToolCallingManager.create(runtime);
  }

  // and the provider model takes it, as Spring AI's models do:
  // OpenAiChatModel.builder().openAiApi(api).toolCallingManager(toolCallingManager).build()
  // docs:end

  static ChatModel unused() {
    return null;
  }
}
