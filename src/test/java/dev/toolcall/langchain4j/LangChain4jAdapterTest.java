package dev.toolcall.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelDelta;
import dev.toolcall.conversation.ModelOptions;
import dev.toolcall.conversation.TurnLimits;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.tool.RetryPolicy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The LangChain4j adapters through LangChain4j's real types, with models written here: text, tool calls, parallel
 * calls, streamed partial calls, provider errors, a denied call that becomes a tool message, a cancelled turn, and
 * the JSON schemas both ways.
 */
class LangChain4jAdapterTest {

  /** LangChain4j tools, as a LangChain4j user writes them. */
  public static final class Files {
    final List<String> written = new CopyOnWriteArrayList<>();
    final CountDownLatch hanging = new CountDownLatch(1);
    volatile boolean interrupted;

    @dev.langchain4j.agent.tool.Tool("Reads a file")
    public String readFile(@P("the path") String path) {
      return "contents of " + path;
    }

    @dev.langchain4j.agent.tool.Tool("Writes a file")
    public String writeFile(@P("the path") String path, @P("what to write") String content, boolean append) {
      written.add(path + (append ? " += " : " = ") + content);
      return "wrote " + path;
    }

    @dev.langchain4j.agent.tool.Tool("Waits for a long time")
    public String waitLong() {
      hanging.countDown();
      try {
        new CountDownLatch(1).await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
        Thread.currentThread().interrupt();
      }
      return "waited";
    }
  }

  /** A ChatModel that answers from a script and keeps every request. */
  static final class ScriptedChatModel implements ChatModel {
    final List<ChatRequest> requests = new CopyOnWriteArrayList<>();
    final ArrayDeque<Function<ChatRequest, ChatResponse>> script = new ArrayDeque<>();

    ScriptedChatModel then(Function<ChatRequest, ChatResponse> step) {
      script.add(step);
      return this;
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
      requests.add(request);
      Function<ChatRequest, ChatResponse> step;
      synchronized (script) {
        step = script.poll();
      }
      return step == null ? text("script exhausted") : step.apply(request);
    }
  }

  static ChatResponse text(String text) {
    return ChatResponse.builder().aiMessage(AiMessage.from(text)).tokenUsage(new TokenUsage(10, 3))
        .finishReason(FinishReason.STOP).build();
  }

  static ChatResponse calls(ToolExecutionRequest... calls) {
    return ChatResponse.builder().aiMessage(AiMessage.from(List.of(calls))).tokenUsage(new TokenUsage(20, 5))
        .finishReason(FinishReason.TOOL_EXECUTION).build();
  }

  static ToolExecutionRequest call(String id, String name, String args) {
    return ToolExecutionRequest.builder().id(id).name(name).arguments(args).build();
  }

  private final Files files = new Files();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder()
      .tools(LangChain4jTools.tools(files, (name, b) -> b.requiresApproval(name.equals("writeFile"))
          .readOnly(!name.equals("writeFile"))))
      .build();
  private final ExecutorService person = Executors.newSingleThreadExecutor();

  @AfterEach
  void close() {
    runtime.close();
    person.shutdownNow();
  }

  private static TurnResult await(java.util.concurrent.CompletionStage<TurnResult> s) throws Exception {
    return s.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aTextAnswerWithInstructionsOptionsAndUsage() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel().then(r -> text("Hello."));
    TurnResult r = await(Agent.builder(LangChain4jModels.client(model), runtime).instructions("Be brief.")
        .options(ModelOptions.builder().temperature(0.3).maxTokens(200).provider("top_p", 0.9).build()).build()
        .send("hi"));

    assertThat(r.text()).isEqualTo("Hello.");
    assertThat(r.usage()).isEqualTo(new dev.toolcall.conversation.TokenUsage(10, 3));
    ChatRequest sent = model.requests.get(0);
    assertThat(sent.messages()).hasSize(2);
    assertThat(sent.messages().get(0)).isEqualTo(SystemMessage.from("Be brief."));
    assertThat(sent.messages().get(1)).isEqualTo(dev.langchain4j.data.message.UserMessage.from("hi"));
    assertThat(sent.temperature()).isEqualTo(0.3);
    assertThat(sent.maxOutputTokens()).isEqualTo(200);
    assertThat(sent.topP()).isEqualTo(0.9);
    assertThat(sent.toolSpecifications()).extracting(ToolSpecification::name)
        .containsExactly("readFile", "waitLong", "writeFile");
  }

