package dev.toolcall.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.TransientToolException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Issue 27 items 3, 4 and 10 through LangChain4j's real types: a {@code @Tool} that throws ends FAILED, a retriable
 * exception is retried, text that only the complete response carries is the answer, and calls whose provider sent no
 * id (Gemini) or the same id in every response ({@code call_0}) run, each answered under the id (or position) the
 * provider expects.
 */
class LangChain4jFailuresTest {

  /** LangChain4j tools that fail, as a LangChain4j user writes them. */
  public static final class Flaky {
    final AtomicInteger attempts = new AtomicInteger();

    @dev.langchain4j.agent.tool.Tool("Fails")
    public String broken(@P("anything") String x) {
      throw new IllegalStateException("disk full");
    }

    @dev.langchain4j.agent.tool.Tool("Fails once with a transient error, then works")
    public String transientOnce(@P("anything") String x) throws TransientToolException {
      if (attempts.incrementAndGet() == 1) {
        throw new TransientToolException("try again");
      }
      return "fine " + x;
    }

    @dev.langchain4j.agent.tool.Tool("Fails once with a configured retriable type, then works")
    public String ioOnce(@P("anything") String x) {
      if (attempts.incrementAndGet() == 1) {
        throw new UncheckedIOException(new java.io.IOException("connection reset"));
      }
      return "io fine " + x;
    }

    @dev.langchain4j.agent.tool.Tool("Echoes")
    public String echo(@P("the text") String text) {
      return "echo " + text;
    }
  }

  private static CallResult run(ToolCallRuntime rt, String tool) throws Exception {
    return rt.schedule("s", List.of(CallRequest.of("c1", tool, "{\"x\":\"a\"}"))).whenDone().toCompletableFuture()
        .get(10, TimeUnit.SECONDS).get(0);
  }

  private static ToolCallRuntime runtime(Flaky bean) {
    return ToolCallRuntime.builder().tools(LangChain4jTools.tools(bean, (name, b) -> b.requiresApproval(false)
        .retryPolicy(RetryPolicy.exponential(3, Duration.ofMillis(1))))).build();
  }

