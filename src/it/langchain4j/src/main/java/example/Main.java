package example;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.toolcall.langchain4j.LangChain4jModels;
import dev.toolcall.langchain4j.LangChain4jToolProvider;
import dev.toolcall.langchain4j.LangChain4jTools;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * LangChain4j 1.19 with toolcall-lifecycle: @Tool methods as tools (the read-only one runs without asking, the other
 * asks a person), a LangChain4j ChatModel as an Agent's model, and the same tools under an AiServices service through
 * LangChain4jToolProvider. Exits non-zero on any mismatch.
 */
public final class Main {
  private Main() {}

  /** An AI service, as a LangChain4j application writes it. */
  interface Assistant {
    String chat(@MemoryId String user, @UserMessage String message);
  }

  /** Tools written for LangChain4j, unchanged. */
  public static final class Weather {
    @Tool("Current temperature in a city, in °C")
    public double temperature(@P("the city") String city) {
      return city.equals("Oslo") ? -3.5 : 21.0;
    }

    @Tool("Books a trip")
    public String book(@P("the city") String city) {
      return "booked " + city;
    }
  }

  /** Asks for the temperature and a booking, then answers what the tools said. */
  static final class ScriptedModel implements ChatModel {
    @Override
    public ChatResponse doChat(ChatRequest request) {
      List<ChatMessage> m = request.messages();
      if (m.get(m.size() - 1) instanceof ToolExecutionResultMessage) {
        StringBuilder b = new StringBuilder();
        for (ChatMessage c : m) {
          if (c instanceof ToolExecutionResultMessage t) {
            b.append(t.toolName()).append('=').append(t.text()).append(' ');
          }
        }
        return ChatResponse.builder().aiMessage(AiMessage.from(b.toString().trim())).build();
      }
      return ChatResponse.builder().aiMessage(AiMessage.from(List.of(
          ToolExecutionRequest.builder().id("call_0").name("temperature").arguments("{\"city\":\"Oslo\"}").build(),
          ToolExecutionRequest.builder().id("call_1").name("book").arguments("{\"city\":\"Oslo\"}").build())))
          .build();
    }
  }

  public static void main(String[] args) throws Exception {
    ExecutorService person = Executors.newSingleThreadExecutor();
    List<PermissionRequest> asked = new CopyOnWriteArrayList<>();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
        .tools(LangChain4jTools.tools(new Weather(), (name, tool) -> tool.readOnly(name.equals("temperature"))
            .requiresApproval(name.equals("book"))))
        .build()) {
      runtime.permissions().onRequest(r -> {
        asked.add(r);
        runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
      }, person);
      TurnResult r = Agent.builder(LangChain4jModels.client(new ScriptedModel()), runtime).build()
          .send("How cold is Oslo? Book me a trip.").toCompletableFuture().get(30, TimeUnit.SECONDS);
      if (!r.text().equals("temperature=-3.5 book=booked Oslo")
          || !asked.stream().map(PermissionRequest::toolName).toList().equals(List.of("book"))) {
        throw new IllegalStateException("unexpected turn: " + r.text() + ", asked " + asked);
      }
      System.out.println("langchain4j consumer: turn answered \"" + r.text() + "\"; asked for " + asked.get(0).toolName() + " only");

      asked.clear();
      Assistant assistant = AiServices.builder(Assistant.class).chatModel(new ScriptedModel())
          .chatMemoryProvider(user -> MessageWindowChatMemory.withMaxMessages(20))
          .toolProvider(LangChain4jToolProvider.create(runtime)).build();
      String answer = assistant.chat("alice", "How cold is Oslo? Book me a trip.");
      if (!answer.equals("temperature=-3.5 book=booked Oslo") || asked.size() != 1
          || !asked.get(0).toolName().equals("book") || !asked.get(0).sessionId().equals("alice")) {
        throw new IllegalStateException("unexpected AiServices answer: " + answer + ", asked " + asked);
      }
      System.out.println("langchain4j consumer: AiServices answered \"" + answer + "\"; asked for book in alice's"
          + " session only");
    } finally {
      person.shutdownNow();
    }
  }
}
