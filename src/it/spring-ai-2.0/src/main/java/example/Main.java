package example;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.springai.SpringAiConversationAdvisor;
import dev.toolcall.springai.SpringAiModels;
import dev.toolcall.springai.SpringAiToolCallingManager;
import dev.toolcall.springai.SpringAiTools;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import reactor.core.publisher.Flux;

/**
 * Spring AI 2.0.x (Spring Boot 4's dependency versions) with toolcall-lifecycle, built against the jar compiled for
 * Spring AI 1.1.x: the drop-in manager under a real ChatClient and its ToolCallingAdvisor, blocking and streamed, the
 * chat memory's conversation id as the session, a ChatModel as an Agent's model, and
 * a Spring Boot application that adopts it with one property ({@link #boot}). Exits non-zero on any mismatch.
 */
public final class Main {
  private Main() {}

  /** Tools as a Spring AI user writes them. */
  public static final class Shop {
    @Tool(description = "Deploys the shop to an environment")
    public String deploy(String env) {
      return "deployed to " + env;
    }
  }

  /**
   * A model as Spring AI 2 sees one (the ToolCallingAdvisor runs the tool loop, not the model): it resolves the tools
   * to send through the manager, as provider models do, asks to deploy to the environment the user named, then
   * answers what the tool said.
   */
  static final class ScriptedModel implements ChatModel {
    private final String id; // the provider's call id: "call_0" in every response, or blank as Ollama and Gemini send
    private final ToolCallingManager manager; // null: an Agent offers the tools

    ScriptedModel(ToolCallingManager manager) {
      this(manager, "call_0");
    }

    ScriptedModel(ToolCallingManager manager, String id) {
      this.manager = manager;
      this.id = id;
    }