  @Test
  void aToolThatThrowsEndsFailedWithItsMessageForTheModel() throws Exception {
    try (ToolCallRuntime rt = runtime(new Flaky())) {
      CallResult r = run(rt, "broken");
      assertThat(r.snapshot().state()).isEqualTo(ToolCallState.FAILED);
      assertThat(r.isError()).isTrue();
      assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
        assertThat(f.kind()).isEqualTo(FailureKind.TOOL_ERROR);
        assertThat(f.message()).contains("disk full");
      });
      assertThat(r.snapshot().attempt()).isEqualTo(1); // not retriable: tried once
    }
  }

  @Test
  void aTransientToolExceptionIsRetriedPerTheToolsPolicy() throws Exception {
    Flaky bean = new Flaky();
    try (ToolCallRuntime rt = runtime(bean)) {
      CallResult r = run(rt, "transientOnce");
      assertThat(r.snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(r.messageForModel()).isEqualTo("fine a");
      assertThat(bean.attempts).hasValue(2);
    }
  }

  @Test
  void aConfiguredExceptionTypeIsRetriedAndOthersAreNot() throws Exception {
    Flaky bean = new Flaky();
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(LangChain4jTools.tools(bean,
        (name, b) -> b.requiresApproval(false).retryPolicy(RetryPolicy.exponential(3, Duration.ofMillis(1))),
        e -> e instanceof UncheckedIOException)).build()) {
      CallResult r = run(rt, "ioOnce");
      assertThat(r.snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(r.messageForModel()).isEqualTo("io fine a");
      assertThat(run(rt, "broken").snapshot().attempt()).isEqualTo(1);
    }
    Flaky plain = new Flaky(); // without the predicate an UncheckedIOException is a tool error, tried once
    try (ToolCallRuntime rt = runtime(plain)) {
      CallResult r = run(rt, "ioOnce");
      assertThat(r.snapshot().state()).isEqualTo(ToolCallState.FAILED);
      assertThat(r.messageForModel()).contains("connection reset");
      assertThat(plain.attempts).hasValue(1);
    }
  }

  /**
   * A streaming model scripted per request: {@code step} gets the request and the handler, on a thread of its own,
   * and what the handler throws is logged and dropped as LangChain4j's providers do
   * ({@code InternalStreamingChatResponseHandlerUtils.withLoggingExceptions}), so the handler never hears of it.
   */
  static StreamingChatModel streaming(java.util.function.BiConsumer<ChatRequest, StreamingChatResponseHandler> step) {
    return new StreamingChatModel() {
      @Override
      public void doChat(ChatRequest request, StreamingChatResponseHandler h) {
        new Thread(() -> dev.langchain4j.internal.InternalStreamingChatResponseHandlerUtils.withLoggingExceptions(
            () -> step.accept(request, h)), "provider").start();
      }
    };
  }

  private static TurnResult await(CompletionStage<TurnResult> s) throws Exception {
    return s.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void textOnlyInTheCompleteResponseIsTheAnswer() throws Exception {
    StreamingChatModel model = streaming((request, h) -> h.onCompleteResponse(ChatResponse.builder()
        .aiMessage(AiMessage.from("The whole answer.")).finishReason(FinishReason.STOP).build()));
    try (ToolCallRuntime rt = runtime(new Flaky())) {
      TurnResult r = await(Agent.builder(LangChain4jModels.client(model), rt).build().send("hi"));
      assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(r.text()).isEqualTo("The whole answer.");
    }
  }

  static ToolExecutionRequest call(String id, String text) {
    return ToolExecutionRequest.builder().id(id).name("echo").arguments("{\"text\":\"" + text + "\"}").build();
  }

  static ChatResponse calls(ToolExecutionRequest... calls) {
    return ChatResponse.builder().aiMessage(AiMessage.from(List.of(calls))).finishReason(FinishReason.TOOL_EXECUTION)
        .build();
  }

  /** How many tool results the request carries (its round trip, from 0). */
  static long results(ChatRequest r) {
    return r.messages().stream().filter(m -> m instanceof ToolExecutionResultMessage).count();
  }

  /**
   * Gemini through LangChain4j sends tool calls without ids, streamed as whole calls in the complete response: the
   * turn ends (it threw NullPointerException: callId in onCompleteResponse before), both calls run, and the results go
   * back with no id, in the calls' order, as LangChain4j's Gemini provider matches them by position.
   */
  @Test
  void streamedCallsWithoutIdsRunAndAreAnsweredByPosition() throws Exception {
    for (boolean completeToolCalls : List.of(false, true)) {
      List<ChatRequest> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
      StreamingChatModel model = streaming((request, h) -> {
        seen.add(request);
        if (results(request) == 0) {
          ToolExecutionRequest a = call(null, "one");
          ToolExecutionRequest b = call(null, "two");
          if (completeToolCalls) {
            h.onCompleteToolCall(new CompleteToolCall(0, a));
            h.onCompleteToolCall(new CompleteToolCall(1, b));
          }
          h.onCompleteResponse(calls(a, b));
        } else {
          h.onCompleteResponse(ChatResponse.builder().aiMessage(AiMessage.from("done")).build());
        }
      });
      try (ToolCallRuntime rt = runtime(new Flaky())) {
        TurnResult r = await(Agent.builder(LangChain4jModels.client(model), rt).build().send("echo twice"));
        assertThat(r.ending()).as("complete tool calls: %s", completeToolCalls).isEqualTo(TurnResult.Ending.ANSWERED);
        assertThat(r.calls()).extracting(c -> c.snapshot().state()).containsExactly(ToolCallState.COMPLETED,
            ToolCallState.COMPLETED);
        assertAnsweredWithoutIds(seen.get(1).messages());
      }
    }
  }

  @Test
  void blockingCallsWithoutIdsRunAndAreAnsweredByPosition() throws Exception {
    List<ChatRequest> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    dev.langchain4j.model.chat.ChatModel model = new dev.langchain4j.model.chat.ChatModel() {
      @Override
      public ChatResponse doChat(ChatRequest request) {
        seen.add(request);
        return results(request) == 0 ? calls(call(null, "one"), call(null, "two"))
            : ChatResponse.builder().aiMessage(AiMessage.from("done")).build();
      }
    };
    try (ToolCallRuntime rt = runtime(new Flaky())) {
      TurnResult r = await(Agent.builder(LangChain4jModels.client(model), rt).build().send("echo twice"));
      assertThat(r.text()).isEqualTo("done");
      assertThat(r.calls()).extracting(c -> c.snapshot().state()).containsExactly(ToolCallState.COMPLETED,
          ToolCallState.COMPLETED);
      assertAnsweredWithoutIds(seen.get(1).messages());
    }
  }

  private static void assertAnsweredWithoutIds(List<ChatMessage> sent) {
    AiMessage asked = (AiMessage) sent.get(sent.size() - 3);
    assertThat(asked.toolExecutionRequests()).extracting(ToolExecutionRequest::id).containsExactly(null, null);
    assertThat(sent.subList(sent.size() - 2, sent.size())).containsExactly(
        ToolExecutionResultMessage.builder().id(null).toolName("echo").text("echo one").isError(false).build(),
        ToolExecutionResultMessage.builder().id(null).toolName("echo").text("echo two").isError(false).build());
  }

  /** Gemini's messages, as a chat memory keeps them, convert both ways: no id stays no id (it threw before). */
  @Test
  void messagesWithoutIdsConvertBothWays() {
    AiMessage asked = AiMessage.from(List.of(call(null, "one")));
    ToolExecutionResultMessage answered = ToolExecutionResultMessage.builder().id(null).toolName("echo")
        .text("echo one").isError(false).build();
    assertThat(LangChain4jModels.toLangChain4j(LangChain4jModels.fromLangChain4j(asked))).isEqualTo(asked);
    assertThat(LangChain4jModels.toLangChain4j(LangChain4jModels.fromLangChain4j(answered))).isEqualTo(answered);
  }

  /**
   * A provider that numbers ids per response sends {@code call_0} every time: the second response's call runs too
   * (it was refused as a duplicate before), and each result goes back under {@code call_0}.
   */
  @Test
  void idsNumberedPerResponseRunEveryTime() throws Exception {
    for (boolean streamed : List.of(false, true)) {
      List<ChatRequest> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
      Function<ChatRequest, ChatResponse> script = request -> {
        seen.add(request);
        long n = results(request);
        return n < 2 ? calls(call("call_0", "round " + n)) : ChatResponse.builder().aiMessage(AiMessage.from("done"))
            .build();
      };
      dev.toolcall.conversation.ModelClient client = streamed
          ? LangChain4jModels.client(streaming((request, h) -> h.onCompleteResponse(script.apply(request))))
          : LangChain4jModels.client(new dev.langchain4j.model.chat.ChatModel() {
            @Override
            public ChatResponse doChat(ChatRequest request) {
              return script.apply(request);
            }
          });
      try (ToolCallRuntime rt = runtime(new Flaky())) {
        TurnResult r = await(Agent.builder(client, rt).build().send("echo"));
        assertThat(r.calls()).as("streamed: %s", streamed).extracting(CallResult::messageForModel)
            .containsExactly("echo round 0", "echo round 1");
        List<ChatMessage> last = seen.get(2).messages();
        assertThat(last).filteredOn(m -> m instanceof ToolExecutionResultMessage)
            .extracting(m -> ((ToolExecutionResultMessage) m).id()).containsExactly("call_0", "call_0");
        assertThat(last).filteredOn(m -> m instanceof AiMessage a && a.hasToolExecutionRequests())
            .extracting(m -> ((AiMessage) m).toolExecutionRequests().get(0).id()).containsExactly("call_0", "call_0");
      }
    }
  }
}
