package dev.toolcall.conversation;

import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A model client that produces its response as deltas, as most providers' streaming APIs do. Wrap it with
 * {@link ModelClient#streaming} to get a {@link ModelClient}: the library assembles the response and checks the
 * protocol.
 */
@FunctionalInterface
public interface StreamingModelClient {

  /**
   * Sends {@code request} and passes every delta of the response to {@code sink}, in order, ending with one
   * {@link ModelDelta.ResponseCompleted}. Per-call {@link ModelDelta.ToolCallCompleted} deltas may be left out
   * (open calls are completed by the response's completion). The sink must be called by one thread at a time, and
   * every call must happen before the returned stage completes.
   *
   * @return a stage completing once the stream has ended, or exceptionally with the failure (preferably a
   *     {@link ModelException}); cancelled ({@code toCompletableFuture().cancel(true)}) when the response is no longer
   *     wanted: stop the stream then (close the connection, cancel the provider's handle), and send no more deltas
   */
  CompletionStage<Void> stream(ModelRequest request, Consumer<? super ModelDelta> sink);
}
