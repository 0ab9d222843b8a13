package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.execution.Batch;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The lifetime of an {@link Agent}'s turns: which turn is under way ({@link #live}), how a new turn replaces one that
 * something outside the agent ended, and how a turn ends: exactly once, under the agent's lock (the conversation's
 * change, the cancellation of what is left of the turn's calls, one result message per open call), its stage
 * completed after the lock. Every step of {@link TurnSteps} checks {@link #live} first and ends the turn through
 * {@link #finish}; nothing here takes a step of the turn.
 */
final class TurnEnds {
  private final Agent agent;
  private final Object lock;
  private final Conversation conversation;
  private final List<Message> messages;
  /** The turn under way (or the last one); guarded by the lock. */
  Turn current;

  TurnEnds(Agent agent) {
    this.agent = agent;
    this.lock = agent.lock;
    this.conversation = agent.conversation;
    this.messages = agent.messages;
  }

  /** Whether {@code t} is the turn under way and has not ended. Under lock. */
  boolean live(Turn t) {
    return !t.ended && current == t;
  }

  /**
   * Makes {@code t} the turn under way; returns the turn it replaced when that one had not ended (something outside
   * the agent moved the conversation), ended now, for {@link #completeSuperseded} after the lock. Under lock.
   */
  Turn replaceWith(Turn t) {
    Turn old = supersede();
    current = t;
    return old;
  }

  /** See {@link Agent#abort()}. */
  void abort() {
    Turn t;
    synchronized (lock) {
      t = current;
      Suspensions.Parked p = agent.suspensions.unpark();
      if (p != null) { // a suspended turn: end it as any turn, through a continuation that is live
        t = p.turn().continued();
        current = t;
      }
    }
    if (t != null) {
      finish(t, TurnResult.Ending.ABORTED, "The turn was aborted by the user.", conversation::abort);
    }
  }

  /**
   * Ends {@code t} once (later calls do nothing): under the lock, makes the conversation change {@code end}, cancels
   * what is left of the turn's tool calls, adds the result message of each call of the latest response; then
   * completes the turn's stage.
   */
  void finish(Turn t, TurnResult.Ending ending, String text, Runnable end) {
    TurnResult result;
    synchronized (lock) {
      result = t.end(ending, text, end, messages, agent.answeredIds);
    }
    if (result != null) {
      Agent.log.debug("conversation {} turn ended: {}", conversation.id(), ending);
      cancelModelRequest(t);
      t.result.complete(result);
    }
  }

  /** Cancels the model request of ended turn {@code t}, if one is in flight: its tokens are not spent for nothing. */
  private void cancelModelRequest(Turn t) {
    CompletionStage<ModelResponse> r;
    synchronized (lock) {
      r = t.modelRequest;
      t.modelRequest = null;
    }
    if (r != null) {
      ModelClients.cancel(r);
    }
  }

  /**
   * A new turn started although the current one has not ended: something outside the agent moved the conversation
   * to idle or failed. Ends the old turn as aborted, without touching the conversation. Under lock.
   */
  private Turn supersede() {
    Suspensions.Parked parked = agent.suspensions.unpark();
    if (parked != null) { // an interrupted turn that something outside the agent ended: its calls end with it
      parked.turn().continued().end(TurnResult.Ending.ABORTED,
          "The turn was stopped outside the agent before a new one started.", () -> {}, messages, agent.answeredIds);
    }
    Turn old = current;
    if (old == null || old.ended) {
      return null;
    }
    old.superseded = old.end(TurnResult.Ending.ABORTED,
        "The turn was stopped outside the agent before a new one started.", () -> {}, messages, agent.answeredIds);
    return old;
  }

  /** After the lock: completes the stage of the turn {@link #replaceWith} ended, if any. */
  void completeSuperseded(Turn superseded) {
    if (superseded != null && superseded.superseded != null) {
      cancelModelRequest(superseded);
      superseded.result.complete(superseded.superseded);
    }
  }

  /** The stage of a turn that could not start: another is responding. */
  static CompletionStage<TurnResult> refused(ConversationSnapshot s) {
    return CompletableFuture.failedFuture(new IllegalStateException("a turn is already responding (conversation "
        + s.conversationId() + " is " + s.state().wireName() + "): wait for its result or abort it"));
  }

  /** The conversation moved under the turn (a change it lost): the turn ends as aborted. */
  void stoppedOutside(Turn t) {
    finish(t, TurnResult.Ending.ABORTED, "The turn was stopped outside the agent; the conversation is "
        + conversation.state().wireName() + ".", () -> conversation.stopTurn(ConversationReasons.ABORTED));
  }

  /** Stores the batch in the turn; when the turn has already ended, cancels it instead and returns false. */
  boolean attach(Turn t, Batch batch) {
    synchronized (lock) {
      if (live(t)) {
        t.batch = batch;
        return true;
      }
    }
    Turn.cancelAll(batch, "the turn was stopped");
    return false;
  }
}
