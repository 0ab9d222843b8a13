package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Agent#abort()} cancels the model request in flight through the model seam, for each form of client: the
 * stage a plain client returned is cancelled, a streaming source's stage is cancelled (and later deltas are
 * ignored), and a blocking client on an executor is interrupted. Before, the request ran on: its tokens were spent
 * and its late response dropped.
 */
class ModelCancelTest {
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().build();
  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  @AfterEach
  void close() {
    runtime.close();
    pool.shutdownNow();
  }

  /** A model that never answers, and records that its request was cancelled. */
  static final class HangingModel implements ModelClient {
    final CountDownLatch asked = new CountDownLatch(1);
    final CompletableFuture<ModelResponse> stage = new CompletableFuture<>();
    final CountDownLatch cancelled = new CountDownLatch(1);

    @Override
    public CompletionStage<ModelResponse> complete(ModelRequest request) {
      stage.whenComplete((r, e) -> {
        if (e instanceof CancellationException) {
          cancelled.countDown();
        }
      });
      asked.countDown();
      return stage;
    }
  }

  @Test
  void abortCancelsTheRequestOfAPlainClient() throws Exception {
    HangingModel model = new HangingModel();
    Agent agent = Agent.builder(model, runtime).build();
    CompletableFuture<TurnResult> turn = agent.send("hello").toCompletableFuture();
    assertThat(model.asked.await(10, TimeUnit.SECONDS)).isTrue();
    agent.abort();
    assertThat(turn.get(10, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(model.cancelled.await(10, TimeUnit.SECONDS)).as("the model's stage was cancelled").isTrue();
    assertThat(model.stage.isCancelled()).isTrue();
  }

  @Test
  void abortCancelsAStreamingSourceAndLaterDeltasAreIgnored() throws Exception {
    CountDownLatch asked = new CountDownLatch(1);
    CountDownLatch cancelled = new CountDownLatch(1);
    CompletableFuture<Void> source = new CompletableFuture<>();
    java.util.concurrent.atomic.AtomicReference<Consumer<? super ModelDelta>> sink =
        new java.util.concurrent.atomic.AtomicReference<>();
    ModelClient model = ModelClient.streaming((request, s) -> {
      sink.set(s);
      source.whenComplete((v, e) -> {
        if (e instanceof CancellationException) {
          cancelled.countDown();
        }
      });
      s.accept(new ModelDelta.Text("Thinking"));
      asked.countDown();
      return source;
    });
    java.util.List<ModelDelta> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    Agent agent = Agent.builder(model, runtime).onDelta(seen::add).build();
    CompletableFuture<TurnResult> turn = agent.send("hello").toCompletableFuture();
    assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
    agent.abort();
    assertThat(turn.get(10, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(cancelled.await(10, TimeUnit.SECONDS)).as("the source's stage was cancelled").isTrue();
    sink.get().accept(new ModelDelta.Text(" more"));
    assertThat(seen).containsExactly(new ModelDelta.Text("Thinking"));
  }

  @Test
  void abortInterruptsABlockingClientOnAnExecutor() throws Exception {
    CountDownLatch asked = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    ModelClient model = ModelClient.blocking(request -> {
      asked.countDown();
      try {
        new CountDownLatch(1).await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        interrupted.countDown();
        throw e;
      }
      throw new AssertionError("not interrupted within 10 s");
    }, pool);
    Agent agent = Agent.builder(model, runtime).build();
    CompletableFuture<TurnResult> turn = agent.send("hello").toCompletableFuture();
    assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
    agent.abort();
    assertThat(turn.get(10, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("the blocking call was interrupted").isTrue();
    // the pool thread is not left interrupted: the next task runs normally
    assertThat(pool.submit(() -> Thread.currentThread().isInterrupted()).get(10, TimeUnit.SECONDS)).isFalse();
  }
}
