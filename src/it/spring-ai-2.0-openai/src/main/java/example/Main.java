package example;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.springai.SpringAiConversationAdvisor;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring Boot 4 application with Spring AI 2.0's OpenAI starter and toolcall-lifecycle on one class path (the
 * build enforces convergence): its OpenAI {@code ChatModel} speaks HTTP to a fake provider on loopback, which asks for
 * a {@code deploy} call; the call runs under the library's lifecycle (the auto-configured manager, one property), a
 * person approves it, and the provider then reads the tool's result. Exits non-zero on any mismatch.
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

  /** The application: Boot's auto-configuration, nothing else. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class ShopApplication {}

  /** A provider that speaks OpenAI's chat completions: first a tool call, then the text after the tool's result. */
  static final class FakeOpenAi {
    final List<String> bodies = new CopyOnWriteArrayList<>();
    final HttpServer server;

    FakeOpenAi() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/", this::answer);
      server.start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void answer(HttpExchange exchange) throws IOException {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      bodies.add(exchange.getRequestURI().getPath() + " " + body);
      String message = body.contains("\"role\":\"tool\"")
          ? "{\"role\":\"assistant\",\"content\":\"done: " + (body.contains("deployed to prod") ? "deployed" : "no result")
              + "\"}"
          : "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_0\",\"type\":\"function\","
              + "\"function\":{\"name\":\"deploy\",\"arguments\":\"{\\\"env\\\":\\\"prod\\\"}\"}}]}";
      String finish = body.contains("\"role\":\"tool\"") ? "stop" : "tool_calls";
      byte[] out = ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"gpt-4o-mini\","
          + "\"choices\":[{\"index\":0,\"message\":" + message + ",\"finish_reason\":\"" + finish + "\"}],"
          + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}")
          .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, out.length);
      exchange.getResponseBody().write(out);
      exchange.close();
    }
  }

  public static void main(String[] args) throws Exception {
    FakeOpenAi provider = new FakeOpenAi();
    SpringApplication app = new SpringApplication(ShopApplication.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    ExecutorService person = Executors.newSingleThreadExecutor();
    List<PermissionRequest> asked = new CopyOnWriteArrayList<>();
    try (ConfigurableApplicationContext context = app.run("--toolcall.spring-ai.enabled=true",
        "--spring.ai.openai.api-key=test-key", "--spring.ai.openai.base-url=" + provider.baseUrl() + "/v1",
        "--spring.ai.openai.chat.options.model=gpt-4o-mini")) {
      ToolCallRuntime runtime = context.getBean(ToolCallRuntime.class);
      runtime.permissions().onRequest(q -> {
        asked.add(q);
        runtime.permissions().decide(q.requestId(), Decision.approveOnce(q));
      }, person);
      check("chat model", context.getBean(org.springframework.ai.chat.model.ChatModel.class).getClass()
          .getSimpleName(), "OpenAiChatModel");
      // the conversation advisor makes the chat memory's conversation id the calls' session
      ChatClient chat = context.getBean(ChatClient.Builder.class)
          .defaultAdvisors(SpringAiConversationAdvisor.create()).build();
      String answer = chat.prompt().user("deploy prod").tools(new Shop())
          .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "chat-1")).call().content();
      check("round trip", answer, "done: deployed");
      check("approved through the lifecycle", asked.size() + " " + asked.get(0).toolName() + " "
          + asked.get(0).sessionId(), "1 deploy chat-1");
      check("provider requests", String.valueOf(provider.bodies.size()), "2");
      check("tool offered", String.valueOf(provider.bodies.get(0).contains("\"deploy\"")), "true");
    } finally {
      person.shutdownNow();
      provider.server.stop(0);
    }
    System.out.println("spring-ai openai starter consumer: the OpenAI client's tool call ran under the lifecycle, "
        + "approved in session chat-1");
  }

  static void check(String what, String actual, String expected) {
    if (!expected.equals(actual)) {
      throw new IllegalStateException(what + ": expected <" + expected + "> but was <" + actual + ">");
    }
  }
}
