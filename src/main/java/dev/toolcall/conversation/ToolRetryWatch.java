package dev.toolcall.conversation;

import dev.toolcall.Change;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Shows one batch's tool retries on the conversation (seed 03's {@code executing_tools <-> transient_failure}): the
 * conversation goes to {@code transient_failure} when a call of the batch schedules a retry (its detail carries the
 * failure and the call's retry count), and back to {@code executing_tools} once no call of the batch is waiting out
 * a backoff (its backoff elapsed, or it ended, cancelled during the backoff say).
 *
 * <p>An inline listener on the runtime's bus, subscribed before the batch's tools may start and closed when the
 * batch is done. It runs on the threads that change the calls; every read or write of {@link #waiting} and every
 * change of the conversation holds the agent's lock, with the usual check that the turn is still live. A call's
 * terminal event reaches it before the batch completes, so the conversation is back in {@code executing_tools} by
 * the time the batch's end moves it on.
 */
final class ToolRetryWatch implements EventListener {
  private final Agent agent;
  private final Turn turn;
  private final Set<String> callIds;
  /** Call id -> the attempt it waits to run; guarded by the agent's lock. */
  private final Map<String, Integer> waiting = new HashMap<>();
  private volatile Subscription subscription;

  ToolRetryWatch(Agent agent, Turn turn, Set<String> callIds) {
    this.agent = agent;
    this.turn = turn;
    this.callIds = callIds;
  }

  /** Starts watching; call before the batch's tools may start. */
  ToolRetryWatch start() {
    subscription = agent.runtime.events().subscribe(this);
    return this;
  }

  /** Stops watching (the batch is done). */
  void stop() {
    Subscription s = subscription;
    if (s != null) {
      s.close();
    }
  }

  @Override
  public void onRetryScheduled(ToolCallEvent.RetryScheduled e) {
    if (!callIds.contains(e.sourceId()) || !(e.snapshot().change() instanceof Change.RetryScheduled r)) {
      return;
    }
    synchronized (agent.lock) {
      if (!agent.live(turn)) {
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
        if (waiting.remove(e.sourceId()) != null) {
          resumeIfNoneWaits();
        }
      }
    }
  }

  private void backoffOver(String callId, int attempt) {
    synchronized (agent.lock) {
      Integer waitsFor = waiting.get(callId);
      if (waitsFor != null && waitsFor == attempt) {
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
