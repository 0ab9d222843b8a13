package dev.toolcall.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolResult;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelRequest;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.UserMessage;
import dev.toolcall.testing.TestPrograms;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the A2A tests share: a model that answers by rule (so every context of one server behaves the same), the tools
 * it calls, and the runner of the Node script with the official A2A client. Public for the PostgreSQL test.
 */
public final class A2aFixtures {
  private A2aFixtures() {}

  /** The variable naming the folder the A2A client is installed in (its {@code node_modules}'s parent). */
  public static final String A2A_CLIENT_DIR = "A2A_CLIENT_DIR";

  /** Counts of tool runs. */
  public static final class Runs {
    public final AtomicInteger deploy = new AtomicInteger();
    public final AtomicInteger release = new AtomicInteger();
    public final AtomicInteger quick = new AtomicInteger();
    public final AtomicInteger slowInterrupted = new AtomicInteger();
  }

  /**
   * The tools: {@code deploy} and {@code release} (ask, deadline an hour), {@code quick} (asks, deadline {@code quickDeadline}),
   * {@code slow} (asks nobody, runs until cancelled).
   */
  public static List<Tool> tools(Runs runs, Duration quickDeadline) {
    return List.of(
        Tool.of(ToolDefinition.builder("deploy").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
          runs.deploy.incrementAndGet();
          return ToolResult.of("deployed " + inv.arguments().asJson().path("target").asText());
        }),
        Tool.of(ToolDefinition.builder("release").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
          runs.release.incrementAndGet();
          return ToolResult.of("released " + inv.arguments().asJson().path("target").asText());
        }),
        Tool.of(ToolDefinition.builder("quick").permissionTimeout(quickDeadline).build(), inv -> {
          runs.quick.incrementAndGet();
          return ToolResult.of("quick done");
        }),
        Tool.of(ToolDefinition.builder("slow").requiresApproval(false).build(), inv -> {
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            runs.slowInterrupted.incrementAndGet();
            throw e;
          }
          return ToolResult.of("slow done");
        }));
  }

  /**
   * A model answering by rule: a user message {@code deploy X} (or {@code release X}) calls that tool with target X, {@code quick} and
   * {@code slow} call those tools, anything else is answered "hi"; after tool results it answers
   * {@code result: <the results>}.
   */
  public static ModelClient model() {
    AtomicInteger ids = new AtomicInteger();
    return new ModelClient() {
      @Override
      public CompletionStage<ModelResponse> complete(ModelRequest request) {
        Message last = request.lastMessage();
        if (last instanceof UserMessage u) {
          String t = u.text().strip();
          String id = "call_" + ids.incrementAndGet();
          if (t.startsWith("deploy ") || t.startsWith("release ")) {
            String tool = t.substring(0, t.indexOf(' '));
            String target = t.substring(tool.length() + 1).replaceAll("[^a-z0-9 ]", "");
            return CompletableFuture.completedFuture(ModelResponse.toolCalls("", List.of(new ToolCallRequest(id,
                tool, "{\"target\":\"" + target + "\"}"))));
          }
          if (t.equals("quick") || t.equals("slow")) {
            return CompletableFuture.completedFuture(ModelResponse.toolCalls("",
                List.of(new ToolCallRequest(id, t, "{}"))));
          }
          return CompletableFuture.completedFuture(ModelResponse.text("hi"));
        }
        List<String> results = new ArrayList<>();
        List<Message> m = request.messages();
        for (int i = m.size() - 1; i >= 0 && m.get(i) instanceof ToolResultMessage r; i--) {
          results.add(0, r.content());
        }
        return CompletableFuture.completedFuture(ModelResponse.text("result: " + String.join("; ", results)));
      }
    };
  }

  /** The A2A client's {@code node_modules}: {@code $A2A_CLIENT_DIR}, else {@code ~/.cache/toolcall/a2a-client}. */
  public static Path clientModules() {
    String dir = System.getenv(A2A_CLIENT_DIR);
    Path base = dir != null && !dir.isBlank() ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".cache", "toolcall", "a2a-client");
    Path modules = base.resolve("node_modules");
    if (!Files.isRegularFile(modules.resolve("@a2a-js/sdk/package.json"))) {
      throw new IllegalStateException("the A2A client (@a2a-js/sdk) is not installed in " + modules + ": set "
          + A2A_CLIENT_DIR + " to the folder whose node_modules holds it, or run `bash .ci/ensure-test-programs.sh`"
          + " (it runs .ci/ensure-a2a-client.sh)");
    }
    return modules;
  }

  /**
   * Runs src/test/node/a2a-client.cjs with {@code env}; returns its output after checking that it exited 0 and ended
   * with "{@code checks} passed, 0 failed".
   */
  public static String runClient(Map<String, String> env, int checks) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(TestPrograms.node().toString(), "src/test/node/a2a-client.cjs")
        .redirectErrorStream(true);
    pb.environment().putAll(env);
    pb.environment().put("NODE_PATH", clientModules().toString());
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("node finished").isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(text).as("the client's output").contains(checks + " passed, 0 failed");
    assertThat(p.exitValue()).as("node exit code; output:%n%s", text).isZero();
    return text;
  }
}
