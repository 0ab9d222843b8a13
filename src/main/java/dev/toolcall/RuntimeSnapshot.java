package dev.toolcall;

import dev.toolcall.permission.ArgumentPattern;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The durable state of a {@link ToolCallRuntime} at one moment: every call that has not ended, the permission request
 * each waiting call waits on (with its absolute deadline), and the grants made "for the session". A plain, versioned
 * JSON document ({@link #toJson()}, {@link #fromJson(String)}; schema version {@value #SCHEMA_VERSION}) that
 * {@link ToolCallRuntime#restore} brings back into a fresh runtime after a restart.
 *
 * <p>Immutable; checked on construction, so a value of this type is always one a runtime can restore: no duplicate
 * ids, no negative versions, every call's path of states follows the matrix from {@code pending} to its state, and a
 * call waits for permission exactly when it has a request. Reading a document that breaks any of this, or is
 * truncated, names an unknown state or comes from a newer schema, throws {@link CorruptSnapshotException} naming the
 * bad entry, and restores nothing.
 *
 * @param schemaVersion the document's schema version ({@value #SCHEMA_VERSION})
 * @param takenAt when it was taken (wall clock)
 * @param calls the calls that had not ended, in the order they were scheduled
 * @param requestOrder the ids of the requests the waiting calls wait on, first asked first: the queue's order, which a
 *     restore keeps
 * @param sessionGrants the grants "for the session", oldest first per session
 * @param batches the batches the calls were scheduled in: each a list of indexes into {@code calls}, rising, all of
 *     one session; every call in exactly one. A restore gives each call back its batch, so an approved call waits only
 *     behind the calls of its own batch
 */
public record RuntimeSnapshot(int schemaVersion, Instant takenAt, List<Call> calls, List<String> requestOrder,
    List<SessionGrant> sessionGrants, List<List<Integer>> batches) {

  /**
   * A document without batches: each run of consecutive calls of one session is taken as one batch (what documents of
   * schema 1 and stores that keep calls one by one give).
   */
  public RuntimeSnapshot(int schemaVersion, Instant takenAt, List<Call> calls, List<String> requestOrder,
      List<SessionGrant> sessionGrants) {
    this(schemaVersion, takenAt, calls, requestOrder, sessionGrants, consecutiveRuns(calls));
  }

  /** Each run of consecutive calls of one session as one batch. */
  static List<List<Integer>> consecutiveRuns(List<Call> calls) {
    List<List<Integer>> out = new java.util.ArrayList<>();
    List<Integer> run = null;
    for (int i = 0; i < calls.size(); i++) {
      if (run == null || !calls.get(run.get(0)).sessionId().equals(calls.get(i).sessionId())) {
        run = new java.util.ArrayList<>();
        out.add(run);
      }
      run.add(i);
    }
    return out;
  }

  /**
   * The schema version this library writes. It reads this one and version 1, whose grants spelled their arguments
   * in one string that could not tell every pattern apart: those are read never wider than written
   * ({@link ArgumentPattern#fromLegacyForm}).
   */
  public static final int SCHEMA_VERSION = 2;

  /** Checks the invariants above. */
  public RuntimeSnapshot {
    if (schemaVersion != SCHEMA_VERSION) {
      throw new CorruptSnapshotException("schemaVersion", "schema version " + schemaVersion + " is not "
          + SCHEMA_VERSION + (schemaVersion > SCHEMA_VERSION ? " (written by a newer version of the library)" : ""));
    }
    Objects.requireNonNull(takenAt, "takenAt");
    calls = List.copyOf(Objects.requireNonNull(calls, "calls"));
    requestOrder = List.copyOf(Objects.requireNonNull(requestOrder, "requestOrder"));
    sessionGrants = List.copyOf(Objects.requireNonNull(sessionGrants, "sessionGrants"));
    batches = checkedBatches(Objects.requireNonNull(batches, "batches"), calls);
    Set<String> ids = new HashSet<>();
    Set<String> requests = new HashSet<>();
    for (int i = 0; i < calls.size(); i++) {
      Call c = calls.get(i);
      if (c.state().isTerminal()) {
        throw new CorruptSnapshotException("calls[" + i + "]", "call '" + c.callId() + "' is "
            + c.state().wireName() + "; a snapshot holds calls that have not ended");
      }
      if (!ids.add(c.sessionId() + "\u0000" + c.callId())) {
        throw new CorruptSnapshotException("calls[" + i + "]", "call id '" + c.callId() + "' appears twice in session '"
            + c.sessionId() + "'");
      }
      checkNear(takenAt, c.createdAt(), "calls[" + i + "]", "createdAt");
      for (Step step : c.path()) {
        checkNear(takenAt, step.at(), "calls[" + i + "]", "a step's at");
      }
      if (c.permission() != null) {
        checkNear(takenAt, c.permission().askedAt(), "calls[" + i + "].permission", "askedAt");
      }
      if (c.permission() != null && !requests.add(c.permission().requestId())) {
        throw new CorruptSnapshotException("calls[" + i + "].permission", "request id '"
            + c.permission().requestId() + "' appears twice");
      }
    }
    if (!new HashSet<>(requestOrder).equals(requests) || requestOrder.size() != requests.size()) {
      throw new CorruptSnapshotException("requestOrder", "must list each waiting call's request id once, was "
          + requestOrder + " for requests " + requests);
    }
    Set<String> grants = new HashSet<>();
    for (int i = 0; i < sessionGrants.size(); i++) {
      SessionGrant g = sessionGrants.get(i);
      if (!grants.add(g.sessionId() + "\u0000" + g.grantId())) {
        throw new CorruptSnapshotException("sessionGrants[" + i + "]", "grant id '" + g.grantId()
            + "' appears twice in session '" + g.sessionId() + "'");
      }
    }
  }

  /** How far from {@code takenAt} a moment a call lived through may be: a runtime's ticks hold about 146 years. */
  static final Duration MOMENT_RANGE = Duration.ofDays(100 * 365L);

  private static void checkNear(Instant takenAt, Instant t, String where, String what) {
    if (t.isBefore(takenAt.minus(MOMENT_RANGE)) || t.isAfter(takenAt.plus(MOMENT_RANGE))) {
      throw new CorruptSnapshotException(where, what + " " + t + " is more than 100 years from takenAt " + takenAt
          + "; no call lives that long, and a runtime's clock could not hold it exactly");
    }
  }

  private static List<List<Integer>> checkedBatches(List<List<Integer>> batches, List<Call> calls) {
    boolean[] seen = new boolean[calls.size()];
    List<List<Integer>> out = new java.util.ArrayList<>(batches.size());
    for (int b = 0; b < batches.size(); b++) {
      List<Integer> batch = List.copyOf(Objects.requireNonNull(batches.get(b), "batch"));
      String where = "batches[" + b + "]";
      if (batch.isEmpty()) {
        throw new CorruptSnapshotException(where, "a batch holds at least one call");
      }
      for (int k = 0; k < batch.size(); k++) {
        int i = batch.get(k);
        if (i < 0 || i >= calls.size() || seen[i] || (k > 0 && i <= batch.get(k - 1))) {
          throw new CorruptSnapshotException(where, "must list indexes of calls, rising, each call in one batch"
              + " only; was " + batch + " for " + calls.size() + " calls");
        }
        seen[i] = true;
        if (!calls.get(i).sessionId().equals(calls.get(batch.get(0)).sessionId())) {
          throw new CorruptSnapshotException(where, "holds calls of two sessions");
        }
      }
      out.add(batch);
    }
    for (int i = 0; i < seen.length; i++) {
      if (!seen[i]) {
        throw new CorruptSnapshotException("batches", "call " + i + " is in no batch");
      }
    }
    return List.copyOf(out);
  }

  /**
   * One call that had not ended.
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
  public record Call(String sessionId, String callId, String toolName, String parentCallId, ToolCallOrigin origin,
      Instant createdAt, ToolCallState state, int version, String arguments, int argumentsVersion, int attempt,
      List<Step> path, PermissionWait permission, Outcome outcome, String label) {

    /** A call whose label is its id. */
    public Call(String sessionId, String callId, String toolName, String parentCallId, ToolCallOrigin origin,
        Instant createdAt, ToolCallState state, int version, String arguments, int argumentsVersion, int attempt,
        List<Step> path, PermissionWait permission, Outcome outcome) {
      this(sessionId, callId, toolName, parentCallId, origin, createdAt, state, version, arguments, argumentsVersion,
          attempt, path, permission, outcome, callId);
    }

    /** A call that has not ended (no outcome). */
    public Call(String sessionId, String callId, String toolName, String parentCallId, ToolCallOrigin origin,
        Instant createdAt, ToolCallState state, int version, String arguments, int argumentsVersion, int attempt,
        List<Step> path, PermissionWait permission) {
      this(sessionId, callId, toolName, parentCallId, origin, createdAt, state, version, arguments, argumentsVersion,
          attempt, path, permission, null);
    }

    /** Checks the parts; a violation is a {@link CorruptSnapshotException} naming the call. */
    public Call {
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
  }

  /**
   * A call's entry as a runtime snapshot holds it, from its current snapshot (which must not be terminal).
   *
   * @throws IllegalArgumentException if {@code snapshot} is terminal
   */
  public static Call callOf(ToolCallSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    if (snapshot.isTerminal()) {
      throw new IllegalArgumentException("a snapshot holds calls that have not ended; " + snapshot.callId() + " is "
          + snapshot.state().wireName());
    }
    return RuntimeRestore.callOf(snapshot, java.util.Map.of());
  }

  /**
   * A call's entry as a store keeps it, for any version, ended or not: {@link #callOf} plus, once it has ended, its
   * outcome.
   */
  public static Call storedEntry(ToolCallSnapshot snapshot) {
    return RuntimeRestore.callOf(Objects.requireNonNull(snapshot, "snapshot"), java.util.Map.of());
  }

  /** One call's entry as a JSON object, in the document's form (what a store keeps per call). */
  public static String callJson(Call call) {
    return RuntimeSnapshotJson.callJson(Objects.requireNonNull(call, "call"));
  }

  /**
   * Reads one call's entry written by {@link #callJson}.
   *
   * @throws CorruptSnapshotException naming the entry, if the text is not such an entry
   */
  public static Call callFromJson(String json) {
    return RuntimeSnapshotJson.readCall(Objects.requireNonNull(json, "json"));
  }

  /**
   * A document of {@code calls} (each with its request, if it waits) taken at {@code takenAt}, without session grants;
   * the waiting calls' requests queue in the order they were asked. What a store that keeps each call's entry gives a
   * restarting runtime.
   */
  public static RuntimeSnapshot ofCalls(Instant takenAt, List<Call> calls) {
    List<Call> waiting = new java.util.ArrayList<>();
    for (Call c : calls) {
      if (c.permission() != null) {
        waiting.add(c);
      }
    }
    waiting.sort(java.util.Comparator.comparing(c -> c.permission().askedAt()));
    return new RuntimeSnapshot(SCHEMA_VERSION, takenAt, calls,
        waiting.stream().map(c -> c.permission().requestId()).toList(), List.of());
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
   * A grant made "approve for session".
   *
   * @param sessionId the session it holds in
   * @param grantId its id
   * @param toolName the tool it covers
   * @param arguments the arguments it covers (written as its kind and value apart, so it reads back exactly)
   * @param createdAt when it was made
   * @param expiresAt when it ends, or null
   */
  public record SessionGrant(String sessionId, String grantId, String toolName, ArgumentPattern arguments,
      Instant createdAt, Instant expiresAt) {
    /** Checks the parts. */
    public SessionGrant {
      if (sessionId == null || sessionId.isBlank() || grantId == null || grantId.isBlank() || toolName == null
          || toolName.isBlank() || arguments == null || createdAt == null) {
        throw new CorruptSnapshotException("grant '" + grantId + "'",
            "sessionId, grantId, toolName, arguments and createdAt are required");
      }
    }
  }

  /** The document as JSON text (UTF-8 when written), fields in a fixed order. */
  public String toJson() {
    return RuntimeSnapshotJson.write(this);
  }

  /**
   * Reads a document written by {@link #toJson()}.
   *
   * @throws CorruptSnapshotException naming the bad entry, if the text is not such a document (truncated, an unknown
   *     field or state, a newer schema, a broken invariant)
   */
  public static RuntimeSnapshot fromJson(String json) {
    return RuntimeSnapshotJson.read(Objects.requireNonNull(json, "json"));
  }

  /**
   * Writes the document to {@code file} atomically: to a temporary file beside it, forced to disk, then moved over
   * {@code file} in one step, so a crash leaves the old document or the new one, never a mix.
   */
  public void writeTo(Path file) throws IOException {
    Objects.requireNonNull(file, "file");
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try {
      try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE,
          java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
        ch.write(java.nio.ByteBuffer.wrap(toJson().getBytes(StandardCharsets.UTF_8)));
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Reads a document from {@code file}.
   *
   * @throws CorruptSnapshotException if its content is not a document this library can restore
   */
  public static RuntimeSnapshot readFrom(Path file) throws IOException {
    return fromJson(Files.readString(Objects.requireNonNull(file, "file"), StandardCharsets.UTF_8));
  }
}
