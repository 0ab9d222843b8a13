package dev.toolcall.springai;

import static dev.toolcall.springai.SpringAiAdapterTest.call;
import static dev.toolcall.springai.SpringAiAdapterTest.calls;
import static dev.toolcall.springai.SpringAiAdapterTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

/**
 * Many users on one drop-in manager: each Spring AI request's tool calls run in the session of its conversation, read
 * where Spring keeps it (the tool context's {@code conversationId}, the chat memory's conversation id through
 * {@link SpringAiConversationAdvisor}), and a request with neither gets a fresh session of its own. Every test runs
 * two users at once on real threads, through real {@code ChatClient}s, with the same tools and the same call ids,
 * and a person who answers every request "approve for the session".
 *
 * <p>Before: every request without a {@code conversationId} ran in the one session {@code spring-ai}, so user B
 * received user A's result (the scheduler handed back A's call with the same id) and B's tool never ran, and A's
 * "approve for session" approved B's call without asking; the chat memory's conversation id was never read.
 */
class SpringAiSessionTest {

  private final SpringAiAdapterTest.Shop shop = new SpringAiAdapterTest.Shop();
  private final List<ToolCallback> callbacks = List.of(MethodToolCallbackProvider.builder().toolObjects(shop).build()
      .getToolCallbacks());
  private final ToolCallRuntime runtime = ToolCallRuntime.builder()
      .tools(SpringAiTools.tools(callbacks, (name, b) -> b.requiresApproval(name.equals("deploy"))))
      .build();
  private final ToolCallingManager manager = SpringAiToolCallingManager.create(runtime);
  private final ExecutorService person = Executors.newSingleThreadExecutor();
  private final List<PermissionRequest> asked = new CopyOnWriteArrayList<>();

  SpringAiSessionTest() {
    runtime.permissions().onRequest(r -> {
      asked.add(r);
      runtime.permissions().decide(r.requestId(), Decision.approveForSession(r));
    }, person);
  }

  @AfterEach
  void close() {
    runtime.close();
    person.shutdownNow();
  }

  /** The model of one user: asks to deploy to {@code env} with call id {@code id}, then answers what the tool said. */
  private SpringAiAdapterTest.ScriptedChatModel model(String id, String env) {
    return new SpringAiAdapterTest.ScriptedChatModel(manager)
        .then(p -> calls(call(id, "deploy", "{\"env\":\"" + env + "\"}")))
        .then(echoToolResponse());
  }

  /** Answers the text of the last tool response of the prompt: what the user's request received from its tool. */
  static Function<Prompt, ChatResponse> echoToolResponse() {
    return p -> {
      List<Message> m = p.getInstructions();
      ToolResponseMessage t = (ToolResponseMessage) m.get(m.size() - 1);
      return text(t.getResponses().get(0).responseData()); // a String result as Spring writes it: JSON
    };
  }

  @RepeatedTest(5)
  void requestsWithoutAConversationEachGetAFreshSession() throws Exception {
    String[] envs = {"user-A", "user-B"};
    String[] got = new String[2];
    Race.run(2, Duration.ofSeconds(20), i -> got[i] = ChatClient.create(model("call_0", envs[i])).prompt()
        .user("deploy").toolCallbacks(callbacks).call().content());

    assertThat(got).containsExactly("\"deployed to user-A\"", "\"deployed to user-B\"");
    assertThat(shop.deployed).containsExactlyInAnyOrder("user-A", "user-B");
    assertThat(asked).as("B's call is asked for: A's session grant does not reach it").hasSize(2);
    assertThat(asked.get(0).sessionId()).isNotEqualTo(asked.get(1).sessionId());
  }

