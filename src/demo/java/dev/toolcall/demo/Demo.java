package dev.toolcall.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.StateTransition;
import dev.toolcall.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.presentation.LiveDisplay;
import dev.toolcall.presentation.Presenter;
import dev.toolcall.presentation.TerminalRenderer;
import dev.toolcall.presentation.Theme;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolInvocation;
import dev.toolcall.tool.ToolResult;
import dev.toolcall.tool.TransientToolException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A scripted agent turn in the terminal: parallel read-only calls with live output, a shell call that asks for
 * approval, a deploy call whose approval times out, a flaky tool that retries, a hallucinated tool name and a nested
 * sub-agent. No network and no real shell: every tool simulates its output.
 *
 * <p>Run: {@code mvn -q -P demo compile exec:java} (interactive) or add {@code -Dexec.args="--auto"}.
 */
public final class Demo {

  private static final ObjectMapper JSON = new ObjectMapper();

  private Demo() {
  }

  public static void main(String[] args) throws Exception {
    run(args, System.in, System.out, TerminalRenderer.isTerminal());
    System.exit(0);
  }

  /** Runs the demo; returns the results of the first model response, in request order. */
  public static List<CallResult> run(String[] args, InputStream in, PrintStream out, boolean terminal)
      throws Exception {
    boolean auto = false;
    Theme theme = Theme.emoji();
    Duration deployTimeout = Duration.ofSeconds(4);
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--auto" -> auto = true;
        case "--theme" -> theme = Theme.named(args[++i]);
        case "--deploy-timeout-ms" -> deployTimeout = Duration.ofMillis(Long.parseLong(args[++i]));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + " (expected --auto, --theme compact|emoji)");
      }
    }
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    AtomicReference<ToolCallRuntime> rt = new AtomicReference<>();
    AtomicInteger flaky = new AtomicInteger();

    Tool readFile = Tool.of(ToolDefinition.builder("read_file").description("Reads a file").readOnly(true)
        .requiresApproval(false).build(), inv -> lines(inv, "# toolcall-lifecycle", "An embeddable Java library",
        "that drives LLM tool calls.", "(12 lines)"));
    Tool listDir = Tool.of(ToolDefinition.builder("list_dir").description("Lists a directory").readOnly(true)
        .requiresApproval(false).build(), inv -> lines(inv, "pom.xml", "README.md", "src/", "target/"));
    Tool shell = Tool.of(ToolDefinition.builder("shell").description("Runs a shell command").build(),
        inv -> lines(inv, "$ " + inv.arguments(), "Tests run: 42, Failures: 0", "BUILD SUCCESS"));
    Tool deploy = Tool.of(ToolDefinition.builder("deploy").description("Deploys to production")
        .permissionTimeout(deployTimeout).build(), inv -> ToolResult.of("deployed"));
    Tool fetchUrl = Tool.of(ToolDefinition.builder("fetch_url").description("Fetches a URL").readOnly(true)
        .requiresApproval(false).idempotent(true)
        .retryPolicy(RetryPolicy.exponential(4, Duration.ofMillis(150))).build(), inv -> {
          if (flaky.incrementAndGet() <= 2) {
            inv.output("connection reset (attempt " + inv.attempt() + ")");
            throw new TransientToolException("connection reset by peer");
          }
          return lines(inv, "HTTP/1.1 200 OK", "{\"status\":\"green\"}");
        });
    Tool subAgent = Tool.of(ToolDefinition.builder("sub_agent").description("Runs a sub-agent").readOnly(true)
        .requiresApproval(false).build(), inv -> {
          inv.output("sub-agent: planning two calls");
          Batch child = rt.get().schedule(inv.sessionId(), List.of(
              CallRequest.of(inv.callId() + ".1", "read_file", "{\"path\":\"pom.xml\"}").nestedIn(inv.callId()),
              CallRequest.of(inv.callId() + ".2", "list_dir", "{\"path\":\"src\"}").nestedIn(inv.callId())));
          inv.onCancel(() -> child.cancelAll("parent cancelled"));
          List<CallResult> rs = child.whenDone().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
          StringBuilder sb = new StringBuilder("sub-agent found:");
          for (CallResult r : rs) {
            sb.append(' ').append(r.callId()).append('=').append(r.snapshot().state());
          }
          return ToolResult.of(sb.toString());
        });

    TerminalRenderer renderer = TerminalRenderer.builder().presenter(Presenter.builder().theme(theme).build())
        .ansi(terminal && TerminalRenderer.detectAnsi()).build();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
        .tools(readFile, listDir, shell, deploy, fetchUrl, subAgent)
        .permissions(p -> p.defaultTimeout(Duration.ofMinutes(2))).build();
        LiveDisplay live = renderer.live(out)) {
      rt.set(runtime);
      java.util.concurrent.CountDownLatch printed = new java.util.concurrent.CountDownLatch(1);
      live.attach(runtime.events());
      out.println("model: I'll look around, run the tests, deploy, and check the status page.");
      Batch batch = runtime.schedule("demo-session", List.of(
          CallRequest.of("call_1", "read_file", "{\"path\":\"README.md\"}"),
          CallRequest.of("call_2", "list_dir", "{\"path\":\".\"}"),
          CallRequest.of("call_3", "shell", "{\"command\":\"mvn test\"}"),
          CallRequest.of("call_4", "deploy", "{\"env\":\"production\"}"),
          CallRequest.of("call_5", "fetch_url", "{\"url\":\"https://status.example.com\"}"),
          CallRequest.of("call_6", "reed_file", "{\"path\":\"README.md\"}"),
          CallRequest.of("call_7", "sub_agent", "{\"task\":\"survey the project\"}")));
      Thread hook = new Thread(() -> {
        int n = batch.cancelAll("user pressed Ctrl-C");
        out.println();
        out.println("Ctrl-C: cancelled " + n + " call(s); waiting for every call to end...");
        try {
          if (!printed.await(2, java.util.concurrent.TimeUnit.SECONDS)) {
            // the main thread may be blocked reading a prompt answer: report from here
            for (CallResult r : batch.whenDone().toCompletableFuture()
                .get(3, java.util.concurrent.TimeUnit.SECONDS)) {
              out.println("  " + r.callId() + " " + r.toolName() + " -> " + r.snapshot().state() + ": "
                  + oneLine(r.messageForModel()));
            }
            out.flush();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (Exception e) {
          out.println("  (not every call ended within 3 s: " + e + ")");
        }
      }, "demo-ctrl-c");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        answerShell(runtime, batch, auto, reader, live);
        List<CallResult> results = batch.whenDone().toCompletableFuture()
            .get(60, java.util.concurrent.TimeUnit.SECONDS);
        live.close();
        out.println();
        out.println("model (second response), having been told:");
        for (CallResult r : results) {
          out.println("  " + r.callId() + " " + r.toolName() + " [" + r.snapshot().state() + "]: "
              + oneLine(r.messageForModel()));
        }
        long ok = results.stream().filter(r -> !r.isError()).count();
        out.println("model: " + ok + " of " + results.size() + " calls gave me what I needed; "
            + (results.size() - ok) + " did not (see above), so I will not retry those without asking you.");
        out.println();
        out.println("Timeline:");
        List<ToolCallSnapshot> all = new ArrayList<>(live.snapshots());
        for (ToolCallSnapshot s : all) {
          StringBuilder sb = new StringBuilder("  " + s.callId() + " " + s.toolName() + ": ");
          for (StateTransition t : s.history()) {
            sb.append(t.from()).append(' ').append(t.timeInFrom().toMillis()).append("ms -> ");
          }
          sb.append(s.state());
          out.println(sb);
        }
        out.flush();
        printed.countDown();
        return results;
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running: Ctrl-C
        }
      }
    }
  }

  private static void answerShell(ToolCallRuntime runtime, Batch batch, boolean auto, BufferedReader reader,
      LiveDisplay live) throws IOException, InterruptedException {
    java.util.concurrent.CompletableFuture<?> done = batch.whenDone().toCompletableFuture();
    while (!done.isDone()) {
      Optional<PermissionRequest> next = runtime.permissions().awaitNext(Duration.ofMillis(200));
      if (next.isEmpty()) {
        continue;
      }
      PermissionRequest ask = next.get();
      if (!ask.toolName().equals("shell")) {
        continue; // deploy: left unanswered, times out and is auto-denied
      }
      Decision d;
      if (auto) {
        live.printAbove("[auto] approving " + ask.toolName() + " " + ask.arguments() + " once");
        d = Decision.approveOnce(ask);
      } else {
        live.printAbove("Allow shell " + ask.arguments() + "? [o]nce [s]ession [a]lways [e]dit [d]eny: ");
        String line = reader.readLine();
        String key = line == null ? "d" : line.strip().toLowerCase();
        switch (key.isEmpty() ? "d" : key.substring(0, 1)) {
          case "o" -> d = Decision.approveOnce(ask);
          case "s" -> d = Decision.approveForSession(ask);
          case "a" -> d = Decision.approveAlways(ask);
          case "e" -> {
            live.printAbove("new command: ");
            String cmd = reader.readLine();
            if (cmd == null || cmd.isBlank()) {
              d = Decision.deny(ask, "no command given");
            } else {
              ObjectNode node = JSON.createObjectNode().put("command", cmd.strip());
              d = Decision.approveModified(ask, ToolArguments.ofJson(node));
            }
          }
          default -> {
            String reason = null;
            if (line != null && key.startsWith("d")) {
              live.printAbove("reason for the model: ");
              reason = reader.readLine();
            }
            d = Decision.deny(ask, reason == null || reason.isBlank() ? "denied by the user" : reason.strip());
          }
        }
      }
      runtime.permissions().decide(ask.requestId(), d);
    }
  }

  private static ToolResult lines(ToolInvocation inv, String... lines) throws InterruptedException {
    StringBuilder sb = new StringBuilder();
    for (String l : lines) {
      if (inv.isCancelled()) {
        break;
      }
      inv.output(l + "\n");
      sb.append(l).append('\n');
      Thread.sleep(250);
    }
    return ToolResult.of(sb.toString().strip());
  }

  private static String oneLine(String s) {
    String t = s.replace('\n', ' ');
    return t.length() > 100 ? t.substring(0, 97) + "..." : t;
  }
}
