package dev.toolcall;

import dev.toolcall.fsm.Versioned;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One version of a tool call: an immutable value, read without locks and replaced whole by one compare-and-set.
 *
 * <p>Invariants, checked on construction: a terminal state has an {@link Outcome} of that state and a non-terminal
 * state has none; the version is never negative, and {@link #previous()} is an older version or null. Each
 * snapshot links the one it replaced, and that chain is the call's retained history, with two exceptions that bound
 * its memory, each for versions already handed to listeners, so that a version may link an older one than
 * {@code version - 1}: of a stretch of live output ({@link Change.OutputAppended}) only the latest chunk is kept (it
 * carries a tail of the output and its totals); and a version that leaves {@link ToolCallState#PENDING} links the
 * version that entered it, not the {@link Change.ArgumentsModified} versions made while pending (the arguments a
 * model streamed, then parsed: the new version carries them, and {@link #history()} is unchanged). Version 0 has no previous; a later version without one
 * is a snapshot whose earlier history was not kept (restored from a store). Times are ticks of the
 * call's monotonic {@link Ticker}; {@link #timestamp()} turns them into wall-clock instants through the one clock
 * reading taken at creation.
 *
 * <p>A snapshot holds plain values only (no listeners, futures or threads), so a store can persist and restore it.
 *
 * @param identity who the call is
 * @param state its state in this version
 * @param version 0 at creation, one more per change
 * @param arguments the arguments in this version
 * @param argumentsVersion the version at which the arguments were last set (a decision names it)
 * @param attempt the execution attempt: 0 before the first, 1 for the first, 2 for the first retry
 * @param outcome how it ended; present exactly when the state is terminal
 * @param change what produced this version
 * @param tick the ticker reading when this version was made
 * @param previous the version this one replaced (older when live output was let go), null when none is kept
 */
public record ToolCallSnapshot(ToolCallIdentity identity, ToolCallState state, int version, ToolArguments arguments,
    int argumentsVersion, int attempt, Outcome outcome, Change change, long tick, ToolCallSnapshot previous)
    implements Versioned<ToolCallState, ToolCallSnapshot> {

  /** Checks the invariants above. */
  public ToolCallSnapshot {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(change, "change");
    if (state.isTerminal() != (outcome != null) || (outcome != null && outcome.state() != state)) {
      throw new IllegalArgumentException("state " + state + " does not agree with outcome " + outcome);
    }
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0, was " + version);
    }
    if (previous != null && previous.version >= version) {
      throw new IllegalArgumentException("previous version " + previous.version + " must be below " + version);
    }
  }

  /** The first snapshot of a call: version 0, {@link ToolCallState#PENDING}. */
  public static ToolCallSnapshot initial(ToolCallIdentity identity, ToolArguments arguments) {
    return new ToolCallSnapshot(identity, ToolCallState.PENDING, 0, arguments, 0, 0, null, Change.Created.INSTANCE,
        identity.createdTick(), null);
  }

  /** The next version in {@code target} (with {@code outcome} when terminal), made by {@code change}. */
  public ToolCallSnapshot next(ToolCallState target, Change change, Outcome outcome, long tick) {
    return new ToolCallSnapshot(identity, target, nextVersion(), arguments, argumentsVersion,
        target == ToolCallState.RUNNING && state != ToolCallState.RUNNING ? Math.max(1, attempt) : attempt,
        outcome, change, tick, this);
  }

  /** The next version with new arguments, same state. */
  public ToolCallSnapshot withArguments(ToolArguments newArguments, String by, long tick) {
    int v = nextVersion();
    return new ToolCallSnapshot(identity, state, v, newArguments, v, attempt, outcome,
        new Change.ArgumentsModified(arguments, by), tick, this);
  }

  /** The next version, same state, recording {@code change} and setting the attempt. */
  public ToolCallSnapshot withChange(Change change, int newAttempt, long tick) {
    return new ToolCallSnapshot(identity, state, nextVersion(), arguments, argumentsVersion, newAttempt, outcome,
        change, tick, this);
  }

  /** {@code version + 1}, or a clear error when the version is the last one an {@code int} holds. */
  private int nextVersion() {
    if (version == Integer.MAX_VALUE) {
      throw new IllegalStateException("call " + identity.sessionId() + "/" + identity.callId() + " is at version "
          + version + ", the last one: it cannot change again");
    }
    return version + 1;
  }

  /** The call id the model gave. */
  public String callId() {
    return identity.callId();
  }

  /** The tool's name. */
  public String toolName() {
    return identity.toolName();
  }

  /**
   * Whether the call's execution was started: it reached RUNNING to run its tool, not only to be validated
   * ({@link Reason#VALIDATING}). A call that failed validation went PENDING -&gt; RUNNING -&gt; FAILED without its tool
   * ever being entered; a UI shows it as "validating", not "running".
   */
  public boolean toolStarted() {
    for (ToolCallSnapshot v = this; v != null; v = v.previous) {
      if (v.state == ToolCallState.RUNNING && v.previous != null && v.previous.state != ToolCallState.RUNNING
          && !isValidating(v.change)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code change} is the move to RUNNING for validation only. */
  static boolean isValidating(Change change) {
    return change instanceof Reason r && r.code().equals(Reason.VALIDATING.code());
  }

  /** Whether the state is terminal (then {@link #outcome()} is present). */
  public boolean isTerminal() {
    return outcome != null;
  }

  /**
   * Whether this version leaves the call enough versions to end by its own path, {@link Integer#MAX_VALUE} being the
   * last one a version can take: always for an ended call; for one that has not ended, when
   * {@link #versionsToEnd(ToolCallState)} of its state still fit. A call that cannot is ended before anything else
   * moves it (a restore ends it at once), and no change that keeps a call's state (live output, edited arguments, a
   * retry's record) is made when the call could not end after it; so a call is never approved, or started, into a
   * version it could never leave.
   */
  public boolean canEnd() {
    return isTerminal() || version <= Integer.MAX_VALUE - versionsToEnd(state);
  }

  /**
   * The versions a call in {@code state} needs to end by its own path, each state change one: running, its end (1);
   * approved, running and its end (2); waiting for permission, approved, running and its end (3); pending, asked as
   * well (4); ended, none.
   */
  public static int versionsToEnd(ToolCallState state) {
    return switch (java.util.Objects.requireNonNull(state, "state")) {
      case RUNNING -> 1;
      case PERMISSION_APPROVED -> 2;
      case PERMISSION_PENDING -> 3;
      case PENDING -> 4;
      case PERMISSION_DENIED, COMPLETED, FAILED, CANCELLED -> 0;
    };
  }

  /** The outcome, when terminal. */
  public Optional<Outcome> outcomeIfTerminal() {
    return Optional.ofNullable(outcome);
  }

  /** The wall-clock time this version was made. */
  public Instant timestamp() {
    return identity.instantOf(tick);
  }

  /** The state before this version (the same as {@link #state()} for changes that keep it; null for version 0). */
  public ToolCallState previousState() {
    return previous == null ? null : previous.state;
  }

  /** Whether this version changed the state. */
  public boolean isStateChange() {
    return previous != null && previous.state != state;
  }

  /**
   * Every retained version up to this one, oldest first: from version 0 unless the history was cut, without the
   * live-output versions that were let go (see the class description). Allocates; not for hot paths.
   */
  public List<ToolCallSnapshot> versions() {
    ArrayList<ToolCallSnapshot> out = new ArrayList<>(); // sized by what is kept, never by the version number
    for (ToolCallSnapshot s = this; s != null; s = s.previous) {
      out.add(s);
    }
    Collections.reverse(out);
    return Collections.unmodifiableList(out);
  }

  /** The state transitions that led here, oldest first (changes that kept the state are left out). */
  public List<StateTransition> history() {
    ArrayList<StateTransition> out = new ArrayList<>();
    for (ToolCallSnapshot s : versions()) {
      if (s.isStateChange()) {
        out.add(new StateTransition(s.previous.state, s.state, s.change, s.version, s.timestamp(),
            Duration.ofNanos(s.tick - s.previous.lastStateChangeTick())));
      }
    }
    return Collections.unmodifiableList(out);
  }

  /** How long the call has been in its current state, as of the ticker reading {@code now}. */
  public Duration timeInState(long now) {
    return Duration.ofNanos(Math.max(0, now - lastStateChangeTick()));
  }

  private long lastStateChangeTick() {
    ToolCallSnapshot s = this;
    while (s.previous != null && s.previous.state == s.state) {
      s = s.previous;
    }
    return s.tick;
  }

  @Override
  public String toString() {
    return "ToolCallSnapshot[" + identity.callId() + " " + identity.toolName() + " " + state + " v" + version
        + " attempt " + attempt + (outcome == null ? "" : " " + outcome) + " by " + change + "]";
  }
}
