package dev.toolcall;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The durable record of one call: what a runtime snapshot keeps of a call that had not ended, and what a
 * {@link CallStore} keeps of every version of a call. Immutable; its constructor checks the invariants a stored
 * call must hold and throws {@link CorruptSnapshotException} naming the call when one does not.
 *
 * @param sessionId its session
 * @param callId the id the model gave it
 * @param toolName its tool
 * @param parentCallId the call it is nested in, or null
 * @param origin who asked for it
 * @param createdAt when it was created
 * @param state its state: never terminal
 * @param version its version (the compare-and-set version), at least that of the last step of {@code path}
 * @param arguments its arguments, as raw text
 * @param argumentsVersion the version at which its arguments were last set
 * @param attempt its execution attempt (0 before the first)
 * @param path its state changes, from {@code pending} at version 0 to {@code state}: versions rising, each step an
 *     edge of the matrix
 * @param permission the request it waits on: present exactly in {@code permission_pending}
 * @param outcome how it ended: present exactly in a terminal state. A runtime snapshot never holds an ended call;
 *     a store keeps the same entry for every version of a call, ended ones too. A completed call's result is kept
 *     as the text the model reads.
 * @param label the id the provider sent for the call (see {@link ToolCallIdentity#label()}); its call id unless
 *     the library minted that
 */
public record CallRecord(String sessionId, String callId, String toolName, String parentCallId, ToolCallOrigin origin,
    Instant createdAt, ToolCallState state, int version, String arguments, int argumentsVersion, int attempt,
    List<Step> path, PermissionWait permission, Outcome outcome, String label) {

  /** A call whose label is its id. */
  public CallRecord(String sessionId, String callId, String toolName, String parentCallId, ToolCallOrigin origin,
      Instant createdAt, ToolCallState state, int version, String arguments, int argumentsVersion, int attempt,
      List<Step> path, PermissionWait permission, Outcome outcome) {
    this(sessionId, callId, toolName, parentCallId, origin, createdAt, state, version, arguments, argumentsVersion,
        attempt, path, permission, outcome, callId);
  }

  /** A call that has not ended (no outcome). */
  public CallRecord(String sessionId, String callId, String toolName, String parentCallId, ToolCallOrigin origin,
      Instant createdAt, ToolCallState state, int version, String arguments, int argumentsVersion, int attempt,
      List<Step> path, PermissionWait permission) {
    this(sessionId, callId, toolName, parentCallId, origin, createdAt, state, version, arguments, argumentsVersion,
        attempt, path, permission, null);
  }

  /** Checks the parts; a violation is a {@link CorruptSnapshotException} naming the call. */
  public CallRecord {
    String where = "call '" + callId + "'";
    if (sessionId == null || sessionId.isBlank() || callId == null || callId.isBlank() || toolName == null
        || toolName.isBlank()) {
      throw new CorruptSnapshotException(where, "sessionId, callId and toolName must be non-blank");
    }
    if (parentCallId != null && (parentCallId.isBlank() || parentCallId.equals(callId))) {
      throw new CorruptSnapshotException(where, "parentCallId must be non-blank and not the call itself");
    }
    if (origin == null || createdAt == null || state == null || arguments == null || path == null) {
      throw new CorruptSnapshotException(where, "origin, createdAt, state, arguments and path are required");
    }
    path = List.copyOf(path);
    if (label == null) {
      label = callId;
    }
    if (state.isTerminal() != (outcome != null) || outcome != null && outcome.state() != state) {
      throw new CorruptSnapshotException(where, "an outcome is present exactly in a terminal state, and is of"
          + " that state; state is " + state.wireName() + (outcome == null ? " without one" : " with " + outcome));
    }
    if (version < 0 || argumentsVersion < 0 || attempt < 0 || argumentsVersion > version) {
      throw new CorruptSnapshotException(where, "version " + version + ", argumentsVersion " + argumentsVersion
          + " and attempt " + attempt + " must be >= 0, with argumentsVersion <= version");
    }
    if (path.isEmpty() || path.get(0).state() != ToolCallState.PENDING || path.get(0).version() != 0
        || path.get(path.size() - 1).state() != state) {
      throw new CorruptSnapshotException(where, "path must run from pending at version 0 to the call's state "
          + state.wireName() + ", was " + path);
    }
    for (int i = 1; i < path.size(); i++) {
      Step a = path.get(i - 1);
      Step b = path.get(i);
      if (!ToolCallState.TABLE.allows(a.state(), b.state())) {
        throw new CorruptSnapshotException(where, "path step " + a.state().wireName() + " -> "
            + b.state().wireName() + " is not an edge of the state matrix");
      }
      if (b.version() <= a.version()) {
        throw new CorruptSnapshotException(where, "path versions must rise: " + a.version() + " then "
            + b.version());
      }
    }
    if (version < path.get(path.size() - 1).version()) {
      throw new CorruptSnapshotException(where, "version " + version + " is below its last state change's "
          + path.get(path.size() - 1).version());
    }
    if ((state == ToolCallState.PERMISSION_PENDING) != (permission != null)) {
      throw new CorruptSnapshotException(where, "a permission request is present exactly in permission_pending;"
          + " state is " + state.wireName() + (permission == null ? " without one" : " with one"));
    }
    if (state == ToolCallState.RUNNING && attempt < 1) {
      throw new CorruptSnapshotException(where, "a running call has attempt >= 1, was " + attempt);
    }
  }

  /**
   * The permission request a call waits on.
   *
   * @param requestId the request's id (decisions name it; it stays the same across a restore)
   * @param askedAt when it was opened
   * @param deadline when it is denied if nobody answers (absolute: time spent down counts)
   */
  public record PermissionWait(String requestId, Instant askedAt, Instant deadline) {
    /** Checks the parts. */
    public PermissionWait {
      if (requestId == null || requestId.isBlank() || askedAt == null || deadline == null) {
        throw new CorruptSnapshotException("request '" + requestId + "'",
            "requestId must be non-blank, askedAt and deadline present");
      }
      if (deadline.isBefore(askedAt)) {
        throw new CorruptSnapshotException("request '" + requestId + "'", "deadline " + deadline
            + " is before askedAt " + askedAt);
      }
    }
  }

  /**
   * One state change of a call.
   *
   * @param state the state entered
   * @param version the version that entered it
   * @param at when
   */
  public record Step(ToolCallState state, int version, Instant at) {
    /** Checks the parts. */
    public Step {
      if (state == null || at == null || version < 0) {
        throw new CorruptSnapshotException("path step", "state and at are required and version must be >= 0, was "
            + state + " v" + version + " at " + at);
      }
    }
  }

  /**
   * The tick of {@code t} on a ticker that read {@code baseTick} at {@code base}: how a stored wall-clock moment
   * becomes a reading of a runtime's {@link Ticker} (only differences of ticks mean anything). Moments more than
   * about 292 years away read as far as a tick can say.
   *
   * @param base a moment the ticker was read at
   * @param baseTick what it read then
   * @param t the moment to convert
   * @return the tick {@code t} had
   */
  public static long tickAt(Instant base, long baseTick, Instant t) {
    Duration d = Duration.between(base, t);
    long nanos;
    try {
      nanos = d.toNanos();
    } catch (ArithmeticException e) { // more than 292 years away: as far as a tick can say
      nanos = d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
    return baseTick + nanos;
  }
}
