package dev.toolcall.execution;

import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.tool.ToolDefinition;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Decides whether a validated PENDING call may run. The permission service is the usual one.
 *
 * <p>The returned stage completes (never exceptionally) with the call's snapshot once that is clear: still
 * {@link ToolCallState#PENDING} means no permission is needed (the scheduler then moves it to RUNNING);
 * {@link ToolCallState#PERMISSION_APPROVED} means approved, with exactly the snapshot's arguments; a terminal state
 * means denied or cancelled.
 */
@FunctionalInterface
public interface Authorizer {

  /** Starts the decision for {@code call}, which is PENDING and whose arguments passed validation. */
  CompletionStage<ToolCallSnapshot> authorize(ToolCall call, ToolDefinition definition);

  /**
   * Approves every call without asking (PENDING -&gt; PERMISSION_APPROVED, or straight to RUNNING for tools that
   * need no approval). For tests and for runtimes that decide elsewhere; never the default.
   */
  Authorizer ALLOW_ALL = (call, definition) -> {
    if (!definition.requiresApproval()) {
      return CompletableFuture.completedFuture(call.snapshot());
    }
    return CompletableFuture.completedFuture(call.transition(ToolCallState.PENDING,
        ToolCallState.PERMISSION_APPROVED, Reason.AUTO_APPROVED.withMessage("all calls allowed")).snapshot());
  };
}
