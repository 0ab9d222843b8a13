package dev.toolcall.testing;

import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelException;
import dev.toolcall.conversation.ModelRequest;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link ModelClient} for turn-loop tests: answers each request with the next step of its script (a response, a
 * failure, or a stage the test completes itself) and records every request. When the script is used up it answers
 * {@code "script exhausted"} as a final text. Thread-safe.
 */
public final class ScriptedModel implements ModelClient {

  private final ArrayDeque<Object> steps = new ArrayDeque<>(); // guarded by this
  private final List<ModelRequest> requests = new CopyOnWriteArrayList<>();

  /** Answers the next request with a final text. */
  public synchronized ScriptedModel thenText(String text) {
    steps.add(ModelResponse.text(text));
    return this;
  }

  /** Answers the next request with these tool calls (and no text). */
  public synchronized ScriptedModel thenCalls(ToolCallRequest... calls) {
    steps.add(ModelResponse.toolCalls("", Arrays.asList(calls)));
    return this;
  }

  /** Answers the next request with {@code response}. */
  public synchronized ScriptedModel then(ModelResponse response) {
    steps.add(response);
    return this;
  }

  /** Fails the next request with a {@link ModelException} of {@code kind}. */
  public synchronized ScriptedModel thenFail(ModelException.Kind kind) {
    steps.add(ModelException.of(kind, "scripted " + kind));
    return this;
  }

  /** Answers the next request with a stage the test completes; returned here. */
  public synchronized CompletableFuture<ModelResponse> thenHold() {
    CompletableFuture<ModelResponse> f = new CompletableFuture<>();
    steps.add(f);
    return f;
  }

  /** A tool call request. */
  public static ToolCallRequest call(String id, String tool, String rawArguments) {
    return new ToolCallRequest(id, tool, rawArguments);
  }

  /** Every request received, in order. */
  public List<ModelRequest> requests() {
    return List.copyOf(requests);
  }

  @Override
  @SuppressWarnings("unchecked")
  public CompletionStage<ModelResponse> complete(ModelRequest request) {
    requests.add(request);
    Object step;
    synchronized (this) {
      step = steps.poll();
    }
    if (step == null) {
      return CompletableFuture.completedFuture(ModelResponse.text("script exhausted"));
    }
    if (step instanceof ModelResponse r) {
      return CompletableFuture.completedFuture(r);
    }
    if (step instanceof ModelException e) {
      return CompletableFuture.failedFuture(e);
    }
    return (CompletableFuture<ModelResponse>) step;
  }
}
