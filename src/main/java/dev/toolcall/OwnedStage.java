package dev.toolcall;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A stage of a call's snapshot that only its owner completes (the library's own stages: a call's
 * {@link ToolCall#whenTerminal()}, a permission service's {@code authorize}). Callers cannot complete, obtrude, cancel
 * or time it out: those throw {@link UnsupportedOperationException}, as a
 * {@link CompletableFuture#minimalCompletionStage() minimal stage} does. Unlike a minimal stage it can be polled
 * ({@code isDone}, {@code join}) and chained on without a copy: where a minimal stage costs a second stage and a relay
 * per caller, this costs nothing more. Stages made from it are plain {@link CompletableFuture}s, and
 * {@link #toCompletableFuture()} is a copy a caller may complete or time out. {@link #onSettled} waits without a
 * stage of its own. Thread-safe, as any {@link CompletableFuture}; it completes once, and a later {@link #settle} does
 * nothing.
 */
public abstract class OwnedStage extends CompletableFuture<ToolCallSnapshot> {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(OwnedStage.class);
  private final String refusal;

  /** @param refusal the message of the exception a caller gets when it tries to complete the stage */
  protected OwnedStage(String refusal) {
    this.refusal = java.util.Objects.requireNonNull(refusal, "refusal");
  }

  /** Completes the stage with {@code snapshot}: by its owner only. Later calls do nothing. */
  protected final void settle(ToolCallSnapshot snapshot) {
    super.complete(snapshot);
  }

  /**
   * Runs {@code action} once with the snapshot this stage completes with: when it completes, on the thread that
   * completes it, or at once on this thread if it has. Like {@link #whenComplete} without a stage to return (an owned
   * stage never completes exceptionally), and a subclass may keep one such action without allocating anything (a
   * permission service's waiting request does), so a caller that waits on many stages at once pays less than for a
   * dependent stage each. An action that throws is logged at ERROR; nothing else sees it.
   *
   * @throws NullPointerException if {@code action} is null
   */
  public void onSettled(java.util.function.Consumer<? super ToolCallSnapshot> action) {
    java.util.Objects.requireNonNull(action, "action");
    whenComplete((s, t) -> {
      if (t == null) {
        runAction(action, s);
      }
    });
  }

  /** Runs an {@link #onSettled} action with {@code s}, logging what it throws. */
  private static void runAction(java.util.function.Consumer<? super ToolCallSnapshot> action, ToolCallSnapshot s) {
    try {
      action.accept(s);
    } catch (RuntimeException | Error e) { // the owner's completion goes on
      log.error("an onSettled action failed for call {} ({})", s.callId(), s.toolName(), e);
    }
  }

  private UnsupportedOperationException refused() {
    return new UnsupportedOperationException(refusal);
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
