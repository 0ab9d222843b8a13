package dev.toolcall.demo;

import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ModelDelta;
import dev.toolcall.conversation.ModelRequest;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.StreamingModelClient;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A model that plays a script: it reads the conversation it is sent (how many answers it gave so far, and the tool
 * results) and streams its next response, text word by word and each tool call's arguments in fragments, at the
 * demo's pace. What it says depends on what happened: a denial's reason, an edited command and the sub-agent's
 * findings reach the final answer.
 *
 * <h2>Why the calls are batched as they are</h2>
 * The scheduler's default order, {@link dev.toolcall.execution.ExecutionOrder#PARALLEL_READS}, runs read-only calls of
 * a response in parallel but makes a call that is not read-only wait for every call before it, and every call after
 * it wait for it, approval time included. So the script asks for the read-only calls together (they run in
 * parallel), and for each call that needs a person (the shell command, the deploy) in a model round trip of its
 * own: nothing waits behind a prompt or behind a deadline that is meant to pass. The hallucinated tool name comes
 * last in its response; it fails in validation, before any ordering.
 *
 * <ol>
 *   <li>read_file, list_dir and fetch_url (flaky: retried) in parallel, and reed_file (no such tool)</li>
 *   <li>shell {@code mvn test}: needs approval, which the person gives at the prompt (or edits, or denies)</li>
 *   <li>deploy: needs approval with a short deadline; the demo leaves it unanswered, so it is auto-denied</li>
 *   <li>sub_agent: runs its own calls, nested under it</li>
 *   <li>the final answer, from the results</li>
 * </ol>
 *
 * <p>Thread-safe: each request is played on a daemon thread of its own pool.
 */
final class ScriptedModel implements StreamingModelClient {

