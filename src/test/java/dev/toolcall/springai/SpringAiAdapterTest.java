package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelOptions;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolExecutionEligibilityPredicate;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

/**
 * The Spring AI adapters through Spring AI's real types: the drop-in {@code ToolCallingManager} under a real
 * {@code ChatClient} (with a chat model written here the way Spring AI's provider models use a manager), tool
 * callbacks as tools, and a {@code ChatModel} as the agent's model.
 */
class SpringAiAdapterTest {

  /** Tools as a Spring AI user writes them. */
  public static final class Shop {
    final List<String> deployed = new CopyOnWriteArrayList<>();
    final CountDownLatch slowStarted = new CountDownLatch(1);

    @Tool(description = "The stock of a product")
    public int stock(String product) {
      return product.equals("apple") ? 12 : 0;
    }

    @Tool(description = "Deploys the shop")
    public String deploy(String env) {
      deployed.add(env);
      return "deployed to " + env;
    }

    @Tool(description = "Rebuilds the search index (slow)")
    public String reindex() throws InterruptedException {
      slowStarted.countDown();
      new CountDownLatch(1).await(20, TimeUnit.SECONDS);
      return "reindexed";
    }
  }

  /**
   * A chat model that uses its ToolCallingManager as Spring AI's provider models do: when the response asks for tools
   * and internal execution is on, it executes them through the manager and calls itself again with the history.
   */
  static final class ScriptedChatModel implements ChatModel {
    final ToolCallingManager manager;
    final List<Prompt> prompts = new CopyOnWriteArrayList<>();
    final ArrayDeque<Function<Prompt, ChatResponse>> script = new ArrayDeque<>();

    ScriptedChatModel(ToolCallingManager manager) {
      this.manager = manager;
    }

    ScriptedChatModel then(Function<Prompt, ChatResponse> step) {
      script.add(step);
      return this;
    }

    private ChatResponse next(Prompt prompt) {
      prompts.add(prompt);
      Function<Prompt, ChatResponse> step;
      synchronized (script) {
        step = script.poll();
      }
      return step == null ? text("script exhausted") : step.apply(prompt);
    }

    /**
     * Streams as Spring AI 1.1's provider models do: the response's chunks, and when it asks for tools, their
     * execution through the manager on Reactor's {@code boundedElastic} pool, then the next round trip's stream.
     */
    @Override
    public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
      return reactor.core.publisher.Flux.defer(() -> {
        ChatResponse r = next(prompt);
        if (manager == null || !new DefaultToolExecutionEligibilityPredicate().isToolExecutionRequired(
            prompt.getOptions(), r)) {
          return reactor.core.publisher.Flux.just(r);
        }
        return reactor.core.publisher.Flux.defer(() -> {
          ToolExecutionResult t = manager.executeToolCalls(prompt, r);
          if (t.returnDirect()) {
            return reactor.core.publisher.Flux.just(ChatResponse.builder().from(r)
                .generations(ToolExecutionResult.buildGenerations(t)).build());
          }
          return stream(new Prompt(t.conversationHistory(), prompt.getOptions()));
        }).subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
      });
    }

    @Override
    public ChatResponse call(Prompt prompt) {
      ChatResponse r = next(prompt);
      if (manager != null && new DefaultToolExecutionEligibilityPredicate().isToolExecutionRequired(
          prompt.getOptions(), r)) {
        ToolExecutionResult t = manager.executeToolCalls(prompt, r);
        if (t.returnDirect()) {
          return ChatResponse.builder().from(r).generations(ToolExecutionResult.buildGenerations(t)).build();
        }
        return call(new Prompt(t.conversationHistory(), prompt.getOptions()));
      }
      return r;
    }

