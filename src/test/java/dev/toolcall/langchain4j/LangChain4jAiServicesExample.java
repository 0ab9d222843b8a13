package dev.toolcall.langchain4j;

import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.toolcall.runtime.ToolCallRuntime;
import java.time.Duration;

/** The AiServices example of docs/integrations.md and the README, run by {@link LangChain4jExampleTest}. */
final class LangChain4jAiServicesExample {

  // docs:begin
  /** The application's AI service, unchanged: the memory id is the user's conversation. */
  interface Assistant {
    String chat(@MemoryId String user, @UserMessage String message);
  }

  // README:begin
  /** Once, at startup: the runtime runs the tools (close it when the application stops). */
  static ToolCallRuntime runtime() {
    return ToolCallRuntime.builder()
        .tools(LangChain4jTools.tools(new LangChain4jExample.Weather(), (name, tool) -> tool
            .readOnly(name.equals("temperature")).requiresApproval(name.equals("book"))
            .permissionTimeout(Duration.ofSeconds(30))))
        .build();
  }

  static Assistant assistant(ChatModel chatModel, ToolCallRuntime runtime) {
    return AiServices.builder(Assistant.class)
        .chatModel(chatModel)
        .chatMemoryProvider(user -> MessageWindowChatMemory.withMaxMessages(20))
        .toolProvider(LangChain4jToolProvider.create(runtime)) // instead of .tools(new Weather())
        .build();
  }
  // README:end
  // docs:end
}
