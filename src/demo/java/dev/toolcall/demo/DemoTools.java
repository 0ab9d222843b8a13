package dev.toolcall.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelDelta;
import dev.toolcall.conversation.ModelRequest;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.UserMessage;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.tool.ToolInvocation;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The demo's tools. Nothing touches the network, the disk or a shell: every tool prints simulated output, line by
 * line, at the demo's pace, and stops when its call is cancelled.
 */
final class DemoTools {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The fake project the tools read. */
  private static final Map<String, List<String>> FILES = Map.of(
      "README.md", List.of("# shop-service", "The order API of the web shop.", "Build and test: mvn test",
          "Deploy: ./deploy.sh production (needs approval)"),
      "src/test/java/shop/OrderServiceTest.java", List.of("@Test void createsOrder() throws Exception {",
          "  Order order = service.create(cart);", "  Thread.sleep(100);",
          "  assertThat(order.createdAt()).isAfter(Instant.now().minusMillis(150));", "}"));
  private static final Map<String, List<String>> DIRS = Map.of(
      ".", List.of("README.md", "deploy.sh", "pom.xml", "src/"),
      "src/test/java/shop", List.of("OrderServiceTest.java", "PaymentServiceTest.java"));

  private final Pace pace;
  private final Duration deployTimeout;
  private final Supplier<ToolCallRuntime> runtime;
  private final ModelClient subAgentModel;
  private final AtomicInteger flakyAttempts = new AtomicInteger();

  /**
   * @param deployTimeout how long the deploy's permission request waits before it is auto-denied
   * @param runtime the runtime the sub-agent schedules its nested calls on
   * @param subAgentModel the sub-agent's own model
   */
  DemoTools(Pace pace, Duration deployTimeout, Supplier<ToolCallRuntime> runtime, ModelClient subAgentModel) {
    this.pace = pace;
    this.deployTimeout = deployTimeout;
    this.runtime = runtime;
    this.subAgentModel = subAgentModel;
  }

  /** Every tool the model is offered. */
  List<Tool> all() {
    return List.of(readFile(), listDir(), fetchUrl(), shell(), deploy(), subAgent());
  }

  /** The tools the sub-agent may use (read-only ones). */
  static List<String> subAgentTools() {
    return List.of("read_file", "list_dir");
  }

  private Tool readFile() {
    return Tool.of(ToolDefinition.builder("read_file").description("Reads a text file of the project")
        .parameters(schema("path")).readOnly(true).requiresApproval(false).build(), inv -> {
          String path = text(inv, "path");
          List<String> lines = FILES.get(path);
          if (lines == null) {
            throw new ToolException("No such file: " + path);
          }
          return lines(inv, 220, lines);
        });
  }

  private Tool listDir() {
    return Tool.of(ToolDefinition.builder("list_dir").description("Lists a directory of the project")
        .parameters(schema("path")).readOnly(true).requiresApproval(false).build(), inv -> {
          String path = text(inv, "path");
          List<String> entries = DIRS.get(path);
          if (entries == null) {
            throw new ToolException("No such directory: " + path);
          }
          return lines(inv, 300, entries);
        });
  }

  /** Fails twice with a transient error (connection reset), then succeeds: the scheduler retries it. */
  private Tool fetchUrl() {
    return Tool.of(ToolDefinition.builder("fetch_url").description("Fetches a web page (GET)")
        .parameters(schema("url")).readOnly(true).requiresApproval(false).idempotent(true)
        .retryPolicy(new RetryPolicy(4, pace.of(600), 2.0, pace.of(5_000), 0.2)).build(), inv -> {
          inv.output("GET " + text(inv, "url") + "\n");
          pace.sleep(400);
          if (flakyAttempts.incrementAndGet() <= 2) {
            inv.output("connection reset by peer\n");
            throw new TransientToolException("connection reset by peer (attempt " + inv.attempt() + ")");
          }
          return lines(inv, 250, List.of("HTTP/1.1 200 OK", "build #142: FAILED",
              "failing test: OrderServiceTest.createsOrder (it passed in build #141)"));
        });
  }