    @Override
    public ChatResponse call(Prompt prompt) {
      offeredTools(manager, prompt);
      List<Message> m = prompt.getInstructions();
      if (m.get(m.size() - 1) instanceof ToolResponseMessage t) {
        return new ChatResponse(List.of(new Generation(new AssistantMessage("done: "
            + t.getResponses().get(0).responseData()))));
      }
      String env = m.get(m.size() - 1).getText().replace("deploy ", "");
      return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(List.of(
          new AssistantMessage.ToolCall(id, "function", "deploy", "{\"env\":\"" + env + "\"}"))).build())));
    }

    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
      return Flux.just(call(prompt));
    }

    @Override
    public ChatOptions getOptions() {
      return ToolCallingChatOptions.builder().build(); // as a provider model's: options that carry tools
    }
  }

  /** A Spring Boot application as it adopts the library: its tool bean, and one property (see {@link #boot}). */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.EnableAutoConfiguration
  public static class ShopApplication {
    @org.springframework.context.annotation.Bean
    org.springframework.ai.tool.ToolCallbackProvider shopTools() {
      return MethodToolCallbackProvider.builder().toolObjects(new Shop()).build();
    }
  }

  /**
   * The auto-configuration from the installed jar: with only {@code toolcall.spring-ai.enabled=true} the manager
   * bean is the library's, over a runtime bean built from the tool bean; blank ids in two requests of one
   * conversation both run; the runtime closes with the context.
   */
  static void boot() {
    org.springframework.boot.SpringApplication app = new org.springframework.boot.SpringApplication(
        ShopApplication.class);
    app.setWebApplicationType(org.springframework.boot.WebApplicationType.NONE);
    app.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    ToolCallRuntime runtime;
    ExecutorService person = Executors.newSingleThreadExecutor();
    try (org.springframework.context.ConfigurableApplicationContext context =
        app.run("--toolcall.spring-ai.enabled=true")) {
      runtime = context.getBean(ToolCallRuntime.class);
      ToolCallingManager manager = context.getBean(ToolCallingManager.class);
      check("boot manager", manager.getClass().getSimpleName(), "SpringAiToolCallingManager");
      check("boot tools", String.valueOf(runtime.registry().names()), "[deploy]");
      ToolCallRuntime r = runtime;
      r.permissions().onRequest(q -> r.permissions().decide(q.requestId(), Decision.approveOnce(q)), person);
      ToolCallback[] tools = context.getBean(org.springframework.ai.tool.ToolCallbackProvider.class)
          .getToolCallbacks();
      ChatClient chat = ChatClient.builder(new ScriptedModel(manager, ""))
          .defaultAdvisors(ToolCallingAdvisor.builder().toolCallingManager(manager).build(),
              SpringAiConversationAdvisor.create())
          .build();
      for (String env : List.of("prod", "staging")) { // blank ids, one conversation: neither is a duplicate
        check("boot round trip " + env, chat.prompt().user("deploy " + env).toolCallbacks(tools)
            .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "boot-chat")).call().content(),
            "done: \"deployed to " + env + "\"");
      }
    } finally {
      person.shutdownNow();
    }
    check("boot runtime closed with the context", String.valueOf(runtime.scheduler().isClosed()), "true");
    System.out.println("spring boot consumer: one property, two requests with blank ids, runtime closed");
  }

  /**
   * An application that builds its ChatClient from Boot's ChatClient.Builder, as the README shows: with only the
   * property, the builder offers the tool bean (the model checks it is offered) and carries the chat memory's
   * conversation id to the calls (the Spring AI 2 customizer, ChatClientBuilderCustomizer).
   */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.EnableAutoConfiguration
  public static class BuilderApplication {
    @org.springframework.context.annotation.Bean
    org.springframework.ai.tool.ToolCallbackProvider shopTools() {
      return MethodToolCallbackProvider.builder().toolObjects(new Shop()).build();
    }

    @org.springframework.context.annotation.Bean
    ChatModel chatModel(ToolCallingManager manager) {
      return new ScriptedModel(manager);
    }

    @org.springframework.context.annotation.Bean
    ChatClient chatClient(ChatClient.Builder builder) {
      return builder.build();
    }
  }

  static void bootBuilder() {
    org.springframework.boot.SpringApplication app = new org.springframework.boot.SpringApplication(
        BuilderApplication.class);
    app.setWebApplicationType(org.springframework.boot.WebApplicationType.NONE);
    app.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    ExecutorService person = Executors.newSingleThreadExecutor();
    List<PermissionRequest> asked = new CopyOnWriteArrayList<>();
    try (org.springframework.context.ConfigurableApplicationContext context =
        app.run("--toolcall.spring-ai.enabled=true")) {
      ToolCallRuntime r = context.getBean(ToolCallRuntime.class);
      r.permissions().onRequest(q -> {
        asked.add(q);
        r.permissions().decide(q.requestId(), Decision.approveOnce(q));
      }, person);
      check("boot builder customizer", String.valueOf(context.getBean("toolCallChatClientCustomizer").getClass()
          .getInterfaces()[0].getSimpleName()), "ChatClientBuilderCustomizer");
      check("boot builder round trip", context.getBean(ChatClient.class).prompt().user("deploy prod")
          .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "builder-chat")).call().content(),
          "done: \"deployed to prod\"");
      check("boot builder session", asked.size() + " " + asked.get(0).sessionId(), "1 builder-chat");
    } finally {
      person.shutdownNow();
    }
    System.out.println("spring boot consumer: Boot's ChatClient.Builder offers the tool bean, conversation as session");
  }

  public static void main(String[] args) throws Exception {
    boot();
    bootBuilder();
    ToolCallback[] callbacks = MethodToolCallbackProvider.builder().toolObjects(new Shop()).build()
        .getToolCallbacks();
    ExecutorService person = Executors.newSingleThreadExecutor();
    List<PermissionRequest> asked = new CopyOnWriteArrayList<>();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
        .tools(SpringAiTools.tools(List.of(callbacks), (name, tool) -> tool.requiresApproval(name.equals("deploy"))))
        .build()) {
      runtime.permissions().onRequest(r -> {
        asked.add(r);
        runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
      }, person);
      ToolCallingManager manager = SpringAiToolCallingManager.create(runtime);
      ChatClient chat = ChatClient.builder(new ScriptedModel(manager))
          .defaultAdvisors(ToolCallingAdvisor.builder().toolCallingManager(manager).build(),
              SpringAiConversationAdvisor.create())
          .build();

      String blocking = chat.prompt().user("deploy prod").toolCallbacks(callbacks)
          .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "chat-1")).call().content();
      check("blocking round trip", blocking, "done: \"deployed to prod\"");
      String streamed = String.join("", chat.prompt().user("deploy staging").toolCallbacks(callbacks).stream()
          .content().collectList().block(Duration.ofSeconds(30)));
      check("streamed round trip", streamed, "done: \"deployed to staging\"");
      check("sessions", asked.size() + " " + asked.get(0).sessionId() + " "
          + asked.get(1).sessionId().startsWith("spring-ai-"), "2 chat-1 true");

      TurnResult turn = Agent.builder(SpringAiModels.client(new ScriptedModel(null)), runtime).build()
          .send("deploy test").toCompletableFuture().get(30, TimeUnit.SECONDS);
      check("agent turn", turn.text(), "done: \"deployed to test\"");
      System.out.println("spring-ai " + org.springframework.ai.chat.client.ChatClient.class.getPackage()
          .getImplementationVersion() + " consumer: blocking, streamed and agent round trips ran; sessions "
          + asked.stream().map(PermissionRequest::sessionId).toList());
    } finally {
      person.shutdownNow();
    }
  }

  /** What a provider model does with the manager before it sends a request: resolve the tools the options name. */
  static void offeredTools(ToolCallingManager manager, Prompt prompt) {
    if (manager != null && prompt.getOptions() instanceof ToolCallingChatOptions o) {
      List<String> names = manager.resolveToolDefinitions(o).stream().map(d -> d.name()).toList();
      check("tools offered", String.valueOf(names), "[deploy]");
    }
  }

  static void check(String what, String actual, String expected) {
    if (!expected.equals(actual)) {
      throw new IllegalStateException(what + ": expected <" + expected + "> but was <" + actual + ">");
    }
  }
}