  @RepeatedTest(5)
  void theChatMemoryConversationIdIsTheSession() throws Exception {
    String[] envs = {"user-A", "user-B"};
    String[] chats = {"chat-A", "chat-B"};
    String[] got = new String[2];
    Race.run(2, Duration.ofSeconds(20), i -> got[i] = ChatClient.builder(model("call_0", envs[i]))
        .defaultAdvisors(SpringAiConversationAdvisor.create(),
            MessageChatMemoryAdvisor.builder(MessageWindowChatMemory.builder().build()).build())
        .build().prompt().user("deploy").toolCallbacks(callbacks)
        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, chats[i])).call().content());

    assertThat(got).containsExactly("\"deployed to user-A\"", "\"deployed to user-B\"");
    assertThat(shop.deployed).containsExactlyInAnyOrder("user-A", "user-B");
    assertThat(asked).extracting(PermissionRequest::sessionId).containsExactlyInAnyOrder("chat-A", "chat-B");
  }

  /** The same, streamed: the tools run on Reactor's threads, as Spring AI 1.1's provider models run them. */
  @RepeatedTest(3)
  void streamedRequestsKeepTheirConversations() throws Exception {
    String[] envs = {"user-A", "user-B"};
    String[] chats = {"chat-A", null};
    String[] got = new String[2];
    Race.run(2, Duration.ofSeconds(20), i -> {
      var spec = ChatClient.builder(model("call_0", envs[i])).defaultAdvisors(SpringAiConversationAdvisor.create())
          .build().prompt().user("deploy").toolCallbacks(callbacks);
      if (chats[i] != null) {
        spec = spec.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, chats[i]));
      }
      got[i] = String.join("", spec.stream().content().collectList().block(Duration.ofSeconds(15)));
    });

    assertThat(got).containsExactly("\"deployed to user-A\"", "\"deployed to user-B\"");
    assertThat(shop.deployed).containsExactlyInAnyOrder("user-A", "user-B");
    assertThat(asked).hasSize(2);
    assertThat(asked).filteredOn(r -> r.sessionId().equals("chat-A")).singleElement()
        .satisfies(r -> assertThat(r.arguments().raw()).contains("user-A"));
    assertThat(asked).filteredOn(r -> !r.sessionId().equals("chat-A")).singleElement()
        .satisfies(r -> assertThat(r.sessionId()).startsWith("spring-ai-"));
  }

  @Test
  void aSessionGrantHoldsInItsConversationAndNowhereElse() throws Exception {
    ChatClient a = ChatClient.builder(model("call_0", "staging").then(p -> calls(call("call_1", "deploy",
        "{\"env\":\"prod\"}"))).then(echoToolResponse())).defaultAdvisors(SpringAiConversationAdvisor.create())
        .build();
    assertThat(a.prompt().user("deploy").toolCallbacks(callbacks)
        .advisors(s -> s.param(ChatMemory.CONVERSATION_ID, "chat-A")).call().content())
        .isEqualTo("\"deployed to staging\"");
    // the same conversation, a later request: A's grant for the session approves it without asking
    assertThat(a.prompt().user("again").toolCallbacks(callbacks)
        .advisors(s -> s.param(ChatMemory.CONVERSATION_ID, "chat-A")).call().content())
        .isEqualTo("\"deployed to prod\"");
    assertThat(asked).extracting(PermissionRequest::sessionId).containsExactly("chat-A");

    // B, in its own conversation named by the tool context, and C, with no conversation at all, are both asked
    assertThat(ChatClient.create(model("call_0", "b")).prompt().user("deploy").toolCallbacks(callbacks)
        .toolContext(Map.of(SpringAiToolCallingManager.CONVERSATION_ID, "chat-B")).call().content())
        .isEqualTo("\"deployed to b\"");
    assertThat(ChatClient.create(model("call_0", "c")).prompt().user("deploy").toolCallbacks(callbacks).call()
        .content()).isEqualTo("\"deployed to c\"");
    assertThat(asked).hasSize(3);
    assertThat(asked.get(1).sessionId()).isEqualTo("chat-B");
    assertThat(asked.get(2).sessionId()).isNotIn("chat-A", "chat-B");
    assertThat(shop.deployed).containsExactly("staging", "prod", "b", "c");
  }
}