  private Tool shell() {
    return Tool.of(ToolDefinition.builder("shell").description("Runs a shell command in the project")
        .parameters(schema("command")).build(), inv -> { // requires approval: the default
          String command = text(inv, "command");
          List<String> out = new ArrayList<>();
          out.add("$ " + command);
          out.add("[INFO] Running shop.OrderServiceTest");
          out.add("[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0");
          if (!command.contains("-Dtest=")) {
            out.add("[INFO] Running shop.PaymentServiceTest");
            out.add("[INFO] Tests run: 30, Failures: 0, Errors: 0, Skipped: 0");
          }
          out.add("[INFO] BUILD SUCCESS");
          return lines(inv, 350, out);
        });
  }

  private Tool deploy() {
    return Tool.of(ToolDefinition.builder("deploy").description("Deploys the service")
        .parameters(schema("env")).permissionTimeout(deployTimeout).build(),
        inv -> lines(inv, 400, List.of("deploying to " + text(inv, "env"), "done")));
  }

  /**
   * A sub-agent: a small turn loop of its own with its own model, whose tool calls are scheduled nested in this
   * call ({@link CallRequest#nestedIn}), so a UI shows them under it. Its model's text goes to this call's live
   * output; its answer is this call's result. Cancelling this call cancels its nested calls (the scheduler does that
   * for every nested call, with no code here).
   *
   * <p>It drives the scheduler itself rather than running an {@link dev.toolcall.conversation.Agent} (which nests its
   * calls the same way with {@code Agent.Builder.parent}), so that the screen shows one conversation: a
   * sub-agent's own conversation states would share the bus and the status line.
   */
  private Tool subAgent() {
    return Tool.of(ToolDefinition.builder("sub_agent").description("Delegates a task to a sub-agent")
        .parameters(schema("task")).readOnly(true).requiresApproval(false).build(), inv -> {
          ToolCallRuntime rt = runtime.get();
          List<Message> messages = new ArrayList<>();
          messages.add(new UserMessage(text(inv, "task")));
          List<ToolDefinition> tools = new ArrayList<>();
          for (String name : subAgentTools()) {
            tools.add(rt.registry().find(name).orElseThrow().definition());
          }
          for (int round = 0; round < 5; round++) {
            ModelResponse r = await(subAgentModel.stream(new ModelRequest(messages, tools), d -> {
              if (d instanceof ModelDelta.Text t) {
                inv.output(t.text());
              }
            }).toCompletableFuture(), inv);
            inv.output("\n");
            messages.add(AssistantMessage.of(r));
            if (!r.hasToolCalls()) {
              return ToolResult.of(r.text());
            }
            List<CallRequest> nested = new ArrayList<>();
            for (ToolCallRequest c : r.toolCalls()) {
              nested.add(CallRequest.of(c.id(), c.name(), c.rawArguments()).nestedIn(inv.callId()));
            }
            Batch batch = rt.schedule(inv.sessionId(), nested);
            for (CallResult cr : await(batch.whenDone().toCompletableFuture(), inv)) {
              messages.add(new ToolResultMessage(cr.callId(), cr.toolName(), cr.messageForModel(), cr.isError()));
            }
          }
          throw new ToolException("the sub-agent did not finish within 5 round trips");
        });
  }

  private static <T> T await(java.util.concurrent.CompletableFuture<T> f, ToolInvocation inv)
      throws InterruptedException, ToolException {
    try {
      return f.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new ToolException("the sub-agent failed: " + e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw new ToolException("the sub-agent took too long");
    }
  }

  /** Writes {@code lines} as live output, one every {@code millis}, and returns them as the result. */
  private ToolResult lines(ToolInvocation inv, long millis, List<String> lines) throws InterruptedException {
    StringBuilder all = new StringBuilder();
    for (String l : lines) {
      if (inv.isCancelled()) {
        throw new InterruptedException("cancelled");
      }
      pace.sleep(millis);
      inv.output(l + "\n");
      all.append(l).append('\n');
    }
    return ToolResult.of(all.toString().strip());
  }

  private static String text(ToolInvocation inv, String field) {
    JsonNode n = inv.arguments().asJson().get(field);
    return n == null ? "" : n.asText();
  }

  /** An object schema with one required string property. */
  private static JsonNode schema(String property) {
    try {
      return JSON.readTree("{\"type\":\"object\",\"properties\":{\"" + property + "\":{\"type\":\"string\","
          + "\"minLength\":1}},\"required\":[\"" + property + "\"],\"additionalProperties\":false}");
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
