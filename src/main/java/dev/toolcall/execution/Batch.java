package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The calls of one model response, scheduled together.
 *
 * <p>{@link #whenDone()} completes exactly once, when every call is terminal, with one {@link CallResult} per
 * request in request order, so no call is left without a result for the model. It never completes exceptionally.
 * Each call's own terminal event is published when that call ends, not when its siblings do. Thread-safe.
 */
public interface Batch {

  /** The calls, in request order (a duplicate id in the batch has its own failed call here). */
  List<ToolCall> calls();

  /** Completes when every call has ended, with the results in request order. */
  CompletionStage<List<CallResult>> whenDone();

  /**
   * Cancels every call of the batch that has not ended (the seeds' abort signal): each ends CANCELLED at once and
   * a running tool is interrupted; its later result is discarded. With a call store that fails a cancel (it is
   * unreachable), that cancel is tried again until it lands, and the other calls are cancelled all the same.
   *
   * @return how many calls this cancelled at once
   */
  int cancelAll(String reason);

  /** Blocks until done and returns the results; for tests and simple runtimes. */
  default List<CallResult> join() {
    return whenDone().toCompletableFuture().join();
  }
}
