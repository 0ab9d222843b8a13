package dev.toolcall;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The stage {@link ToolCall#whenTerminal()} returns: one per call, made on the first request and handed to every
 * caller, completed only by its call ({@link #release}), with the terminal snapshot. Callers cannot complete,
 * obtrude, cancel or time it out (those throw {@link UnsupportedOperationException}, as a
 * {@link CompletableFuture#minimalCompletionStage() minimal stage} does); stages made from it are plain
 * {@link CompletableFuture}s, and {@link #toCompletableFuture()} is a copy. Where a minimal stage would cost a stage
 * and a relay per caller (64 bytes each while the call runs or waits), this costs nothing per caller.
 */
final class TerminalStage extends CompletableFuture<ToolCallSnapshot> {

  /** Completes the stage with {@code terminal}; by its call only. Later calls do nothing. */
  void release(ToolCallSnapshot terminal) {
    super.complete(terminal);
  }

  private static UnsupportedOperationException refused() {
    return new UnsupportedOperationException("a call's whenTerminal() stage completes only when the call ends");
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