  @Test
  void parallelToolCallsRunUnderTheLifecycleAndTheirResultsGoBack() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel()
        .then(r -> calls(call("c1", "readFile", "{\"path\":\"a.txt\"}"), call("c2", "readFile",
            "{\"path\":\"b.txt\"}")))
        .then(r -> text("Both read."));
    TurnResult r = await(Agent.builder(LangChain4jModels.client(model), runtime).build().send("read both"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.calls()).extracting(c -> c.snapshot().state()).containsExactly(ToolCallState.COMPLETED,
        ToolCallState.COMPLETED);
    List<ChatMessage> second = model.requests.get(1).messages();
    assertThat(second.subList(second.size() - 2, second.size())).containsExactly(
        ToolExecutionResultMessage.builder().id("c1").toolName("readFile").text("contents of a.txt").isError(false)
            .build(),
        ToolExecutionResultMessage.builder().id("c2").toolName("readFile").text("contents of b.txt").isError(false)
            .build());
    assertThat(second.get(second.size() - 3)).isInstanceOf(AiMessage.class);
    assertThat(r.usage()).isEqualTo(new dev.toolcall.conversation.TokenUsage(30, 8));
  }

  @Test
  void aDeniedCallBecomesAToolMessageAndTheToolNeverRuns() throws Exception {
    runtime.permissions().onRequest(req -> runtime.permissions().decide(req.requestId(),
        Decision.deny(req, "not in this repository")), person);
    ScriptedChatModel model = new ScriptedChatModel()
        .then(r -> calls(call("c1", "writeFile", "{\"path\":\"x\",\"content\":\"y\",\"append\":false}")))
        .then(r -> text("Understood."));
    TurnResult r = await(Agent.builder(LangChain4jModels.client(model), runtime).build().send("write"));

    assertThat(files.written).isEmpty();
    ToolExecutionResultMessage denied = (ToolExecutionResultMessage) last(model.requests.get(1).messages());
    assertThat(denied.isError()).isTrue();
    assertThat(denied.text()).contains("not in this repository");
    assertThat(r.text()).isEqualTo("Understood.");
  }

