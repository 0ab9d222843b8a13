package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.springai.boot.ShopApplication;
import dev.toolcall.springai.boot.ShopController;
import dev.toolcall.testing.Readme;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolExecutionEligibilityPredicate;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * The README's Spring Boot path, followed literally: the application class and the controller the README shows
 * ({@link ShopApplication}, {@link ShopController}, compared with README.md here), the one property, and Spring AI's
 * own auto-configurations (as a provider starter brings them) around a model that calls a tool only when the request
 * offers it, as a real model does. The application's {@code ChatClient} is built from Boot's builder and nothing else;
 * the controller is driven through Spring MVC ({@code MockMvc}) with wire-format bodies.
 */
class SpringAiReadmeTest {

  static final String PROPERTY = "toolcall.spring-ai.enabled=true";
  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What a provider starter defines (spring-ai-starter-model-openai and the like): a model that runs the tool loop
   * itself through the manager, as Spring AI 1.1's provider models do. It asks for a tool named in the user's message
   * ("deploy prod", "stock apples") only when the request offers it, and otherwise says so.
   */
  @Configuration(proxyBeanMethods = false)
  static class ProviderModel {
    @Bean
    ChatModel chatModel(ToolCallingManager manager) {
      return new OfferedToolsModel(manager);
    }
  }

  static final class OfferedToolsModel implements ChatModel {
    final ToolCallingManager manager;
    final List<List<String>> offered = new CopyOnWriteArrayList<>();

    OfferedToolsModel(ToolCallingManager manager) {
      this.manager = manager;
    }

