package dev.toolcall.conversation;

import dev.toolcall.Change;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * Shows one batch's tool retries on the conversation (seed 03's {@code executing_tools <-> transient_failure}): the
 * conversation goes to {@code transient_failure} when a call of the batch schedules a retry (its detail carries the
 * failure and the call's retry count), and back to {@code executing_tools} once no call of the batch is waiting out
 * a backoff (its backoff elapsed, or it ended, cancelled during the backoff say).
 *
 * <p>A listener on the runtime's bus with an executor of its own, subscribed before the batch's tools may start:
 * never inline, because the agent publishes the conversation's events while it holds its lock, and an inline
 * listener that takes that lock would deadlock with it. Every read or write of {@link #waiting} and every change of
 * the conversation holds the agent's lock, with the usual check that the turn is still live and the watch not
 * stopped. As deliveries are asynchronous, the batch's end does not wait for them: {@link #stop} (under the lock,
 * before the batch's end moves the conversation on) brings the conversation back to {@code executing_tools} if it
 * still shows {@code transient_failure}, and makes every later delivery a no-op.
 */
final class ToolRetryWatch implements EventListener {
  private final Agent agent;
  private final Turn turn;
  private final Set<String> callIds;
  /** Call id -> the attempt it waits to run; guarded by the agent's lock. */
  private final Map<String, Integer> waiting = new HashMap<>();
  private volatile Subscription subscription;
  private boolean stopped; // guarded by the agent's lock

  ToolRetryWatch(Agent agent, Turn turn, Set<String> callIds) {
    this.agent = agent;
    this.turn = turn;
    this.callIds = callIds;
  }

  /** Starts watching; call before the batch's tools may start. */
  ToolRetryWatch start() {
    subscription = agent.runtime.events().subscribe(this, ForkJoinPool.commonPool());
    return this;
  }

  /**
   * Stops watching (every call of the batch has ended): no call waits out a backoff any more, so a conversation
   * still in transient_failure goes back to executing_tools now. Takes the agent's lock; never call it from an
   * inline bus listener.
   */
  void stop() {
    synchronized (agent.lock) {
      stopped = true;
      waiting.clear();
      resumeIfNoneWaits();
    }
    Subscription s = subscription;
    if (s != null) {
      // Closed on another thread: close() waits for a delivery in progress, and that delivery may be waiting for
      // the agent's lock, which this thread may hold (an abort ends the batch under it). Later deliveries are no-ops.
      ForkJoinPool.commonPool().execute(s::close);
    }
  }

  @Override
  public void onRetryScheduled(ToolCallEvent.RetryScheduled e) {
    if (!callIds.contains(e.sourceId()) || !(e.snapshot().change() instanceof Change.RetryScheduled r)) {
      return;
    }
    synchronized (agent.lock) {
      if (stopped || !agent.live(turn)) {
        return;
      }
      waiting.put(e.sourceId(), r.nextAttempt());
      if (agent.conversation.state() == ConversationState.EXECUTING_TOOLS) {
        agent.conversation.transientFailure(ConversationState.EXECUTING_TOOLS,
            "tool call " + e.sourceId() + " (" + e.snapshot().toolName() + ") failed: " + r.failure()
                + "; retrying in " + r.delay().toMillis() + " ms",
            r.nextAttempt() - 1);
      }
    }
    CompletableFuture.delayedExecutor(r.delay().toNanos(), TimeUnit.NANOSECONDS)
        .execute(() -> backoffOver(e.sourceId(), r.nextAttempt()));
  }

  @Override
  public void onStateChanged(ToolCallEvent.StateChanged e) {
    if (e.to().isTerminal() && callIds.contains(e.sourceId())) {
      synchronized (agent.lock) {
        if (!stopped && waiting.remove(e.sourceId()) != null) {
          resumeIfNoneWaits();
        }
      }
    }
  }

  private void backoffOver(String callId, int attempt) {
    synchronized (agent.lock) {
      Integer waitsFor = waiting.get(callId);
      if (!stopped && waitsFor != null && waitsFor == attempt) {
        waiting.remove(callId);
        resumeIfNoneWaits();
      }
    }
  }

  /** Under the agent's lock: transient_failure -> executing_tools once no call waits out a backoff. */
  private void resumeIfNoneWaits() {
    if (waiting.isEmpty() && agent.live(turn)
        && agent.conversation.state() == ConversationState.TRANSIENT_FAILURE) {
      agent.conversation.transition(ConversationState.TRANSIENT_FAILURE, ConversationState.EXECUTING_TOOLS,
          ConversationReasons.RETRYING);
    }
  }
}
