package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.StateDetail;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import dev.toolcall.Reason;
import dev.toolcall.Ticker;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.EventBus;
import dev.toolcall.fsm.StateCell;
import dev.toolcall.fsm.TransitionResult;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One conversation: its id and one atomic reference to its current immutable {@link ConversationSnapshot}, moved
 * along the edges of {@link ConversationState#TABLE}.
 *
 * <h2>Changes</h2>
 * Every change is one compare-and-set of the whole snapshot (a {@link StateCell}, the mechanism tool calls use): no
 * locks, no torn reads. The methods that name an {@code expected} state change nothing, throw nothing and return a
 * lost {@link TransitionResult} carrying the current snapshot when the conversation is not in that state: a race lost
 * (an abort against a model response, say) is normal life, and the loser reads there what won. An edge outside the
 * table is a programming error and throws {@link dev.toolcall.fsm.IllegalTransitionException}, naming from, to and the
 * allowed targets, before anything changes. The three states that carry a {@link StateDetail} are entered only
 * through the methods that take it ({@link #toolError}, {@link #transientFailure}, {@link #fail}), so the payload is
 * installed in the same compare-and-set as the state.
 *
 * <h2>Events</h2>
 * Each version is published once as a {@link ConversationEvent} on the conversation's {@link EventBus}, in version
 * order, after the change took effect (never inside the compare-and-set), also when racing threads made the changes.
 * Each transition is logged at DEBUG; nothing above DEBUG on this path.
 *
 * <h2>Thread safety</h2>
 * All methods may be called from any thread.
 */
public final class Conversation {

  private static final Logger log = LoggerFactory.getLogger(Conversation.class);

  private final String id;
  private final Ticker ticker;
  private final EventBus bus;
  private final StateCell<ConversationState, ConversationSnapshot> cell;

  private Conversation(Builder b) {
    this.id = b.conversationId;
    this.ticker = b.ticker;
    this.bus = b.bus;
    this.cell = new StateCell<>(ConversationState.TABLE,
        ConversationSnapshot.initial(id, b.clock.instant(), ticker.read()), this::publish);
  }

  private Conversation(ConversationSnapshot restored, EventBus bus, Ticker ticker) {
    this.id = restored.conversationId();
    this.ticker = ticker;
    this.bus = bus;
    this.cell = new StateCell<>(ConversationState.TABLE, restored, this::publish, false);
  }

  /**
   * Starts a conversation with this id (non-blank), which is also the session id of its tool calls.
   *
   * @throws NullPointerException if {@code conversationId} is null
   * @throws IllegalArgumentException if it is blank
   */
  public static Builder builder(String conversationId) {
    return new Builder(conversationId);
  }

  /**
   * Restores a conversation from a stored snapshot. Its events continue after the snapshot's version; nothing is
   * published for the restored version itself.
   */
  public static Conversation restore(ConversationSnapshot snapshot, EventBus bus, Ticker ticker) {
    return new Conversation(Objects.requireNonNull(snapshot, "snapshot"), Objects.requireNonNull(bus, "bus"),
        Objects.requireNonNull(ticker, "ticker"));
  }

  /** The conversation id (also the session id of its tool calls and of its events). */
  public String id() {
    return id;
  }

  /** The current snapshot: one volatile read, never blocks. */
  public ConversationSnapshot snapshot() {
    return cell.get();
  }

  /** The current state. */
  public ConversationState state() {
    return cell.get().state();
  }

  /** The bus this conversation publishes on. */
  public EventBus eventBus() {
    return bus;
  }

  /** The monotonic ticker this conversation times itself with. */
  public Ticker ticker() {
    return ticker;
  }

  /**
   * Moves from {@code expected} to {@code target}, a state without a {@link StateDetail}.
   *
   * @return won with the new snapshot, or lost with the current one when the conversation was not in
   *     {@code expected}
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> target} is not an edge
   * @throws IllegalArgumentException if {@code target} carries a detail: use {@link #toolError},
   *     {@link #transientFailure} or {@link #fail}
   */
  public TransitionResult<ConversationSnapshot> transition(ConversationState expected, ConversationState target,
      Reason reason) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(reason, "reason");
    ConversationState.TABLE.check(expected, target);
    if (target == ConversationState.HANDLING_TOOL_ERROR || target == ConversationState.TRANSIENT_FAILURE
        || target == ConversationState.FAILED) {
      throw new IllegalArgumentException("target " + target
          + " carries a detail: use toolError, transientFailure or fail");
    }
    return logged(cell.transition(expected, target, cur -> next(cur, target, reason)));
  }

  /**
   * The next version without a detail. A new turn ({@code PROCESSING_USER_MESSAGE}) links a copy of the version before
   * it without its history, once that version has been published: a conversation retains one turn of history, however
   * long it lives (its messages are the Agent's, not the snapshots').
   */
  private ConversationSnapshot next(ConversationSnapshot cur, ConversationState target, Reason reason) {
    ConversationSnapshot previous = target == ConversationState.PROCESSING_USER_MESSAGE && cell.isDelivered(cur)
        ? cur.withoutHistory() : cur;
    return cur.next(target, null, reason, ticker.read(), previous);
  }

  /**
   * A new user message starts a turn: {@code IDLE} or {@code FAILED -> PROCESSING_USER_MESSAGE}, the turn number
   * rising by one. Loses, changing nothing, while a turn is under way ({@link ConversationState#isBusy()}): there is
   * never a new turn while one is responding, and of two racing messages exactly one starts a turn.
   */
  public TransitionResult<ConversationSnapshot> startTurn() {
    return startTurn(ConversationReasons.USER_MESSAGE);
  }

  /** {@link #startTurn()} with a reason of the runtime's own (a slash command, say). */
  public TransitionResult<ConversationSnapshot> startTurn(Reason reason) {
    Objects.requireNonNull(reason, "reason");
    return logged(cell.transitionFromCurrent(ConversationState.PROCESSING_USER_MESSAGE, s -> true,
        cur -> next(cur, ConversationState.PROCESSING_USER_MESSAGE, reason)));
  }

  /**
   * {@code PROCESSING_LLM_RESPONSE} (no call of a response can run) or {@code EXECUTING_TOOLS} (its tools found the
   * model's arguments invalid) {@code -> HANDLING_TOOL_ERROR}, carrying the failing tool and its error.
   *
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> HANDLING_TOOL_ERROR} is not an edge
   */
  public TransitionResult<ConversationSnapshot> toolError(ConversationState expected, String toolName,
      String error) {
    StateDetail detail = new StateDetail.ToolError(toolName, error);
    return detailed(expected, detail, ConversationReasons.INVALID_TOOL_CALLS);
  }

  /**
   * {@code AWAITING_LLM_RESPONSE} or {@code EXECUTING_TOOLS -> TRANSIENT_FAILURE}, carrying the error and the retry
   * count: 1 for the first, one more when {@code expected} was itself entered by a retry from
   * {@code TRANSIENT_FAILURE} (the same step failed again). Whether to retry once more is the caller's decision
   * (see {@link TurnGuards#modelRetryDelay}); the count is in the returned snapshot.
   *
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> TRANSIENT_FAILURE} is not an edge
   */
  public TransitionResult<ConversationSnapshot> transientFailure(ConversationState expected, String error) {
    return transientFailureCounted(expected, error, 0);
  }

  /**
   * Like {@link #transientFailure(ConversationState, String)} with the retry count given ({@code retryCount >= 1}),
   * for a failure whose retries are counted elsewhere: a tool call's retry (its attempt number minus one).
   *
   * @throws IllegalArgumentException if {@code retryCount} is below 1
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> TRANSIENT_FAILURE} is not an edge
   */
  public TransitionResult<ConversationSnapshot> transientFailure(ConversationState expected, String error,
      int retryCount) {
    if (retryCount < 1) {
      throw new IllegalArgumentException("retryCount must be >= 1, was " + retryCount);
    }
    return transientFailureCounted(expected, error, retryCount);
  }

  /** {@code retryCount} 0: counted from the conversation's own consecutive failures. */
  private TransitionResult<ConversationSnapshot> transientFailureCounted(ConversationState expected, String error,
      int retryCount) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(error, "error");
    ConversationState.TABLE.check(expected, ConversationState.TRANSIENT_FAILURE);
    return logged(cell.transition(expected, ConversationState.TRANSIENT_FAILURE,
        cur -> cur.next(ConversationState.TRANSIENT_FAILURE,
            new StateDetail.TransientFailure(error, retryCount > 0 ? retryCount : retryCountAfter(cur)),
            ConversationReasons.TRANSIENT_ERROR,
            ticker.read())));
  }

  /**
   * Moves from {@code expected} to {@code FAILED}, carrying the error for the user.
   *
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> FAILED} is not an edge
   */
  public TransitionResult<ConversationSnapshot> fail(ConversationState expected, String error) {
    return detailed(expected, new StateDetail.Failure(error), ConversationReasons.TURN_FAILED);
  }

  /**
   * Stops the turn from whatever busy state the conversation is in: {@code -> IDLE} for {@code reason} (an abort
   * by the user, or a guard: round-trip limit, loop detected, return-direct, model switched). Loses, changing
   * nothing, when no turn is under way (IDLE or FAILED). Cancelling the turn's tool calls is the caller's part.
   */
  public TransitionResult<ConversationSnapshot> stopTurn(Reason reason) {
    Objects.requireNonNull(reason, "reason");
    return logged(cell.transitionFromCurrent(ConversationState.IDLE, s -> s.state().isBusy(),
        cur -> cur.next(ConversationState.IDLE, null, reason, ticker.read())));
  }

  /** {@link #stopTurn} for a user's abort ({@link ConversationReasons#ABORTED}). */
  public TransitionResult<ConversationSnapshot> abort() {
    return stopTurn(ConversationReasons.ABORTED);
  }

  private TransitionResult<ConversationSnapshot> detailed(ConversationState expected, StateDetail detail,
      Reason reason) {
    Objects.requireNonNull(expected, "expected");
    ConversationState target = detail.state();
    ConversationState.TABLE.check(expected, target);
    return logged(cell.transition(expected, target, cur -> cur.next(target, detail, reason, ticker.read())));
  }

  private static int retryCountAfter(ConversationSnapshot cur) {
    ConversationSnapshot before = cur.previous();
    return before != null && before.detail() instanceof StateDetail.TransientFailure t ? t.retryCount() + 1 : 1;
  }

  private TransitionResult<ConversationSnapshot> logged(TransitionResult<ConversationSnapshot> r) {
    if (r.won() && log.isDebugEnabled()) {
      ConversationSnapshot s = r.snapshot();
      log.debug("conversation {} {} -> {} v{} turn {} round trip {} cause {}", id, s.previousState(), s.state(),
          s.version(), s.turn(), s.roundTrips(), s.reason());
    }
    return r;
  }

  private void publish(ConversationSnapshot s) {
    if (bus.hasSubscribers()) {
      bus.publish(new ConversationEvent(s));
    }
  }

  private Conversation started() {
    cell.drain();
    return this;
  }

  @Override
  public String toString() {
    ConversationSnapshot s = cell.get();
    return "Conversation[" + id + " " + s.state() + " v" + s.version() + " turn " + s.turn() + "]";
  }

  /**
   * Builds a {@link Conversation}. Not thread-safe; each setter checks its value at once and names the parameter.
   */
  public static final class Builder {
    private final String conversationId;
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private EventBus bus;

    private Builder(String conversationId) {
      Objects.requireNonNull(conversationId, "conversationId");
      if (conversationId.isBlank()) {
        throw new IllegalArgumentException("conversationId must not be blank");
      }
      this.conversationId = conversationId;
    }

    /** The wall clock, read once at creation (default: system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The monotonic ticker, read once per change (default: {@link System#nanoTime()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** The bus events go to (default: a new private bus); share it with the conversation's tool calls. */
    public Builder eventBus(EventBus bus) {
      this.bus = Objects.requireNonNull(bus, "bus");
      return this;
    }

    /** The conversation, IDLE at version 0; its creation event is published before this returns. */
    public Conversation build() {
      if (bus == null) {
        bus = EventBus.create();
      }
      return new Conversation(this).started();
    }
  }
}
