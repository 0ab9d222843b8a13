package dev.toolcall.langchain4j.readme;

// README:begin langchain4j
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.toolcall.langchain4j.LangChain4jToolProvider;
import dev.toolcall.langchain4j.LangChain4jTools;
import dev.toolcall.runtime.ToolCallRuntime;
import java.time.Duration;

/** A LangChain4j AI service whose tool calls run under the lifecycle: reads at once, bookings once a person agrees. */
public final class TravelAssistant {
  private TravelAssistant() {}

  /** The application's AI service, unchanged: the memory id is the user's conversation. */
  public interface Assistant {
    String chat(@MemoryId String user, @UserMessage String message);
  }

  /** The application's tools, written for LangChain4j, unchanged. */
  public static class Weather {
    @Tool("Current temperature in a city, in °C")
    public double temperature(@P(name = "city", value = "the city") String city) {
      return city.equals("Oslo") ? -3.5 : 21.0;
    }

    @Tool("Books a trip")
    public String book(@P(name = "city", value = "the city") String city) {
      return "booked " + city;
    }
  }

  /** Once, at startup: the runtime runs the tools (close it when the application stops). */
  public static ToolCallRuntime runtime() {
    return ToolCallRuntime.builder()
        .tools(LangChain4jTools.tools(new Weather(), (name, tool) -> tool
            .readOnly(name.equals("temperature")).requiresApproval(name.equals("book"))
            .permissionTimeout(Duration.ofSeconds(30))))
        .build();
  }

  /** The AI service as before, with the runtime as its tool provider instead of the tool objects. */
  public static Assistant assistant(ChatModel chatModel, ToolCallRuntime runtime) {
    return AiServices.builder(Assistant.class)
        .chatModel(chatModel)
        .chatMemoryProvider(user -> MessageWindowChatMemory.withMaxMessages(20))
        .toolProvider(LangChain4jToolProvider.create(runtime)) // instead of .tools(new Weather())
        .build();
  }
}
// README:end langchain4j