    @Override
    public ChatResponse call(Prompt prompt) {
      List<String> tools = prompt.getOptions() instanceof ToolCallingChatOptions o
          ? manager.resolveToolDefinitions(o).stream().map(d -> d.name()).toList() : List.of();
      offered.add(tools);
      List<Message> m = prompt.getInstructions();
      ChatResponse r;
      if (m.get(m.size() - 1) instanceof ToolResponseMessage t) {
        return text("done: " + t.getResponses().get(0).responseData());
      }
      String[] words = m.get(m.size() - 1).getText().split(" ");
      String tool = words[0];
      if (!tools.contains(tool)) {
        return text("I cannot " + tool + ": no such tool is offered " + tools);
      }
      String arg = tool.equals("deploy") ? "env" : "item";
      r = new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(List.of(
          new AssistantMessage.ToolCall("call_0", "function", tool, "{\"" + arg + "\":\"" + words[1] + "\"}")))
          .build())));
      if (new DefaultToolExecutionEligibilityPredicate().isToolExecutionRequired(prompt.getOptions(), r)) {
        ToolExecutionResult t = manager.executeToolCalls(prompt, r);
        return call(new Prompt(t.conversationHistory(), prompt.getOptions()));
      }
      return r;
    }

    @Override
    public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
      return reactor.core.publisher.Flux.just(call(prompt));
    }

    @Override
    public ChatOptions getDefaultOptions() {
      return ToolCallingChatOptions.builder().build(); // as a provider model's: options that carry tools
    }

    private static ChatResponse text(String s) {
      return new ChatResponse(List.of(new Generation(new AssistantMessage(s))));
    }
  }

  /** A tool one request offers besides the application's. */
  public static final class Pantry {
    @Tool(description = "Counts an item in stock")
    public int stock(String item) {
      return item.length();
    }
  }

  @BeforeAll
  static void quietBoot() {
    System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
  }

  static ConfigurableApplicationContext start(String... args) {
    SpringApplication app = new SpringApplication(ShopApplication.class, ProviderModel.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    return app.run(args);
  }

  /** Waits until {@code n} calls of {@code runtime} wait for a decision (events: they do not read the queue). */
  static CountDownLatch waitingFor(ToolCallRuntime runtime, int n) {
    CountDownLatch latch = new CountDownLatch(n);
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ToolCallEvent.StateChanged s && s.to() == ToolCallState.PERMISSION_PENDING) {
        latch.countDown();
      }
    }));
    return latch;
  }

  static JsonNode body(MvcResult r) throws Exception {
    return JSON.readTree(r.getResponse().getContentAsString());
  }

  @Test
  void theReadmesBootPathOffersTheToolsAndItsControllerAnswersInTheWireFormat() throws Exception {
    Readme.assertShows("src/test/java/dev/toolcall/springai/boot/ShopApplication.java", "boot-application");
    Readme.assertShows("src/test/java/dev/toolcall/springai/boot/ShopController.java", "boot-controller");
    assertThat(Files.readString(Path.of("README.md"))).contains(PROPERTY);

    ExecutorService user = Executors.newSingleThreadExecutor();
    try (ConfigurableApplicationContext context = start("--" + PROPERTY)) {
      ToolCallRuntime runtime = context.getBean(ToolCallRuntime.class);
      ShopController controller = context.getBean(ShopController.class);
      MockMvc web = MockMvcBuilders.standaloneSetup(controller).build();
      CountDownLatch waiting = waitingFor(runtime, 1);

      CompletableFuture<String> answer = CompletableFuture.supplyAsync(
          () -> controller.chat("chat-7", "deploy prod"), user);
      assertThat(waiting.await(10, TimeUnit.SECONDS)).as("the model was offered deploy and called it").isTrue();

      assertThat(body(web.perform(get("/conversations/chat-8/approvals")).andReturn())).isEmpty();
      JsonNode list = body(web.perform(get("/conversations/chat-7/approvals")).andReturn());
      assertThat(list).hasSize(1);
      JsonNode request = list.get(0);
      assertThat(request.get("type").asText()).isEqualTo("permission.request");
      assertThat(request.get("toolName").asText()).isEqualTo("deploy");
      assertThat(request.at("/arguments/env").asText()).isEqualTo("prod");
      assertThat(request.toString()).doesNotContain("deadlineTick");
      String decision = "{\"v\":1,\"decisions\":[{\"requestId\":\"" + request.get("requestId").asText()
          + "\",\"argumentsVersion\":" + request.get("argumentsVersion").asInt() + ",\"decision\":\"approve_once\"}]}";

      MvcResult foreign = web.perform(post("/conversations/chat-8/approvals").content(decision)).andReturn();
      assertThat(foreign.getResponse().getStatus()).as("another conversation's request").isEqualTo(409);
      assertThat(body(foreign).at("/0/status").asText()).isEqualTo("unknown_request");

      MvcResult won = web.perform(post("/conversations/chat-7/approvals").content(decision)).andReturn();
      assertThat(won.getResponse().getStatus()).isEqualTo(200);
      assertThat(body(won).at("/0/status").asText()).isEqualTo("accepted");
      assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo("done: \"deployed to prod\"");

      MvcResult again = web.perform(post("/conversations/chat-7/approvals").content(decision)).andReturn();
      assertThat(again.getResponse().getStatus()).as("a second click").isEqualTo(409);
      JsonNode report = body(again).get(0);
      assertThat(report.get("type").asText()).isEqualTo("decision.result");
      assertThat(report.get("status").asText()).isEqualTo("already_answered");
      assertThat(report.get("message").asText()).contains("permission_approved");

      MvcResult bad = web.perform(post("/conversations/chat-7/approvals").content("{\"v\":1,\"decisions\":[{}]}"))
          .andReturn();
      assertThat(bad.getResponse().getStatus()).isEqualTo(400);

      assertThat(context.getBean(ShopApplication.Shop.class).deployed).containsExactly("prod");
      assertThat(context.getBean(OfferedToolsModel.class).offered).allSatisfy(t -> assertThat(t).contains("deploy"));
    } finally {
      user.shutdownNow();
    }
  }

  /** A request's own tools are offered beside the application's, and run under the lifecycle too. */
  @Test
  void aRequestsOwnToolsAreOfferedBesideTheApplications() {
    try (ConfigurableApplicationContext context = start("--" + PROPERTY, "--toolcall.read-only-tools=stock")) {
      org.springframework.ai.chat.client.ChatClient chat = context.getBean(
          org.springframework.ai.chat.client.ChatClient.class);
      assertThat(chat.prompt().user("stock apples").tools(new Pantry()).call().content()).isEqualTo("done: 6");
      assertThat(context.getBean(OfferedToolsModel.class).offered.get(0)).containsExactlyInAnyOrder("deploy", "stock");
      assertThat(context.getBean(ToolCallRuntime.class).registry().names()).contains("stock");
    }
  }

  /** {@code toolcall.spring-ai.chat-client.enabled=false}: Boot's builder is left as Spring AI made it. */
  @Test
  void theBuilderIsLeftAloneWhenTheApplicationSaysSo() {
    try (ConfigurableApplicationContext context = start("--" + PROPERTY,
        "--toolcall.spring-ai.chat-client.enabled=false")) {
      org.springframework.ai.chat.client.ChatClient chat = context.getBean(
          org.springframework.ai.chat.client.ChatClient.class);
      assertThat(chat.prompt().user("deploy prod").call().content()).startsWith("I cannot deploy");
      assertThat(context.containsBean(ToolCallAutoConfiguration.CUSTOMIZER)).isFalse();
      assertThat(new ArrayList<>(context.getBean(ToolCallRuntime.class).registry().names())).containsExactly("deploy");
    }
  }
}
