package dev.toolcall.runtime;

import dev.toolcall.CallRecord;
import dev.toolcall.CorruptSnapshotException;
import dev.toolcall.ToolCallSnapshot;
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
public record RuntimeSnapshot(int schemaVersion, Instant takenAt, List<CallRecord> calls, List<String> requestOrder,
    List<SessionGrant> sessionGrants, List<List<Integer>> batches) {

  /**
   * A document without batches: each run of consecutive calls of one session is taken as one batch (what documents of
   * schema 1 and stores that keep calls one by one give).
   */
  public RuntimeSnapshot(int schemaVersion, Instant takenAt, List<CallRecord> calls, List<String> requestOrder,
      List<SessionGrant> sessionGrants) {
    this(schemaVersion, takenAt, calls, requestOrder, sessionGrants, consecutiveRuns(calls));
  }

  /** Each run of consecutive calls of one session as one batch. */
  static List<List<Integer>> consecutiveRuns(List<CallRecord> calls) {
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
      CallRecord c = calls.get(i);
      if (c.state().isTerminal()) {
        throw new CorruptSnapshotException("calls[" + i + "]", "call '" + c.callId() + "' is "
            + c.state().wireName() + "; a snapshot holds calls that have not ended");
      }
      if (c.version() == Integer.MAX_VALUE) {
        throw new CorruptSnapshotException("calls[" + i + "]", "call '" + c.callId() + "' is "
            + c.state().wireName() + " at version " + c.version() + ", the last one, so it could never end");
      }
      if (!ids.add(c.sessionId() + "\u0000" + c.callId())) {
        throw new CorruptSnapshotException("calls[" + i + "]", "call id '" + c.callId() + "' appears twice in session '"
            + c.sessionId() + "'");
      }
      for (CallRecord.Step step : c.path()) {
        checkNear(c.createdAt(), step.at(), "calls[" + i + "]", "a step's at");
      }
      if (c.permission() != null) {
        checkNear(c.createdAt(), c.permission().askedAt(), "calls[" + i + "].permission", "askedAt");
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

  /**
   * How far from its call's {@code createdAt} a moment the call lived through may be, either way: what a difference of
   * a runtime's ticks holds (nanoseconds in a {@code long}, about 292 years). A runtime holds each of a call's moments
   * as such a difference from its creation, so every snapshot it takes is within it, whenever it is taken: a document
   * {@link ToolCallRuntime#restore} accepts can be snapshotted again, at any later time, and restored.
   */
  static final Duration MOMENT_RANGE = Duration.ofNanos(Long.MAX_VALUE);

  /**
   * Whether {@code t} is within {@link #MOMENT_RANGE} of {@code createdAt}: the one check of a call's moments, on
   * reading a document and on turning it into ticks.
   */
  static boolean withinRange(Instant createdAt, Instant t) {
    Duration d = Duration.between(createdAt, t);
    return d.compareTo(MOMENT_RANGE) <= 0 && d.compareTo(MOMENT_RANGE.negated()) >= 0;
  }

  private static void checkNear(Instant createdAt, Instant t, String where, String what) {
    if (!withinRange(createdAt, t)) {
      throw new CorruptSnapshotException(where, what + " " + t + " is more than " + MOMENT_RANGE.toDays() / 365
          + " years from the call's createdAt " + createdAt + "; no call lives that long, and a runtime's clock could"
          + " not hold it exactly");
    }
  }

  private static List<List<Integer>> checkedBatches(List<List<Integer>> batches, List<CallRecord> calls) {
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
   * A call's entry as a runtime snapshot holds it, from its current snapshot (which must not be terminal).
   *
   * @throws IllegalArgumentException if {@code snapshot} is terminal
   */
  public static CallRecord callOf(ToolCallSnapshot snapshot) {
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
  public static CallRecord storedEntry(ToolCallSnapshot snapshot) {
    return RuntimeRestore.callOf(Objects.requireNonNull(snapshot, "snapshot"), java.util.Map.of());
  }

  /** One call's entry as a JSON object, in the document's form (what a store keeps per call). */
  public static String callJson(CallRecord call) {
    return RuntimeSnapshotJson.callJson(Objects.requireNonNull(call, "call"));
  }

  /**
   * Reads one call's entry written by {@link #callJson}.
   *
   * @throws CorruptSnapshotException naming the entry, if the text is not such an entry
   */
  public static CallRecord callFromJson(String json) {
    return RuntimeSnapshotJson.readCall(Objects.requireNonNull(json, "json"));
  }

  /**
   * A document of {@code calls} (each with its request, if it waits) taken at {@code takenAt}, without session grants;
   * the waiting calls' requests queue in the order they were asked. What a store that keeps each call's entry gives a
   * restarting runtime.
   */
  public static RuntimeSnapshot ofCalls(Instant takenAt, List<CallRecord> calls) {
    List<CallRecord> waiting = new java.util.ArrayList<>();
    for (CallRecord c : calls) {
      if (c.permission() != null) {
        waiting.add(c);
      }
    }
    waiting.sort(java.util.Comparator.comparing(c -> c.permission().askedAt()));
    return new RuntimeSnapshot(SCHEMA_VERSION, takenAt, calls,
        waiting.stream().map(c -> c.permission().requestId()).toList(), List.of());
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