  private final Pace pace;
  private final Function<ModelRequest, ModelResponse> script;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "demo-model");
    t.setDaemon(true);
    return t;
  });

  private ScriptedModel(Pace pace, Function<ModelRequest, ModelResponse> script) {
    this.pace = pace;
    this.script = script;
  }

  /** The main agent's model. */
  static ScriptedModel agent(Pace pace) {
    return new ScriptedModel(pace, ScriptedModel::agentTurn);
  }

  /** The sub-agent's model: two nested reads, then its findings. */
  static ScriptedModel subAgent(Pace pace) {
    return new ScriptedModel(pace, r -> subAgentTurn(r.messages()));
  }

  @Override
  public CompletionStage<Void> stream(ModelRequest request, Consumer<? super ModelDelta> sink) {
    ModelResponse response = script.apply(request);
    return CompletableFuture.runAsync(() -> play(response, sink), threads);
  }

  /** Stops the model's threads (a response still streaming is dropped). */
  void close() {
    threads.shutdownNow();
  }

  private void play(ModelResponse r, Consumer<? super ModelDelta> sink) {
    try {
      pace.sleep(500); // time to first token
      String[] words = r.text().split("(?<= )");
      for (String w : words) {
        if (!w.isEmpty()) {
          sink.accept(new ModelDelta.Text(w));
          pace.sleep(35);
        }
      }
      for (ToolCallRequest c : r.toolCalls()) {
        pace.sleep(120);
        sink.accept(new ModelDelta.ToolCallStarted(c.id(), c.name()));
        String args = c.rawArguments();
        for (int i = 0; i < args.length(); i += 6) {
          pace.sleep(25);
          sink.accept(new ModelDelta.ToolCallArguments(c.id(), args.substring(i, Math.min(args.length(), i + 6))));
        }
        sink.accept(new ModelDelta.ToolCallCompleted(c.id()));
      }
      sink.accept(new ModelDelta.ResponseCompleted(r.stopReason()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.util.concurrent.CancellationException("the demo ended");
    }
  }

  // --- the scripts --------------------------------------------------------------------------------------------------

  private static ModelResponse agentTurn(ModelRequest request) {
    List<Message> messages = request.messages();
    boolean mcp = request.tools().stream().anyMatch(t -> t.name().equals("repo_git_log"));
    long answers = messages.stream().filter(m -> m instanceof AssistantMessage).count();
    switch ((int) answers) {
      case 0: {
        List<ToolCallRequest> calls = new java.util.ArrayList<>(List.of(
            call("call_1", "read_file", "{\"path\":\"README.md\"}"),
            call("call_2", "list_dir", "{\"path\":\".\"}"),
            call("call_3", "fetch_url", "{\"url\":\"https://ci.example.com/shop-service\"}")));
        if (mcp) { // --mcp: the repository's MCP server offers these (read-only: they run beside the others)
          calls.add(call("call_m1", "repo_git_log", "{}"));
          calls.add(call("call_m2", "repo_ci_chart", "{}"));
        }
        calls.add(call("call_4", "reed_file", "{\"path\":\"pom.xml\"}"));
        return ModelResponse.toolCalls("I'll read the README, list the project and check the CI status, all at "
            + "once.", calls);
      }
      case 1:
        return ModelResponse.toolCalls("CI failed in OrderServiceTest.createsOrder, which passed the build before."
            + " (And reed_file was my typo: it is read_file.) Let me run the tests here; that needs your approval.",
            List.of(call("call_5", "shell", "{\"command\":\"mvn test\"}")));
      case 2: {
        ToolResultMessage shell = result(messages, "call_5").orElseThrow();
        String text = shell.isError()
            ? "I did not run the tests: " + why(shell) + " I'll ask to deploy the last green build instead; that "
                + "needs approval too."
            : "The tests pass here (" + command(shell) + "), so the failure is flaky. Deploying needs your approval "
                + "too.";
        return ModelResponse.toolCalls(text, List.of(call("call_6", "deploy", "{\"env\":\"production\"}")));
      }
      case 3: {
        ToolResultMessage deploy = result(messages, "call_6").orElseThrow();
        String text = (deploy.isError() ? "Not deployed: " + why(deploy) : "Deployed.")
            + " I'll have a sub-agent look into the flaky test.";
        return ModelResponse.toolCalls(text, List.of(call("call_7", "sub_agent",
            "{\"task\":\"Find out why OrderServiceTest.createsOrder is flaky\"}")));
      }
      default:
        return ModelResponse.text(finalAnswer(messages));
    }
  }

  private static String finalAnswer(List<Message> messages) {
    StringBuilder b = new StringBuilder("Here is where things stand:\n");
    result(messages, "call_3").ifPresent(r -> b.append("- CI: ").append(r.isError() ? "I could not reach it."
        : "build #142 failed in OrderServiceTest.createsOrder (the status page needed a retry)."));
    result(messages, "call_5").ifPresent(r -> b.append("\n- Tests: ").append(r.isError()
        ? "not run: " + why(r) : "they pass here (" + command(r) + ")."));
    result(messages, "call_6").ifPresent(r -> b.append("\n- Deploy: ").append(r.isError()
        ? "not done: " + why(r) : "done."));
    result(messages, "call_7").ifPresent(r -> b.append("\n- Cause: ").append(r.isError()
        ? "unknown; the sub-agent failed." : r.content()));
    b.append("\nNext: make the test use a fixed Clock, then ask me to deploy again.");
    return b.toString();
  }

  private static ModelResponse subAgentTurn(List<Message> messages) {
    long answers = messages.stream().filter(m -> m instanceof AssistantMessage).count();
    if (answers == 0) {
      return ModelResponse.toolCalls("Reading the test and its folder. ", List.of(
          call("call_7.1", "read_file", "{\"path\":\"src/test/java/shop/OrderServiceTest.java\"}"),
          call("call_7.2", "list_dir", "{\"path\":\"src/test/java/shop\"}")));
    }
    return ModelResponse.text("createsOrder sleeps 100 ms, then compares with the wall clock: "
        + "a slow CI machine makes it fail.");
  }

  private static ToolCallRequest call(String id, String name, String arguments) {
    return new ToolCallRequest(id, name, arguments);
  }

  private static Optional<ToolResultMessage> result(List<Message> messages, String callId) {
    return messages.stream().filter(m -> m instanceof ToolResultMessage r && r.callId().equals(callId))
        .map(m -> (ToolResultMessage) m).findFirst();
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** Why a call did not succeed, from its result message, in words that fit after a colon. */
  private static String why(ToolResultMessage r) {
    String c = firstLine(r.content());
    if (c.startsWith("The user denied this tool call.")) {
      int i = c.indexOf("Reason: ");
      return i < 0 ? "you denied it." : "you denied it, saying \"" + c.substring(i + "Reason: ".length()) + "\".";
    }
    String notRun = "The tool call was not run: ";
    return c.startsWith(notRun) ? c.substring(notRun.length()) : c;
  }

  /** The command a shell result ran: its first line is {@code $ command}. */
  private static String command(ToolResultMessage r) {
    return "`" + firstLine(r.content()).replaceFirst("^\\$ ", "") + "`";
  }
}
