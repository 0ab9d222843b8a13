package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The words a turn ends with are the ones written for their readers: the model and the user read "the model", "the
 * conversation", never the name of a field of the code that wrote them (a rename inside the agent once put
 * {@code agent.model} into these texts).
 */
class TurnTextTest {

  private static final RetryPolicy FAST_RETRY = new RetryPolicy(3, Duration.ofMillis(1), 1.0, Duration.ofMillis(1),
      0);

  private final ToolCallRuntime runtime = ToolCallRuntime.builder().build();

  @AfterEach
  void close() {
    runtime.close();
  }

  private Agent agent(ModelClient model) {
    return Agent.builder(model, runtime).conversationId("conv-t")
        .limits(TurnLimits.builder().modelRetry(FAST_RETRY).build()).build();
  }

  /** A client whose {@link ModelClient#stream} returns {@code stage} as it is (null included). */
  private static ModelClient streaming(CompletionStage<ModelResponse> stage) {
    return new ModelClient() {
      @Override
      public CompletionStage<ModelResponse> complete(ModelRequest request) {
        return stage;
      }

      @Override
      public CompletionStage<ModelResponse> stream(ModelRequest request,
          java.util.function.Consumer<? super ModelDelta> listener) {
        return stage;
      }
    };
  }

  private static TurnResult await(CompletionStage<TurnResult> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aFatalModelErrorSaysTheModelRequestFailed() throws Exception {
    Agent agent = agent(new ScriptedModel().thenFail(ModelException.Kind.AUTHENTICATION));

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).startsWith("The model request failed: ").doesNotContain("agent.");
    assertThat(agent.conversation().snapshot().error()).hasValueSatisfying(e -> assertThat(e)
        .startsWith("The model request failed: "));
  }

  @Test
  void retriesUsedUpSayHowOftenTheModelRequestFailed() throws Exception {
    Agent agent = agent(new ScriptedModel().thenFail(ModelException.Kind.NETWORK)
        .thenFail(ModelException.Kind.NETWORK).thenFail(ModelException.Kind.NETWORK));

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).startsWith("The model request failed 3 times in a row; the last error: ")
        .doesNotContain("agent.");
  }

  @Test
  void aModelSwitchSaysTheModelCannotContinue() throws Exception {
    Agent agent = agent(new ScriptedModel().thenFail(ModelException.Kind.MODEL_SWITCHED));

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.MODEL_SWITCHED);
    assertThat(r.text()).startsWith("The model cannot continue this turn on its own: ").doesNotContain("agent.");
  }

  @Test
  void aClientThatReturnsNoStageIsAModelClientThatReturnedNoStage() throws Exception {
    ModelClient noStage = streaming(null);
    Agent agent = agent(noStage);

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).contains("the model client returned no stage").doesNotContain("agent.");
  }

  @Test
  void aClientThatCompletesWithNoResponseIsAModelClientThatReturnedNoResponse() throws Exception {
    ModelClient noResponse = streaming(CompletableFuture.completedFuture(null));
    Agent agent = agent(noResponse);

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).contains("the model client returned no response").doesNotContain("agent.");
  }

  @Test
  void resumingWithNoTurnToResumeNamesTheConversation() {
    Agent agent = agent(new ScriptedModel().thenText("unused"));

    CompletableFuture<TurnResult> r = agent.resume(List.of()).toCompletableFuture();

    Assertions.assertThatThrownBy(r::get).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(IllegalStateException.class)
        .hasMessage("no turn to resume: conversation conv-t is idle");
  }
}