    @Override
    public ChatOptions getDefaultOptions() {
      return ToolCallingChatOptions.builder().build();
    }
  }

  /** Stand-ins named like spring-ai-retry's exceptions (that module is not a dependency here). */
  static final class TransientAiException extends RuntimeException {
    TransientAiException(String m) {
      super(m);
    }
  }

  static final class NonTransientAiException extends RuntimeException {
    NonTransientAiException(String m) {
      super(m);
    }
  }

  static ChatResponse text(String text) {
    return new ChatResponse(List.of(new Generation(new AssistantMessage(text),
        ChatGenerationMetadata.builder().finishReason("STOP").build())),
        ChatResponseMetadata.builder().usage(new DefaultUsage(11, 4)).build());
  }

  static ChatResponse calls(AssistantMessage.ToolCall... calls) {
    return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(List.of(calls))
        .build(), ChatGenerationMetadata.builder().finishReason("TOOL_CALLS").build())),
        ChatResponseMetadata.builder().usage(new DefaultUsage(20, 6)).build());
  }

  static AssistantMessage.ToolCall call(String id, String name, String args) {
    return new AssistantMessage.ToolCall(id, "function", name, args);
  }

  private final Shop shop = new Shop();
  private final List<ToolCallback> callbacks = List.of(MethodToolCallbackProvider.builder().toolObjects(shop).build()
      .getToolCallbacks());
  private final ToolCallRuntime runtime = ToolCallRuntime.builder()
      .tools(SpringAiTools.tools(callbacks, (name, b) -> b.requiresApproval(name.equals("deploy"))
          .readOnly(!name.equals("deploy"))))
      .build();
  private final ExecutorService person = Executors.newSingleThreadExecutor();
  private final List<Event> events = new CopyOnWriteArrayList<>();

  SpringAiAdapterTest() {
    runtime.events().subscribe(EventListener.of(events::add));
  }

  @AfterEach
  void close() {
    runtime.close();
    person.shutdownNow();
  }

  @Test
  void aChatClientRunsItsToolsThroughTheDropInManager() {
    ScriptedChatModel model = new ScriptedChatModel(SpringAiToolCallingManager.create(runtime))
        .then(p -> calls(call("c1", "stock", "{\"product\":\"apple\"}"), call("c2", "stock", "{\"product\":\"pear\"}")))
        .then(p -> text("12 apples, no pears."));
    String answer = ChatClient.builder(model).build().prompt().user("What is in stock?").toolCallbacks(callbacks)
        .call().content();

    assertThat(answer).isEqualTo("12 apples, no pears.");
    List<Message> second = model.prompts.get(1).getInstructions();
    ToolResponseMessage responses = (ToolResponseMessage) second.get(second.size() - 1);
    assertThat(responses.getResponses()).extracting(ToolResponseMessage.ToolResponse::id,
        ToolResponseMessage.ToolResponse::responseData).containsExactly(
        org.assertj.core.groups.Tuple.tuple("c1", "12"), org.assertj.core.groups.Tuple.tuple("c2", "0"));
    assertThat(events).filteredOn(e -> e instanceof ToolCallEvent.StateChanged s && s.to().isTerminal())
        .extracting(e -> ((ToolCallEvent) e).state()).containsExactly(ToolCallState.COMPLETED,
            ToolCallState.COMPLETED);
  }

  @Test
  void aDeniedCallBecomesAToolMessageUnderTheChatClient() {
    runtime.permissions().onRequest(r -> runtime.permissions().decide(r.requestId(),
        Decision.deny(r, "no deploys on Friday")), person);
    ScriptedChatModel model = new ScriptedChatModel(SpringAiToolCallingManager.create(runtime))
        .then(p -> calls(call("c1", "deploy", "{\"env\":\"prod\"}")))
        .then(p -> text("I did not deploy."));
    String answer = ChatClient.builder(model).build().prompt().user("deploy").toolCallbacks(callbacks).call()
        .content();

    assertThat(answer).isEqualTo("I did not deploy.");
    assertThat(shop.deployed).isEmpty();
    List<Message> second = model.prompts.get(1).getInstructions();
    ToolResponseMessage r = (ToolResponseMessage) second.get(second.size() - 1);
    assertThat(r.getResponses().get(0).responseData()).contains("no deploys on Friday");
  }

  @Test
  void aBlankIdOrAnUnknownToolIsAnsweredNotThrown() {
    ScriptedChatModel model = new ScriptedChatModel(SpringAiToolCallingManager.create(runtime))
        .then(p -> calls(call("", "stok", "{}")))
        .then(p -> text("sorry"));
    String answer = ChatClient.builder(model).build().prompt().user("?").toolCallbacks(callbacks).call().content();
    assertThat(answer).isEqualTo("sorry");
    List<Message> second = model.prompts.get(1).getInstructions();
    ToolResponseMessage r = (ToolResponseMessage) second.get(second.size() - 1);
    assertThat(r.getResponses().get(0).id()).isEmpty();
    assertThat(r.getResponses().get(0).responseData()).contains("stock");
  }

  @Test
  void aChatModelIsTheAgentsModelWithItsToolsOfferedButNotRunBySpring() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel(null)
        .then(p -> calls(call("c1", "stock", "{\"product\":\"apple\"}")))
        .then(p -> text("12."));
    TurnResult r = Agent.builder(SpringAiModels.client(model), runtime).instructions("Be brief.")
        .options(ModelOptions.builder().temperature(0.1).maxTokens(64).build()).build().send("apples?")
        .toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(r.text()).isEqualTo("12.");
    assertThat(r.usage()).isEqualTo(new dev.toolcall.conversation.TokenUsage(31, 10));
    Prompt first = model.prompts.get(0);
    assertThat(first.getInstructions().get(0)).isEqualTo(new SystemMessage("Be brief."));
    ToolCallingChatOptions o = (ToolCallingChatOptions) first.getOptions();
    assertThat(o.getInternalToolExecutionEnabled()).isFalse();
    assertThat(o.getTemperature()).isEqualTo(0.1);
    assertThat(o.getMaxTokens()).isEqualTo(64);
    assertThat(o.getToolCallbacks()).extracting(c -> c.getToolDefinition().name())
        .containsExactlyInAnyOrder("stock", "deploy", "reindex");
    List<Message> second = model.prompts.get(1).getInstructions();
    assertThat(second.get(second.size() - 1)).isInstanceOfSatisfying(ToolResponseMessage.class,
        t -> assertThat(t.getResponses().get(0).responseData()).isEqualTo("12"));
  }

  @Test
  void aStreamedResponseReachesTheAgentChunkByChunk() throws Exception {
    ChatModel streaming = new ChatModel() {
      int n;

      @Override
      public ChatResponse call(Prompt prompt) {
        throw new UnsupportedOperationException("streaming only");
      }

      @Override
      public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
        if (n++ == 0) {
          return reactor.core.publisher.Flux.just(text("Checking "), text("stock. "),
              calls(SpringAiAdapterTest.call("c1", "stock", "{\"product\":\"apple\"}")));
        }
        return reactor.core.publisher.Flux.just(text("12."));
      }
    };
    List<dev.toolcall.conversation.ModelDelta> deltas = new CopyOnWriteArrayList<>();
    TurnResult r = Agent.builder(SpringAiModels.streamingClient(streaming), runtime).onDelta(deltas::add).build()
        .send("apples?").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(r.text()).isEqualTo("12.");
    assertThat(deltas.subList(0, 4)).containsExactly(new dev.toolcall.conversation.ModelDelta.Text("Checking "),
        new dev.toolcall.conversation.ModelDelta.Text("stock. "),
        new dev.toolcall.conversation.ModelDelta.ToolCallStarted("c1", "stock"),
        new dev.toolcall.conversation.ModelDelta.ToolCallArguments("c1", "{\"product\":\"apple\"}"));
    assertThat(r.calls()).singleElement().satisfies(c -> assertThat(c.messageForModel()).isEqualTo("12"));
  }

  /** An aborted turn disposes the subscription of the streaming request in flight: the provider stops. */
  @Test
  void anAbortCancelsTheStreamingRequest() throws Exception {
    CountDownLatch subscribed = new CountDownLatch(1);
    CountDownLatch cancelled = new CountDownLatch(1);
    ChatModel streaming = new ChatModel() {
      @Override
      public ChatResponse call(Prompt prompt) {
        throw new UnsupportedOperationException("streaming only");
      }

      @Override
      public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
        return reactor.core.publisher.Flux.concat(reactor.core.publisher.Flux.just(text("Checking ")),
            reactor.core.publisher.Flux.<ChatResponse>never())
            .doOnSubscribe(x -> subscribed.countDown()).doOnCancel(cancelled::countDown);
      }
    };
    Agent agent = Agent.builder(SpringAiModels.streamingClient(streaming), runtime).build();
    java.util.concurrent.CompletableFuture<TurnResult> turn = agent.send("apples?").toCompletableFuture();
    assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
    agent.abort();
    assertThat(turn.get(10, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(cancelled.await(10, TimeUnit.SECONDS)).as("the Flux subscription was cancelled").isTrue();
  }

  @Test
  void providerErrorsEndTheTurnWithTheRightKind() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel(null).then(p -> {
      throw new NonTransientAiException("400 bad request");
    });
    TurnResult r = Agent.builder(SpringAiModels.client(model), runtime).build().send("hi").toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).contains("400 bad request");
    assertThat(SpringAiModels.error(new TransientAiException("503")).kind())
        .isEqualTo(dev.toolcall.conversation.ModelException.Kind.SERVER_ERROR);
  }

  @Test
  void aCancelledTurnCancelsTheSpringTool() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel(null).then(p -> calls(call("c1", "reindex", "{}")));
    Agent agent = Agent.builder(SpringAiModels.client(model), runtime).build();
    var turn = agent.send("reindex").toCompletableFuture();
    assertThat(shop.slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    agent.abort();
    TurnResult r = turn.get(10, TimeUnit.SECONDS);
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(r.calls()).singleElement().satisfies(c -> assertThat(c.snapshot().state())
        .isEqualTo(ToolCallState.CANCELLED));
  }
}
