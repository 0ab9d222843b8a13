package dev.toolcall.springai;

import static dev.toolcall.springai.SpringAiAdapterTest.call;
import static dev.toolcall.springai.SpringAiAdapterTest.calls;
import static dev.toolcall.springai.SpringAiAdapterTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.CallResult;
import dev.toolcall.runtime.ToolCallRuntime;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

/**
 * The provider's tool call ids through {@link SpringAiModels#streamingClient}, against the blocking client on the same
 * responses: both give the agent every call the model made, blank and missing ids included.
 *
 * <p>Before: the streaming client told calls apart by the provider's id, so two calls under one blank id in a
 * streamed response ran as one, and a call with no id (null) failed the request ({@code OTHER}: a null id reached
 * the delta), while the blocking client ran each of them.
 */
class SpringAiStreamingIdsTest {

  /** A tool that says what it was asked. */
  public static final class Stock {
    final List<String> asked = new CopyOnWriteArrayList<>();

    @Tool(description = "The stock of a product")
    public int stock(String product) {
      asked.add(product);
      return product.equals("apple") ? 12 : 0;
    }
  }

  /** A model that answers each request with the next of its responses, each streamed as the chunks given. */
  static final class Chunks implements ChatModel {
    final ArrayDeque<List<ChatResponse>> script = new ArrayDeque<>();

    Chunks then(ChatResponse... chunks) {
      script.add(List.of(chunks));
      return this;
    }

    @Override
    public ChatResponse call(Prompt prompt) { // the blocking client gets each response's chunks as one response
      List<AssistantMessage.ToolCall> all = new java.util.ArrayList<>();
      for (ChatResponse r : next()) {
        all.addAll(r.getResult().getOutput().getToolCalls());
      }
      return all.isEmpty() ? text("done") : calls(all.toArray(AssistantMessage.ToolCall[]::new));
    }

    @Override
    public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
      return reactor.core.publisher.Flux.fromIterable(next());
    }

    private synchronized List<ChatResponse> next() {
      List<ChatResponse> r = script.poll();
      return r == null ? List.of(text("done")) : r;
    }
  }

  private final Stock stock = new Stock();
  private final List<ToolCallback> callbacks = List.of(MethodToolCallbackProvider.builder().toolObjects(stock).build()
      .getToolCallbacks());
  private final ToolCallRuntime runtime = ToolCallRuntime.builder()
      .tools(SpringAiTools.tools(callbacks, (name, b) -> b.requiresApproval(false))).build();

  @AfterEach
  void close() {
    runtime.close();
  }

  private TurnResult turn(ModelClient client) throws Exception {
    return Agent.builder(client, runtime).build().send("stock?").toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static List<String> answers(TurnResult r) {
    return r.calls().stream().map(CallResult::messageForModel).toList();
  }

  @Test
  void twoCallsUnderOneBlankIdInOneStreamedResponseBothRunAsWithTheBlockingClient() throws Exception {
    Chunks model = new Chunks().then(calls(call("", "stock", "{\"product\":\"apple\"}"),
        call("", "stock", "{\"product\":\"pear\"}")));
    TurnResult streamed = turn(SpringAiModels.streamingClient(model));
    assertThat(streamed.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(answers(streamed)).containsExactly("12", "0");
    assertThat(stock.asked).containsExactly("apple", "pear");

    model.then(calls(call("", "stock", "{\"product\":\"apple\"}"), call("", "stock", "{\"product\":\"pear\"}")));
    assertThat(answers(turn(SpringAiModels.client(model)))).containsExactly("12", "0");
  }

  @Test
  void blankIdsInTwoChunksOfOneStreamedResponseBothRun() throws Exception {
    Chunks model = new Chunks().then(calls(call("", "stock", "{\"product\":\"apple\"}")),
        calls(call("", "stock", "{\"product\":\"pear\"}")));
    assertThat(answers(turn(SpringAiModels.streamingClient(model)))).containsExactly("12", "0");
  }

  @Test
  void aStreamedCallWithNoIdRunsAsWithTheBlockingClient() throws Exception {
    Chunks model = new Chunks().then(calls(call(null, "stock", "{\"product\":\"apple\"}")));
    TurnResult streamed = turn(SpringAiModels.streamingClient(model));
    assertThat(streamed.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(answers(streamed)).containsExactly("12");

    model.then(calls(call(null, "stock", "{\"product\":\"apple\"}")));
    assertThat(answers(turn(SpringAiModels.client(model)))).containsExactly("12");
  }

  @Test
  void aStreamedCallWithNoToolNameIsAnsweredAsWithTheBlockingClient() throws Exception {
    Chunks model = new Chunks().then(calls(call("c1", null, "{}")));
    TurnResult streamed = turn(SpringAiModels.streamingClient(model));
    assertThat(streamed.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    model.then(calls(call("c1", null, "{}")));
    TurnResult blocking = turn(SpringAiModels.client(model));
    assertThat(streamed.toolResults()).singleElement().satisfies(m -> {
      assertThat(m.isError()).isTrue();
      assertThat(m.content()).contains("names no tool");
    });
    assertThat(streamed.toolResults()).isEqualTo(blocking.toolResults());
    assertThat(stock.asked).isEmpty();
  }

  /** A call a later chunk repeats under the same (non-blank) id is the same call: it runs once. */
  @Test
  void aCallRepeatedByALaterChunkUnderItsIdRunsOnce() throws Exception {
    Chunks model = new Chunks().then(calls(call("c1", "stock", "{\"product\":\"apple\"}")),
        calls(call("c1", "stock", "{\"product\":\"apple\"}"), call("c2", "stock", "{\"product\":\"pear\"}")));
    assertThat(answers(turn(SpringAiModels.streamingClient(model)))).containsExactly("12", "0");
    assertThat(stock.asked).containsExactly("apple", "pear");
  }

  /** Two calls under one id in one chunk: the second is answered as a duplicate, as the blocking client's is. */
  @Test
  void twoCallsUnderOneIdInOneChunkAreAnsweredAsWithTheBlockingClient() throws Exception {
    Chunks model = new Chunks().then(calls(call("c1", "stock", "{\"product\":\"apple\"}"),
        call("c1", "stock", "{\"product\":\"pear\"}")));
    TurnResult streamed = turn(SpringAiModels.streamingClient(model));
    model.then(calls(call("c1", "stock", "{\"product\":\"apple\"}"), call("c1", "stock", "{\"product\":\"pear\"}")));
    TurnResult blocking = turn(SpringAiModels.client(model));
    assertThat(streamed.toolResults()).hasSize(2);
    assertThat(streamed.toolResults().get(0).content()).isEqualTo("12");
    assertThat(streamed.toolResults().get(1).content()).contains("already used by another tool call");
    assertThat(streamed.toolResults()).isEqualTo(blocking.toolResults());
    assertThat(stock.asked).containsExactly("apple", "apple");
  }
}
