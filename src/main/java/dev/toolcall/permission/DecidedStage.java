package dev.toolcall.permission;

import dev.toolcall.ToolCallSnapshot;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The stage {@link PermissionService#authorize} returns: completed only by the service ({@link #release}), with the
 * snapshot that says whether the call may run. Callers cannot complete, obtrude, cancel or time it out (those throw
 * {@link UnsupportedOperationException}, as a {@link CompletableFuture#minimalCompletionStage() minimal stage}
 * does); unlike a minimal stage it can be polled ({@code isDone}, {@code join}). Stages made from it are plain
 * {@link CompletableFuture}s, and {@link #toCompletableFuture()} is a copy (a caller may complete or time out its
 * copy). Where a minimal stage costs a second stage and a relay per request (64 bytes while the request waits), this
 * costs nothing more; the scheduler chains on it directly, without a copy.
 */
final class DecidedStage extends CompletableFuture<ToolCallSnapshot> {

  DecidedStage() {}

  /** A stage completed with {@code s} already. */
  DecidedStage(ToolCallSnapshot s) {
    super.complete(s);
  }

  /** Completes the stage with {@code s}; by the service only. Later calls do nothing. */
  void release(ToolCallSnapshot s) {
    super.complete(s);
  }

  private static UnsupportedOperationException refused() {
    return new UnsupportedOperationException("an authorize stage completes only when the permission service decides");
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CompletableFuture<>();
  }

  @Override
  public CompletableFuture<ToolCallSnapshot> toCompletableFuture() {
    return thenApply(s -> s);
  }

  @Override
  public boolean complete(ToolCallSnapshot value) {
    throw refused();
  }

  @Override
  public boolean completeExceptionally(Throwable ex) {
    throw refused();
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    throw refused();
  }

  @Override
  public void obtrudeValue(ToolCallSnapshot value) {
    throw refused();
  }

  @Override
  public void obtrudeException(Throwable ex) {
    throw refused();
  }

  @Override
  public CompletableFuture<ToolCallSnapshot> completeAsync(Supplier<? extends ToolCallSnapshot> supplier,
      Executor executor) {
    throw refused();
  }

  @Override
  public CompletableFuture<ToolCallSnapshot> completeAsync(Supplier<? extends ToolCallSnapshot> supplier) {
    throw refused();
  }

  @Override
  public CompletableFuture<ToolCallSnapshot> orTimeout(long timeout, TimeUnit unit) {
    throw refused();
  }

  @Override
  public CompletableFuture<ToolCallSnapshot> completeOnTimeout(ToolCallSnapshot value, long timeout, TimeUnit unit) {
    throw refused();
  }
}
