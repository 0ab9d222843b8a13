package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A model client that throws an {@link Error} (a provider SDK's {@code NoClassDefFoundError},
 * {@code ExceptionInInitializerError} or {@code AssertionError}) ends the turn FAILED with a reason; the
 * conversation is not busy afterwards and the next {@code send()} works. Before the fix the turn hung in
 * {@code awaiting_llm_response} when the client ran on an executor, and {@code send()} threw on the caller's thread.
 */
class ModelErrorTest {
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().build();
  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  @AfterEach
  void close() {
    executor.shutdownNow();
    runtime.close();
  }

  /** Throws {@code error} on the first request, answers afterwards. */
  private static ModelClient.Blocking failingOnce(Supplier<? extends Error> error) {
    AtomicInteger requests = new AtomicInteger();
    return request -> {
      if (requests.getAndIncrement() == 0) {
        throw error.get();
      }
      return ModelResponse.text("fine now");
    };
  }

  private static void assertFailedThenRecovers(Agent agent, String errorName) throws Exception {
    TurnResult failed = agent.send("hello").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(failed.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(failed.text()).contains(errorName);
    assertThat(agent.isResponding()).isFalse();
    assertThat(agent.conversation().state()).isNotEqualTo(ConversationState.AWAITING_LLM_RESPONSE);
    TurnResult next = agent.send("again").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(next.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(next.text()).isEqualTo("fine now");
  }

  @Test
  void aNoClassDefFoundErrorOnTheClientsExecutorFailsTheTurn() throws Exception {
    Agent agent = Agent.builder(ModelClient.blocking(failingOnce(() -> new NoClassDefFoundError("com/provider/Sdk")),
        executor), runtime).build();
    assertFailedThenRecovers(agent, "NoClassDefFoundError");
  }

  @Test
  void anExceptionInInitializerErrorOnTheCallersThreadFailsTheTurnWithoutThrowing() throws Exception {
    Agent agent = Agent.builder(ModelClient.blocking(
        failingOnce(() -> new ExceptionInInitializerError("static init of the SDK"))), runtime).build();
    assertFailedThenRecovers(agent, "ExceptionInInitializerError");
  }

  @Test
  void aClientWhoseStreamMethodThrowsAnAssertionErrorFailsTheTurn() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    ModelClient client = new ModelClient() {
      @Override
      public CompletionStage<ModelResponse> complete(ModelRequest request) {
        return CompletableFuture.completedFuture(ModelResponse.text("fine now"));
      }

      @Override
      public CompletionStage<ModelResponse> stream(ModelRequest request, Consumer<? super ModelDelta> listener) {
        if (requests.getAndIncrement() == 0) {
          throw new AssertionError("provider invariant");
        }
        return complete(request);
      }
    };
    assertFailedThenRecovers(Agent.builder(client, runtime).build(), "AssertionError");
  }
}
