package dev.toolcall.conversation;

import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * The seam to the model: the runtime's own LLM client implements it (this library ships none). Given the
 * conversation's messages and the tools on offer, it answers with the model's {@link ModelResponse}.
 *
 * <h2>Forms</h2>
 * <ul>
 *   <li>{@link #complete}: the one method to implement; asynchronous.</li>
 *   <li>{@link #stream}: the same response, delivered also as {@link ModelDelta}s while it is produced. The default
 *       replays a complete response as deltas once it has arrived; a client built with
 *       {@link #streaming(StreamingModelClient)} delivers them as they come.</li>
 *   <li>{@link #blocking(Blocking)}: adapts a plain blocking function.</li>
 * </ul>
 *
 * <h2>Failures</h2>
 * A failed request completes the stage exceptionally, preferably with a {@link ModelException} whose kind says
 * whether it is transient or must not be continued; anything else is read through {@link ModelException#from}. The
 * stages of the clients this interface makes ({@link #blocking}, {@link #streaming}, the default {@link #stream})
 * fail only with a {@code ModelException}. Implementations must be thread-safe if one client serves several
 * conversations at once.
 *
 * <h2>Cancellation</h2>
 * When the response is no longer wanted (the user aborts the turn, {@code Agent.abort()}; the turn ends otherwise
 * while the request is in flight), the caller cancels the returned stage: {@code toCompletableFuture().cancel(true)}.
 * A client that can stop its request should watch its own stage for that (for example
 * {@code stage.whenComplete((r, e) -> { if (e instanceof CancellationException) request.cancel(); })}) and stop
 * it, so no more tokens are spent; a late response after a cancel is ignored either way. The clients this interface
 * makes pass the cancel on: the default {@link #stream} cancels the stage of {@link #complete}; a
 * {@link #streaming} client cancels the stage its {@link StreamingModelClient} returned; a {@link #blocking(Blocking,
 * Executor)} client interrupts the thread running the blocking call (or never starts it).
 */
@FunctionalInterface
public interface ModelClient {

  /**
   * Sends {@code request} to the model.
   *
   * @return a stage completing with the model's complete response, or exceptionally with the failure; cancelled by
   *     the caller when the response is no longer wanted (see the class description)
   */
  CompletionStage<ModelResponse> complete(ModelRequest request);

  /**
   * Sends {@code request} and delivers the response to {@code listener} as well-formed deltas (see
   * {@link ModelDelta}) before the returned stage completes with the assembled response. The listener is called
   * by one thread at a time and never after the stage completes. If the listener throws, no more deltas are
   * delivered and the stage fails with a {@link ModelException} of kind {@link ModelException.Kind#OTHER} whose
   * cause is the listener's exception.
   *
   * <p>This default waits for {@link #complete} and then replays the response.
   */
  default CompletionStage<ModelResponse> stream(ModelRequest request, Consumer<? super ModelDelta> listener) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(listener, "listener");
    return ModelClients.replayed(this, request, listener);
  }

  /**
   * A client that calls {@code fn} on the calling thread and returns an already completed stage. Fits tests and
   * runtimes that drive each conversation on a thread of its own. An exception from {@code fn} fails the stage
   * (read through {@link ModelException#from}); an interrupt is kept set on the thread; a null response fails it
   * as {@link ModelException.Kind#MALFORMED_RESPONSE}.
   */
  static ModelClient blocking(Blocking fn) {
    Objects.requireNonNull(fn, "fn");
    return ModelClients.blocking(fn, null);
  }

  /**
   * A client that calls {@code fn} on {@code executor}. If the executor rejects the task the stage fails with a
   * {@link ModelException} of kind {@link ModelException.Kind#OTHER}.
   */
  static ModelClient blocking(Blocking fn, Executor executor) {
    Objects.requireNonNull(fn, "fn");
    Objects.requireNonNull(executor, "executor");
    return ModelClients.blocking(fn, executor);
  }

  /**
   * A client on a streaming source: {@link #stream} forwards the source's deltas as they arrive (normalised to the
   * {@link ModelDelta} protocol by a {@link ModelResponseAssembler}) and completes with the assembled response once
   * the source's stage completes; {@link #complete} does the same without a listener. A delta that breaks the
   * protocol, or a source that completes before its {@link ModelDelta.ResponseCompleted}, fails the stage as
   * {@link ModelException.Kind#MALFORMED_RESPONSE}; deltas after a failure are ignored.
   */
  static ModelClient streaming(StreamingModelClient source) {
    return new ModelClients.Streaming(Objects.requireNonNull(source, "source"));
  }

  /** A model call as a plain blocking function, for {@link ModelClient#blocking}. */
  @FunctionalInterface
  interface Blocking {
    /**
     * Sends {@code request} and waits for the complete response.
     *
     * @throws Exception preferably a {@link ModelException} saying what kind of failure it was
     */
    ModelResponse complete(ModelRequest request) throws Exception;
  }
}
