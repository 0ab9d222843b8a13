package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.conversation.ModelDelta.ResponseCompleted;
import dev.toolcall.conversation.ModelDelta.Text;
import dev.toolcall.conversation.ModelDelta.ToolCallArguments;
import dev.toolcall.conversation.ModelDelta.ToolCallCompleted;
import dev.toolcall.conversation.ModelDelta.ToolCallStarted;
import dev.toolcall.tool.ToolDefinition;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class ModelSeamTest {

  static final ModelRequest REQUEST = new ModelRequest(List.of(new UserMessage("hi")), List.of());

  static ModelException failureOf(CompletionStage<?> stage) {
    try {
      stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ModelException.class);
      return (ModelException) e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("stage completed normally");
  }

  static <T> T valueOf(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void assemblerKeepsAnnouncementOrderAndAccumulatesInterleavedFragments() throws Exception {
    ModelResponseAssembler a = new ModelResponseAssembler();
    List<ModelDelta> forwarded = new ArrayList<>();
    for (ModelDelta d : List.of(new Text("Let me "), new ToolCallStarted("c1", "read_file"),
        new ToolCallArguments("c1", "{\"pa"), new ToolCallStarted("c2", "grep"), new Text("look."),
        new ToolCallArguments("c2", "{\"q\":1}"), new ToolCallArguments("c1", "th\":\"a\"}"),
        new ToolCallCompleted("c2"), new ResponseCompleted(StopReason.TOOL_CALLS))) {
      forwarded.addAll(a.accept(d));
      if (d instanceof ToolCallArguments x && x.callId().equals("c1")) {
        assertThat(a.rawArguments("c1")).isPresent();
      }
    }
    assertThat(a.isComplete()).isTrue();
    assertThat(a.response()).isEqualTo(new ModelResponse("Let me look.", List.of(
        new ToolCallRequest("c1", "read_file", "{\"path\":\"a\"}"), new ToolCallRequest("c2", "grep", "{\"q\":1}")),
        StopReason.TOOL_CALLS));
    // c1 was never completed by the source: its completion is forwarded just before the response's
    assertThat(forwarded.subList(forwarded.size() - 2, forwarded.size()))
        .containsExactly(new ToolCallCompleted("c1"), new ResponseCompleted(StopReason.TOOL_CALLS));
    assertThat(forwarded.stream().filter(d -> d instanceof ToolCallCompleted)).hasSize(2);
  }

  @Test
  void assemblerRefusesProtocolViolationsAsMalformedAndChangesNothing() throws Exception {
    ModelResponseAssembler a = new ModelResponseAssembler();
    a.accept(new ToolCallStarted("c1", "t"));
    assertMalformed(a, new ToolCallStarted("c1", "t"), "announced twice");
    assertMalformed(a, new ToolCallArguments("c9", "x"), "not open");
    assertMalformed(a, new ToolCallCompleted("c9"), "not open");
    a.accept(new ToolCallCompleted("c1"));
    assertMalformed(a, new ToolCallArguments("c1", "late"), "not open");
    assertMalformed(a, new ToolCallCompleted("c1"), "not open");
    assertThatThrownBy(a::response).isInstanceOf(ModelException.class).hasMessageContaining("before the response");
    // the model repeated an id after the first call completed: a second call, in order
    a.accept(new ToolCallStarted("c1", "u"));
    a.accept(new ToolCallArguments("c1", "{}"));
    a.accept(new ResponseCompleted(StopReason.TOOL_CALLS));
    assertMalformed(a, new Text("after"), "after the response completed");
    assertThat(a.response().toolCalls()).containsExactly(new ToolCallRequest("c1", "t", ""),
        new ToolCallRequest("c1", "u", "{}"));
    assertThat(a.rawArguments("c1")).contains("{}");
    assertThat(a.rawArguments("nope")).isEmpty();
  }

  static void assertMalformed(ModelResponseAssembler a, ModelDelta d, String what) {
    assertThatThrownBy(() -> a.accept(d)).isInstanceOf(ModelException.class).hasMessageContaining(what)
        .satisfies(e -> assertThat(((ModelException) e).kind()).isEqualTo(ModelException.Kind.MALFORMED_RESPONSE));
  }

  @Test
  void streamingClientForwardsNormalisedDeltasAndCompletesWithTheResponse() throws Exception {
    ModelClient client = ModelClient.streaming((request, sink) -> {
      sink.accept(new Text("ok "));
      sink.accept(new ToolCallStarted("c1", "shell"));
      sink.accept(new ToolCallArguments("c1", "ls"));
      sink.accept(new ResponseCompleted(StopReason.TOOL_CALLS));
      return CompletableFuture.completedFuture(null);
    });
    List<ModelDelta> seen = new ArrayList<>();
    ModelResponse r = valueOf(client.stream(REQUEST, seen::add));
    assertThat(r).isEqualTo(ModelResponse.toolCalls("ok ", List.of(new ToolCallRequest("c1", "shell", "ls"))));
    assertThat(seen).containsExactly(new Text("ok "), new ToolCallStarted("c1", "shell"),
        new ToolCallArguments("c1", "ls"), new ToolCallCompleted("c1"), new ResponseCompleted(StopReason.TOOL_CALLS));
    assertThat(valueOf(client.complete(REQUEST))).isEqualTo(r);
  }

  @Test
  void streamingClientFailuresAreModelExceptions() {
    ModelClient noEnd = ModelClient.streaming((request, sink) -> {
      sink.accept(new Text("cut"));
      return CompletableFuture.completedFuture(null);
    });
    assertThat(failureOf(noEnd.complete(REQUEST)).kind()).isEqualTo(ModelException.Kind.MALFORMED_RESPONSE);

    List<ModelDelta> seen = new ArrayList<>();
    ModelClient broken = ModelClient.streaming((request, sink) -> {
      sink.accept(new ToolCallArguments("ghost", "x"));
      sink.accept(new Text("ignored after the failure"));
      sink.accept(new ResponseCompleted(StopReason.END_TURN));
      return CompletableFuture.completedFuture(null);
    });
    assertThat(failureOf(broken.stream(REQUEST, seen::add)).getMessage()).contains("ghost");
    assertThat(seen).isEmpty();

    ModelClient network = ModelClient.streaming((request, sink) ->
        CompletableFuture.failedFuture(new IOException("connection reset")));
    ModelException e = failureOf(network.complete(REQUEST));
    assertThat(e.kind()).isEqualTo(ModelException.Kind.NETWORK);
    assertThat(e.isTransient()).isTrue();

    ModelClient throwing = ModelClient.streaming((request, sink) -> {
      throw new IllegalStateException("bug");
    });
    assertThat(failureOf(throwing.complete(REQUEST)).getMessage()).contains("bug");

    ModelClient ok = ModelClient.streaming((request, sink) -> {
      sink.accept(new Text("a"));
      sink.accept(new Text("b"));
      sink.accept(new ResponseCompleted(StopReason.END_TURN));
      return CompletableFuture.completedFuture(null);
    });
    List<ModelDelta> got = new ArrayList<>();
    ModelException listenerBug = failureOf(ok.stream(REQUEST, d -> {
      got.add(d);
      throw new IllegalArgumentException("listener bug");
    }));
    assertThat(listenerBug.kind()).isEqualTo(ModelException.Kind.OTHER);
    assertThat(listenerBug.getCause()).hasMessage("listener bug");
    assertThat(got).as("no delta after the listener failed").hasSize(1);
  }

  @Test
  void defaultStreamReplaysTheCompleteResponse() throws Exception {
    ModelResponse response = ModelResponse.toolCalls("t", List.of(new ToolCallRequest("a", "x", "{}"),
        new ToolCallRequest("b", "y", "")));
    ModelClient client = request -> CompletableFuture.completedFuture(response);
    List<ModelDelta> seen = new ArrayList<>();
    assertThat(valueOf(client.stream(REQUEST, seen::add))).isEqualTo(response);
    assertThat(seen).containsExactly(new Text("t"), new ToolCallStarted("a", "x"), new ToolCallArguments("a", "{}"),
        new ToolCallCompleted("a"), new ToolCallStarted("b", "y"), new ToolCallCompleted("b"),
        new ResponseCompleted(StopReason.TOOL_CALLS));

    ModelClient nullResponse = request -> CompletableFuture.completedFuture(null);
    assertThat(failureOf(nullResponse.stream(REQUEST, d -> {})).kind())
        .isEqualTo(ModelException.Kind.MALFORMED_RESPONSE);
    ModelClient failing = request -> CompletableFuture.failedFuture(
        ModelException.of(ModelException.Kind.QUOTA_EXHAUSTED, "quota"));
    ModelException quota = failureOf(failing.stream(REQUEST, d -> {}));
    assertThat(quota.mustNotContinue()).isTrue();
    assertThat(quota.isTransient()).isFalse();
  }

  @Test
  void blockingClientRunsInlineOrOnItsExecutor() throws Exception {
    ModelClient inline = ModelClient.blocking(request -> ModelResponse.text("echo " + request.messages().size()));
    CompletionStage<ModelResponse> stage = inline.complete(REQUEST);
    assertThat(stage.toCompletableFuture().isDone()).isTrue();
    assertThat(valueOf(stage).text()).isEqualTo("echo 1");

    assertThat(failureOf(ModelClient.blocking(request -> {
      throw ModelException.rateLimited("slow down", Duration.ofSeconds(3));
    }).complete(REQUEST)).retryAfter()).contains(Duration.ofSeconds(3));
    assertThat(failureOf(ModelClient.blocking(request -> null).complete(REQUEST)).kind())
        .isEqualTo(ModelException.Kind.MALFORMED_RESPONSE);
    assertThat(failureOf(ModelClient.blocking(request -> {
      throw new InterruptedException();
    }).complete(REQUEST)).getMessage()).contains("interrupted");
    assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();

    List<Runnable> queued = new ArrayList<>();
    ModelClient onExecutor = ModelClient.blocking(request -> ModelResponse.text("later"), queued::add);
    CompletionStage<ModelResponse> pending = onExecutor.complete(REQUEST);
    assertThat(pending.toCompletableFuture().isDone()).isFalse();
    queued.forEach(Runnable::run);
    assertThat(valueOf(pending).text()).isEqualTo("later");

    Executor rejecting = r -> {
      throw new RejectedExecutionException("full");
    };
    assertThat(failureOf(ModelClient.blocking(request -> ModelResponse.text("x"), rejecting).complete(REQUEST))
        .getMessage()).contains("rejected");
  }

  @Test
  void modelExceptionClassifiesFailures() {
    ModelException own = ModelException.of(ModelException.Kind.MODEL_SWITCHED, "switched to the fallback");
    assertThat(ModelException.from(new CompletionException(own))).isSameAs(own);
    assertThat(ModelException.from(new ExecutionException(new IOException("reset"))).kind())
        .isEqualTo(ModelException.Kind.NETWORK);
    assertThat(ModelException.from(new TimeoutException()).kind()).isEqualTo(ModelException.Kind.TIMEOUT);
    ModelException other = ModelException.from(new IllegalStateException("boom"));
    assertThat(other.kind()).isEqualTo(ModelException.Kind.OTHER);
    assertThat(other.getMessage()).contains("IllegalStateException: boom");
    for (ModelException.Kind k : ModelException.Kind.values()) {
      assertThat(k.isTransient() && k.mustNotContinue()).as("%s", k).isFalse();
    }
    assertThat(ModelException.Kind.RATE_LIMITED.isTransient()).isTrue();
    assertThat(ModelException.Kind.NETWORK.isTransient()).isTrue();
    assertThat(ModelException.Kind.QUOTA_EXHAUSTED.mustNotContinue()).isTrue();
    assertThat(ModelException.Kind.MODEL_SWITCHED.mustNotContinue()).isTrue();
    assertThat(ModelException.Kind.AUTHENTICATION.isTransient()).isFalse();
    assertThatThrownBy(() -> ModelException.rateLimited("x", Duration.ofSeconds(-1)))
        .hasMessageContaining("retryAfter");
  }

  @Test
  void messagesAndRequestsAreImmutableAndChecked() {
    List<ToolCallRequest> calls = new ArrayList<>(List.of(new ToolCallRequest("c", "t", "")));
    AssistantMessage m = new AssistantMessage("", calls);
    calls.clear();
    assertThat(m.toolCalls()).hasSize(1);
    assertThat(m.hasToolCalls()).isTrue();
    assertThatThrownBy(() -> m.toolCalls().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThat(ModelResponse.text("done").toMessage()).isEqualTo(new AssistantMessage("done", List.of()));
    assertThatThrownBy(() -> new ToolCallRequest(null, "t", "")).hasMessageContaining("id");
    assertThatThrownBy(() -> new ToolCallRequest("c", null, "")).hasMessageContaining("name");
    assertThat(new ToolCallRequest(" ", "", "").id()).as("blank is the model's mistake, answered by the turn")
        .isEqualTo(" ");
    assertThatThrownBy(() -> new ToolResultMessage("c", "t", null, false)).hasMessageContaining("content");
    assertThatThrownBy(() -> new ModelRequest(List.of(), List.of())).hasMessageContaining("messages");
    ToolDefinition t = ToolDefinition.builder("t").build();
    assertThatThrownBy(() -> new ModelRequest(List.of(new UserMessage("x")), List.of(t, t)))
        .hasMessageContaining("'t' appears twice");
    Message last = REQUEST.lastMessage();
    assertThat(last).isEqualTo(new UserMessage("hi"));
    assertThat(ToolCallOrigin.values()).containsExactly(ToolCallOrigin.MODEL, ToolCallOrigin.USER_COMMAND);
  }
}
