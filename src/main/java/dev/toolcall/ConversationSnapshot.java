package dev.toolcall;

import dev.toolcall.fsm.Versioned;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One version of a conversation: an immutable value, read without locks and replaced whole by one compare-and-set
 * of its {@link dev.toolcall.conversation.Conversation}.
 *
 * <p>Invariants, checked on construction (a violation throws {@link IllegalArgumentException}):
 * <ul>
 *   <li>{@link #detail()} is present exactly in {@link ConversationState#HANDLING_TOOL_ERROR},
 *       {@link ConversationState#TRANSIENT_FAILURE} and {@link ConversationState#FAILED}, and is of that state;</li>
 *   <li>the version is never negative, and {@link #previous()} is an older version or null. Each version links the
 *       one it replaced, except the first version of a turn: it links a copy of the version before it that has no
 *       previous, so a long-lived conversation keeps one turn of history, not all of them;</li>
 *   <li>{@code turn >= 0}, {@code roundTrips >= 0}; turn 0 (no user message yet) has no round trip.</li>
 * </ul>
 * Counters, maintained by {@link #next}: {@link #turn()} rises by one on every new user message (entering
 * {@link ConversationState#PROCESSING_USER_MESSAGE}), which resets {@link #roundTrips()}; {@link #roundTrips()} rises
 * by one on every request sent to the model that is not a retry (entering
 * {@link ConversationState#AWAITING_LLM_RESPONSE} from anything but {@link ConversationState#TRANSIENT_FAILURE}).
 * Times are ticks of the conversation's monotonic ticker; {@link #timestamp()} turns them into instants through the
 * one clock reading taken at creation.
 *
 * @param conversationId the conversation's id (non-blank); also the session id of its tool calls
 * @param createdAt the wall-clock time of creation
 * @param createdTick the ticker reading taken at creation
 * @param state the state in this version
 * @param version 0 at creation, one more per change
 * @param detail the state's payload, or null (see above)
 * @param turn the number of user messages so far (the current turn's number)
 * @param roundTrips the model requests sent in this turn, retries not counted
 * @param reason why this version was made
 * @param tick the ticker reading when this version was made
 * @param previous the version this one replaced, null for version 0 and where history was cut (see above)
 */
public record ConversationSnapshot(String conversationId, Instant createdAt, long createdTick,
    ConversationState state, int version, StateDetail detail, int turn, int roundTrips, Reason reason, long tick,
    ConversationSnapshot previous) implements Versioned<ConversationState, ConversationSnapshot> {

  private static final Set<ConversationState> WITH_DETAIL = EnumSet.of(ConversationState.HANDLING_TOOL_ERROR,
      ConversationState.TRANSIENT_FAILURE, ConversationState.FAILED);

  /** Checks the invariants above. */
  public ConversationSnapshot {
    Objects.requireNonNull(conversationId, "conversationId");
    if (conversationId.isBlank()) {
      throw new IllegalArgumentException("conversationId must not be blank");
    }
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reason, "reason");
    if (WITH_DETAIL.contains(state) != (detail != null) || (detail != null && detail.state() != state)) {
      throw new IllegalArgumentException("state " + state + " does not agree with detail " + detail
          + " (a detail is present exactly in " + WITH_DETAIL + ", and of that state)");
    }
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0, was " + version);
    }
    if (previous != null && previous.version >= version) {
      throw new IllegalArgumentException("previous version " + previous.version + " must be below " + version);
    }
    if (turn < 0 || roundTrips < 0 || (turn == 0 && roundTrips != 0)) {
      throw new IllegalArgumentException("turn " + turn + " and roundTrips " + roundTrips
          + " must be >= 0, with no round trip before the first turn");
    }
  }

  /** The first snapshot: version 0, {@link ConversationState#IDLE}, turn 0. */
  public static ConversationSnapshot initial(String conversationId, Instant createdAt, long createdTick) {
    return new ConversationSnapshot(conversationId, createdAt, createdTick, ConversationState.IDLE, 0, null, 0, 0,
        ConversationReasons.CREATED, createdTick, null);
  }

  /**
   * The next version, in {@code target} with {@code detail} (null unless the target carries one), made for
   * {@code reason} at {@code tick}; the counters follow the rules above. Pure. Does not check the edge (the
   * {@link dev.toolcall.conversation.Conversation} does).
   */
  public ConversationSnapshot next(ConversationState target, StateDetail detail, Reason reason, long tick) {
    return next(target, detail, reason, tick, this);
  }

  /** {@link #next}, linking {@code previous} (this or {@link #withoutHistory()}) as the version it replaced. */
  public ConversationSnapshot next(ConversationState target, StateDetail detail, Reason reason, long tick,
      ConversationSnapshot previous) {
    int nextTurn = turn;
    int nextRoundTrips = roundTrips;
    if (target == ConversationState.PROCESSING_USER_MESSAGE) {
      nextTurn++;
      nextRoundTrips = 0;
    } else if (target == ConversationState.AWAITING_LLM_RESPONSE && state != ConversationState.TRANSIENT_FAILURE) {
      nextRoundTrips++;
    }
    return new ConversationSnapshot(conversationId, createdAt, createdTick, target, version + 1, detail, nextTurn,
        nextRoundTrips, reason, tick, previous);
  }

  /** This version without its history: the same values, no previous (what a new turn links, and what a store keeps). */
  public ConversationSnapshot withoutHistory() {
    return previous == null ? this : new ConversationSnapshot(conversationId, createdAt, createdTick, state, version,
        detail, turn, roundTrips, reason, tick, null);
  }

  /** The detail, if this state carries one. */
  public Optional<StateDetail> detailIfPresent() {
    return Optional.ofNullable(detail);
  }

  /** The error of {@link ConversationState#HANDLING_TOOL_ERROR}, {@code TRANSIENT_FAILURE} or {@code FAILED}. */
  public Optional<String> error() {
    return detail == null ? Optional.empty() : Optional.of(detail.error());
  }

  /**
   * The retry count of {@link ConversationState#TRANSIENT_FAILURE} (1 for the first); 0 in every other state.
   */
  public int retryCount() {
    return detail instanceof StateDetail.TransientFailure t ? t.retryCount() : 0;
  }

  /** The state before this version, or null when no earlier version is kept (version 0 included). */
  public ConversationState previousState() {
    return previous == null ? null : previous.state;
  }

  /** The wall-clock time this version was made. */
  public Instant timestamp() {
    return createdAt.plusNanos(tick - createdTick);
  }

  /**
   * Every retained version up to this one, oldest first: this turn's, and the version before the turn began.
   * Allocates; not for hot paths.
   */
  public List<ConversationSnapshot> versions() {
    ArrayList<ConversationSnapshot> out = new ArrayList<>(version + 1);
    for (ConversationSnapshot s = this; s != null; s = s.previous) {
      out.add(s);
    }
    Collections.reverse(out);
    return Collections.unmodifiableList(out);
  }

  @Override
  public String toString() {
    return "ConversationSnapshot[" + conversationId + " " + state + " v" + version + " turn " + turn
        + " roundTrips " + roundTrips + (detail == null ? "" : " " + detail) + " by " + reason.code() + "]";
  }
}
