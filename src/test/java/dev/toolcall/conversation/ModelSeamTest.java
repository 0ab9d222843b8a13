package dev.toolcall.conversation;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The model seam carries what provider adapters need: instructions (the system message), request options, token
 * usage and the provider's finish reason; and an agent can be seeded with a history and export it.
 */
class ModelSeamTest {
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(
      Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true).requiresApproval(false).build(),
          inv -> ToolResult.of("echoed"))).build();

  @AfterEach
  void close() {
    runtime.close();
  }

  private static TurnResult await(CompletionStage<TurnResult> f) throws Exception {
    return f.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void instructionsAndOptionsReachEveryRequestOfATurn() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{}")).thenText("done");
    ModelOptions options = ModelOptions.builder().toolChoice(ToolChoice.tool("echo")).temperature(0.2).maxTokens(512)
        .provider("top_k", 40).build();
    Agent agent = Agent.builder(model, runtime).instructions("You are terse.").options(options).build();

    await(agent.send("hi"));

    assertThat(model.requests()).hasSize(2).allSatisfy(r -> {
      assertThat(r.instructions()).isEqualTo("You are terse.");
      assertThat(r.options()).isEqualTo(options);
    });
    assertThat(options.temperature().getAsDouble()).isEqualTo(0.2);
    assertThat(options.maxTokens().getAsInt()).isEqualTo(512);
    assertThat(options.provider()).containsExactly(Map.entry("top_k", 40));
    assertThat(agent.instructions()).isEqualTo("You are terse.");
  }

  @Test
  void aRequestWithoutInstructionsHasTheDefaults() {
    ModelRequest r = new ModelRequest(List.of(new UserMessage("hi")), List.of());
    assertThat(r.instructions()).isEmpty();
    assertThat(r.options()).isEqualTo(ModelOptions.DEFAULTS);
    assertThat(r.options().toolChoice()).isEqualTo(ToolChoice.auto());
  }

  @Test
  void optionsOutOfRangeAreRefusedNamingTheOption() {
    assertThatThrownBy(() -> ModelOptions.builder().temperature(2.5).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("temperature");
    assertThatThrownBy(() -> ModelOptions.builder().temperature(Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("temperature");
    assertThatThrownBy(() -> ModelOptions.builder().maxTokens(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxTokens");
    assertThatThrownBy(() -> ToolChoice.tool(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("toolName");
    assertThatThrownBy(() -> new ModelRequest(List.of(new UserMessage("hi")), List.of(), "",
        ModelOptions.builder().toolChoice(ToolChoice.tool("nope")).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'nope'");
    assertThatThrownBy(() -> new ModelRequest(List.of(new UserMessage("hi")), List.of(), "",
        ModelOptions.builder().toolChoice(ToolChoice.required()).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offers no tools");
    assertThatThrownBy(() -> Agent.builder(new ScriptedModel(), runtime)
        .options(ModelOptions.builder().toolChoice(ToolChoice.tool("missing")).build()).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'missing'");
  }

  @Test
  void usageOfEveryResponseOfATurnIsSummedWithTheFinishReasonKept() throws Exception {
    ScriptedModel model = new ScriptedModel()
        .then(ModelResponse.toolCalls("", List.of(call("c1", "echo", "{}"))).withUsage(new TokenUsage(100, 20),
            "tool_calls"))
        .then(ModelResponse.text("done").withUsage(new TokenUsage(130, 7), "stop"));
    Agent agent = Agent.builder(model, runtime).build();

    TurnResult r = await(agent.send("hi"));

    assertThat(r.usage()).isEqualTo(new TokenUsage(230, 27));
    assertThat(r.usage().totalTokens()).isEqualTo(257);
  }

  @Test
  void aStreamedResponseCarriesItsUsageAndFinishReason() throws Exception {
    StreamingModelClient source = (request, sink) -> {
      sink.accept(new ModelDelta.Text("hel"));
      sink.accept(new ModelDelta.Text("lo"));
      sink.accept(new ModelDelta.ResponseCompleted(StopReason.MAX_TOKENS, new TokenUsage(9, 2), "length"));
      return CompletableFuture.completedFuture(null);
    };
    List<ModelDelta> seen = new ArrayList<>();
    ModelResponse r = ModelClient.streaming(source).stream(new ModelRequest(List.of(new UserMessage("hi")), List.of()),
        (Consumer<ModelDelta>) seen::add).toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(r.text()).isEqualTo("hello");
    assertThat(r.usage()).isEqualTo(new TokenUsage(9, 2));
    assertThat(r.finishReason()).isEqualTo("length");
    assertThat(r.stopReason()).isEqualTo(StopReason.MAX_TOKENS);
    assertThat(ModelDelta.replay(r)).last()
        .isEqualTo(new ModelDelta.ResponseCompleted(StopReason.MAX_TOKENS, new TokenUsage(9, 2), "length"));
  }

  @Test
  void anExportedHistorySeedsANewAgentThatAsksTheModelTheSame() throws Exception {
    ScriptedModel first = new ScriptedModel().thenCalls(call("c1", "echo", "{}")).thenText("first answer");
    Agent a = Agent.builder(first, runtime).build();
    await(a.send("one"));
    List<Message> exported = a.messages();
    assertThat(exported).hasSize(4); // user, assistant with call, its result, final answer

    ScriptedModel second = new ScriptedModel().thenText("second answer");
    Agent b = Agent.builder(second, runtime).conversationId("conversation-2").history(exported).build();
    await(b.send("two"));

    List<Message> sent = second.requests().get(0).messages();
    assertThat(sent.subList(0, 4)).isEqualTo(exported);
    assertThat(sent.get(4)).isEqualTo(new UserMessage("two"));
    assertThat(b.messages()).hasSize(6).startsWith(exported.toArray(new Message[0]));
  }

  @Test
  void aCallIdOfTheSeededHistoryUsedAgainIsANewCallUnderAMintedId() throws Exception {
    List<Message> history = List.of(new UserMessage("one"),
        new AssistantMessage("", List.of(call("c1", "echo", "{}"))),
        new ToolResultMessage("c1", "echo", "echoed", false), new AssistantMessage("ok", List.of()));
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{}")).thenText("done");
    Agent agent = Agent.builder(model, runtime).history(history).build();

    TurnResult r = await(agent.send("again"));

    assertThat(r.toolResults()).singleElement().satisfies(m -> {
      assertThat(m.callId()).as("answered under the provider's id").isEqualTo("c1");
      assertThat(m.isError()).isFalse();
    });
    assertThat(r.calls()).singleElement().satisfies(c -> {
      assertThat(c.callId()).as("the library's own id").isNotEqualTo("c1").startsWith("call_");
      assertThat(c.snapshot().identity().label()).isEqualTo("c1");
      assertThat(dev.toolcall.presentation.Presenter.create().views(List.of(c.snapshot())).get(0).providerCallId())
          .as("a view shows the provider's id beside the call id").contains("c1");
    });
  }

  @Test
  void aMalformedHistoryIsRefusedNamingTheMessage() {
    UserMessage u = new UserMessage("q");
    AssistantMessage asks = new AssistantMessage("", List.of(call("c1", "echo", "{}"), call("c2", "echo", "{}")));
    ToolResultMessage r1 = new ToolResultMessage("c1", "echo", "x", false);
    ToolResultMessage r2 = new ToolResultMessage("c2", "echo", "y", false);
    Agent.Builder b = Agent.builder(new ScriptedModel(), runtime);

    assertThatThrownBy(() -> b.history(List.of(u, r1))).hasMessageContaining("history[1]")
        .hasMessageContaining("no assistant message");
    assertThatThrownBy(() -> b.history(List.of(u, asks, r2, r1))).hasMessageContaining("history[2]")
        .hasMessageContaining("'c1'");
    assertThatThrownBy(() -> b.history(List.of(u, asks, r1, u))).hasMessageContaining("history[3]")
        .hasMessageContaining("'c2' was answered");
    assertThatThrownBy(() -> b.history(List.of(u, asks, r1))).hasMessageContaining("ends before tool call 'c2'");
    assertThatThrownBy(() -> b.history(List.of(u, asks, r1, r2, r2))).hasMessageContaining("history[4]");
    assertThatThrownBy(() -> b.history(List.of(u, asks, r1, r2, asks, r1, r2))).hasMessageContaining("history[4]")
        .hasMessageContaining("twice");
    assertThat(Agent.builder(new ScriptedModel(), runtime).history(List.of(u, asks, r1, r2)).build().messages())
        .containsExactly(u, asks, r1, r2);
  }
}
