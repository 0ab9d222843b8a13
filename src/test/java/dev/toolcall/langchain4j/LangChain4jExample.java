package dev.toolcall.langchain4j;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.model.chat.ChatModel;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import java.util.concurrent.TimeUnit;

/** The example of docs/integrations.md, run by {@link LangChain4jExampleTest}. */
final class LangChain4jExample {

  // docs:begin
  /** Tools written for LangChain4j, unchanged. */
  public static class Weather {
    @Tool("Current temperature in a city, in °C")
    public double temperature(@P("the city") String city) {
      return city.equals("Oslo") ? -3.5 : 21.0;
    }

    @Tool("Books a trip")
    public String book(@P("the city") String city) {
      return "booked " + city;
    }
  }

  static TurnResult ask(ChatModel chatModel, String question) throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
        // reading is harmless; booking asks for a person's approval (denied after 30 s without an answer)
        .tools(LangChain4jTools.tools(new Weather(), (name, tool) -> tool.readOnly(name.equals("temperature"))
            .requiresApproval(name.equals("book")).permissionTimeout(java.time.Duration.ofSeconds(30))))
        .build()) {
      Agent agent = Agent.builder(LangChain4jModels.client(chatModel), runtime)
          .instructions("You answer questions about the weather.").build();
      return agent.send(question).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }
  // docs:end
}