  @Test
  void argumentsTheSchemaRefusesFailTheCallForTheModel() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel()
        .then(r -> calls(call("c1", "readFile", "{\"path\":42}")))
        .then(r -> text("ok"));
    await(Agent.builder(LangChain4jModels.client(model), runtime).build().send("read"));
    ToolExecutionResultMessage m = (ToolExecutionResultMessage) last(model.requests.get(1).messages());
    assertThat(m.isError()).isTrue();
    assertThat(m.text()).contains("path");
  }

  @Test
  void providerErrorsMapToKinds() throws Exception {
    ScriptedChatModel flaky = new ScriptedChatModel().then(r -> {
      throw new RateLimitException("429 slow down");
    }).then(r -> text("fine now"));
    TurnResult ok = await(Agent.builder(LangChain4jModels.client(flaky), runtime)
        .limits(TurnLimits.builder().modelRetry(RetryPolicy.exponential(3, Duration.ofMillis(1))).build()).build()
        .send("hi"));
    assertThat(ok.text()).isEqualTo("fine now");
    assertThat(flaky.requests).hasSize(2);

    ScriptedChatModel locked = new ScriptedChatModel().then(r -> {
      throw new AuthenticationException("bad key");
    });
    TurnResult failed = await(Agent.builder(LangChain4jModels.client(locked), runtime).conversationId("c2").build()
        .send("hi"));
    assertThat(failed.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(failed.text()).contains("bad key");
    assertThat(LangChain4jModels.error(new AuthenticationException("x")).kind())
        .isEqualTo(dev.toolcall.conversation.ModelException.Kind.AUTHENTICATION);
    assertThat(LangChain4jModels.error(new dev.langchain4j.exception.HttpException(503, "down")).kind())
        .isEqualTo(dev.toolcall.conversation.ModelException.Kind.SERVER_ERROR);
  }

  @Test
  void aCancelledTurnInterruptsTheRunningLangChain4jTool() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel().then(r -> calls(call("c1", "waitLong", "{}")));
    Agent agent = Agent.builder(LangChain4jModels.client(model), runtime).build();
    var turn = agent.send("wait").toCompletableFuture();
    assertThat(files.hanging.await(10, TimeUnit.SECONDS)).isTrue();
    agent.abort();
    TurnResult r = turn.get(10, TimeUnit.SECONDS);
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(r.calls()).singleElement().satisfies(c -> assertThat(c.snapshot().state())
        .isEqualTo(ToolCallState.CANCELLED));
  }

  @Test
  void partialToolCallsStreamToTheBusWhileTheModelStillWrites() throws Exception {
    CountDownLatch created = new CountDownLatch(1);
    runtime.events().subscribe(new EventListener() {
      @Override
      public void onCallCreated(ToolCallEvent.CallCreated e) {
        if (e.callId().equals("c1")) {
          created.countDown();
        }
      }
    });
    List<Boolean> createdBeforeTheRest = new CopyOnWriteArrayList<>();
    StreamingChatModel model = new StreamingChatModel() {
      int n;

      @Override
      public void doChat(ChatRequest request, StreamingChatResponseHandler h) {
        if (n++ > 0) {
          h.onPartialResponse("Read.");
          h.onCompleteResponse(text("Read."));
          return;
        }
        h.onPartialResponse("Let me look. ");
        h.onPartialToolCall(PartialToolCall.builder().index(0).id("c1").name("readFile").partialArguments("{\"path")
            .build());
        try {
          createdBeforeTheRest.add(created.await(10, TimeUnit.SECONDS)); // the call exists before it is complete
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        h.onPartialToolCall(PartialToolCall.builder().index(0).id("c1").name("readFile")
            .partialArguments("\":\"a.txt\"}").build());
        ToolExecutionRequest whole = call("c1", "readFile", "{\"path\":\"a.txt\"}");
        h.onCompleteToolCall(new CompleteToolCall(0, whole));
        h.onCompleteResponse(ChatResponse.builder().aiMessage(AiMessage.from("Let me look. ", List.of(whole)))
            .tokenUsage(new TokenUsage(7, 2)).finishReason(FinishReason.TOOL_EXECUTION).build());
      }
    };
    List<ModelDelta> deltas = new CopyOnWriteArrayList<>();
    TurnResult r = await(Agent.builder(LangChain4jModels.client(model), runtime).onDelta(deltas::add).build()
        .send("read"));

    assertThat(createdBeforeTheRest).containsExactly(true);
    assertThat(r.calls()).singleElement().satisfies(c -> assertThat(c.messageForModel())
        .isEqualTo("contents of a.txt"));
    assertThat(deltas.subList(0, 5)).containsExactly(new ModelDelta.Text("Let me look. "),
        new ModelDelta.ToolCallStarted("c1", "readFile"), new ModelDelta.ToolCallArguments("c1", "{\"path"),
        new ModelDelta.ToolCallArguments("c1", "\":\"a.txt\"}"), new ModelDelta.ToolCallCompleted("c1"));
    assertThat(r.text()).isEqualTo("Read.");
  }

  /**
   * Arguments LangChain4j's executor cannot bind ({@code ToolArgumentsException}) are the model's mistake: the call
   * fails as INVALID_ARGUMENTS (which never ends an agent's turn), not as a tool error.
   */
  @Test
  void argumentsTheExecutorCannotBindAreInvalidArguments() throws Exception {
    dev.toolcall.tool.Tool lookup = LangChain4jTools.tool(ToolSpecification.builder().name("lookup")
        .description("looks up").build(), (request, memoryId) -> {
          throw new dev.langchain4j.exception.ToolArgumentsException("id must be an integer");
        }, b -> b.requiresApproval(false));
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(lookup).build()) {
      dev.toolcall.execution.CallResult r = rt.schedule("s", List.of(dev.toolcall.execution.CallRequest.of("c1",
          "lookup", "{}"))).whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS).get(0);
      assertThat(r.outcome()).isInstanceOfSatisfying(dev.toolcall.Outcome.Failed.class, f -> {
        assertThat(f.kind()).isEqualTo(dev.toolcall.FailureKind.INVALID_ARGUMENTS);
        assertThat(f.message()).contains("do not fit the tool").contains("id must be an integer");
      });
    }
  }

  /** A handle that records its cancel. */
  static final class RecordingHandle implements dev.langchain4j.model.chat.response.StreamingHandle {
    final CountDownLatch cancelled = new CountDownLatch(1);

    @Override
    public void cancel() {
      cancelled.countDown();
    }

    @Override
    public boolean isCancelled() {
      return cancelled.getCount() == 0;
    }
  }

  /**
   * An aborted turn stops the streaming request in flight through LangChain4j's handle: at once when a partial
   * response has brought the handle, or at the first partial callback when the abort came before it.
   */
  @Test
  void anAbortCancelsTheStreamingRequest() throws Exception {
    for (boolean handleFirst : List.of(true, false)) {
      RecordingHandle handle = new RecordingHandle();
      CountDownLatch asked = new CountDownLatch(1);
      StreamingChatResponseHandler[] handler = new StreamingChatResponseHandler[1];
      StreamingChatModel model = new StreamingChatModel() {
        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler h) {
          handler[0] = h;
          if (handleFirst) {
            h.onPartialResponse(new dev.langchain4j.model.chat.response.PartialResponse("Let me "),
                new dev.langchain4j.model.chat.response.PartialResponseContext(handle));
          }
          asked.countDown();
        }
      };
      Agent agent = Agent.builder(LangChain4jModels.client(model), runtime).build();
      java.util.concurrent.CompletableFuture<TurnResult> turn = agent.send("read").toCompletableFuture();
      assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
      agent.abort();
      assertThat(turn.get(10, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ABORTED);
      if (!handleFirst) {
        assertThat(handle.isCancelled()).isFalse();
        handler[0].onPartialToolCall(PartialToolCall.builder().index(0).id("c1").name("readFile")
            .partialArguments("{").build(), new dev.langchain4j.model.chat.response.PartialToolCallContext(handle));
      }
      assertThat(handle.cancelled.await(10, TimeUnit.SECONDS)).as("handle cancelled (handle first: %s)", handleFirst)
          .isTrue();
    }
  }

  @Test
  void schemasConvertBothWaysWithoutLoss() throws Exception {
    for (ToolSpecification spec : ToolSpecifications.toolSpecificationsFrom(files)) {
      JsonObjectSchema original = spec.parameters();
      JsonNode json = LangChain4jSchemas.toJsonSchema(original);
      if (original == null) { // a tool without parameters: none at all, both ways
        assertThat(LangChain4jTools.specification(runtime.registry().require(spec.name()).definition())
            .parameters()).isNull();
        continue;
      }
      assertThat(LangChain4jSchemas.fromJsonSchema(json)).as(spec.name()).isEqualTo(original);
    }
    ObjectMapper m = new ObjectMapper();
    JsonNode rich = m.readTree("""
        {"type":"object","description":"a deploy","properties":{
          "env":{"type":"string","enum":["staging","production"],"description":"where"},
          "replicas":{"type":"integer","minimum":1,"maximum":9},
          "tags":{"type":"array","items":{"type":"string"}},
          "when":{"type":"string","format":"date-time"},
          "target":{"$ref":"#/$defs/target"},
          "either":{"anyOf":[{"type":"string"},{"type":"null"}]}},
         "required":["env"],"additionalProperties":false,
         "$defs":{"target":{"type":"object","properties":{"host":{"type":"string"}},"required":["host"]}}}""");
    JsonObjectSchema l4j = LangChain4jSchemas.fromJsonSchema(rich);
    assertThat(LangChain4jSchemas.toJsonSchema(l4j)).isEqualTo(rich);
    assertThat(l4j.properties().get("replicas"))
        .isInstanceOf(dev.langchain4j.model.chat.request.json.JsonRawSchema.class);
    assertThat(l4j.properties().get("env"))
        .isInstanceOf(dev.langchain4j.model.chat.request.json.JsonEnumSchema.class);
    assertThat(LangChain4jTools.specification(runtime.registry().require("writeFile").definition()).parameters())
        .isEqualTo(ToolSpecifications.toolSpecificationsFrom(files).stream()
            .filter(s -> s.name().equals("writeFile")).findFirst().orElseThrow().parameters());
  }

  @Test
  void messagesConvertBothWays() {
    List<dev.toolcall.conversation.Message> ours = List.of(new dev.toolcall.conversation.UserMessage("q"),
        new dev.toolcall.conversation.AssistantMessage("", List.of(
            new dev.toolcall.conversation.ToolCallRequest("c1", "readFile", "{}"))),
        new dev.toolcall.conversation.ToolResultMessage("c1", "readFile", "x", false),
        new dev.toolcall.conversation.AssistantMessage("done", List.of()));
    for (dev.toolcall.conversation.Message m : ours) {
      assertThat(LangChain4jModels.fromLangChain4j(LangChain4jModels.toLangChain4j(m))).isEqualTo(m);
    }
  }

  private static ChatMessage last(List<ChatMessage> messages) {
    return messages.get(messages.size() - 1);
  }

  static Map<String, Object> unused() {
    return Map.of();
  }
}
