package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.ConversationState;
import dev.toolcall.Change;
import dev.toolcall.ToolCall;
import dev.toolcall.execution.RetryListener;
import java.util.HashMap;
import java.util.Map;

/**
 * Shows one response's tool retries on the conversation (seed 03's {@code executing_tools <-> transient_failure}):
 * the conversation goes to {@code transient_failure} when a call of the batch schedules a retry (its detail carries
 * the failure and the call's retry count), and back to {@code executing_tools} once no call of the batch is waiting
 * out a backoff (its backoff elapsed, or it ended, cancelled during the backoff say).
 *
 * <p>The batch's {@link RetryListener}: the scheduler calls it synchronously on its own threads, after a retry was
 * scheduled and, when the backoff has elapsed, before the retried attempt is handed to the executor, so
 * {@code transient_failure -> executing_tools} is published before the retried attempt starts. No bus subscription,
 * no executor or timer of its own: nothing is left running after the runtime closes. A call that ends during its
 * backoff is noticed through {@link ToolCall#whenTerminal()}. Every read or write of {@link #waiting} and every
 * change of the conversation holds the agent's lock, with the usual check that the turn is still live and the watch
 * is active. {@link #stop} (under the lock, before the batch's end moves the conversation on) brings the conversation
 * back to {@code executing_tools} if it still shows {@code transient_failure}, and makes every later call a no-op.
 */
final class ToolRetryWatch implements RetryListener {
  private final Agent agent;
  private Turn turn; // guarded by the agent's lock: replaced when a suspended turn goes on
  /** Call id -> the attempt it waits to run; guarded by the agent's lock. */
  private final Map<String, Integer> waiting = new HashMap<>();
  private boolean started; // guarded by the agent's lock: executing_tools was published for the batch
  private boolean stopped; // guarded by the agent's lock

  ToolRetryWatch(Agent agent, Turn turn) {
    this.agent = agent;
    this.turn = turn;
  }

  /** A suspended turn goes on as {@code next} ({@link Agent#resumeWith}). Under the agent's lock. */
  void follow(Turn next) {
    this.turn = next;
  }

  /** The batch's tools may start now (executing_tools is published): retries show from here on. */
  void start() {
    synchronized (agent.lock) {
      started = true;
    }
  }

  /**
   * Stops watching (every call of the batch has ended): no call waits out a backoff any more, so a conversation
   * still in transient_failure goes back to executing_tools now.
   */
  void stop() {
    synchronized (agent.lock) {
      stopped = true;
      waiting.clear();
      resumeIfNoneWaits();
    }
  }

  @Override
  public void retryScheduled(ToolCall call, Change.RetryScheduled r) {
    String id = call.callId();
    synchronized (agent.lock) {
      if (!started || stopped || !agent.ends.live(turn)) {
        return;
      }
      waiting.put(id, r.nextAttempt());
      if (agent.conversation.state() == ConversationState.EXECUTING_TOOLS) {
        agent.conversation.transientFailure(ConversationState.EXECUTING_TOOLS,
            "tool call " + id + " (" + call.toolName() + ") failed: " + r.failure() + "; retrying in "
                + r.delay().toMillis() + " ms", r.nextAttempt() - 1);
      }
    }
    call.whenTerminal().thenRun(() -> ended(id, r.nextAttempt())); // cancelled during its backoff, say
  }

  @Override
  public void retryStarting(ToolCall call, int attempt) {
    ended(call.callId(), attempt);
  }

  /** The wait of {@code callId} for {@code attempt} is over (its backoff elapsed, or the call ended). */
  private void ended(String callId, int attempt) {
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
    if (waiting.isEmpty() && agent.ends.live(turn)
        && agent.conversation.state() == ConversationState.TRANSIENT_FAILURE) {
      agent.conversation.transition(ConversationState.TRANSIENT_FAILURE, ConversationState.EXECUTING_TOOLS,
          ConversationReasons.RETRYING);
    }
  }
}
