package dev.toolcall.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Tool calls in PostgreSQL, shared by every runtime that uses the same database: one row per call
 * ({@link StoredCall}), whose version is the call's compare-and-set version. The only write of an existing row is
 * {@link #compareAndSet}: one {@code UPDATE … WHERE session_id = ? AND call_id = ? AND version = ?}, so of two
 * writers of the same version exactly one wins and the other is told what won; a writer that was paused while
 * another moved on changes nothing.
 *
 * <p>Faults: each write of a call runs in a transaction of its own, so a statement that fails in any way (a lost
 * connection, a client-side socket timeout while the server still waits on a row lock, which is then cancelled) is a
 * {@link StoreException} that changed nothing and never commits later; a write that got no connection was not sent.
 * Serialization failures and deadlocks (SQLSTATE 40001, 40P01: racing writes under {@code SERIALIZABLE} or
 * {@code REPEATABLE READ} isolation) are tried again, after a jittered wait from 2 ms doubling to 200 ms, for up to the
 * statement timeout; so any isolation level works. Only when the connection dies during the
 * COMMIT is the outcome open: the row is read again (once any transaction writing it has ended) and the write is
 * settled by the row's record of who wrote each of its last 16 versions: won if its own token is there, whatever the
 * row's version is now, lost if another writer's is, not applied if the row is still at the expected version; only
 * if none of these can be told is the failure {@link StoreException#outcomeUnknown()}. A failure retrying cannot fix
 * (the database refused the data or a constraint, a row that cannot be right) is not
 * {@link StoreException#retriable()}. U+0000, which PostgreSQL cannot store, is written escaped and read back
 * exactly. A row this version cannot read (an unknown state or field written by a newer version, a running call at
 * the last version, an ended call without its outcome, a document whose version or ids disagree with the row's) is a
 * {@link StoreException} naming the row; the row is left as it is, other rows are unaffected, and the restore and
 * the sweep name it in one WARN per row.
 *
 * <p>The schema ({@code dev/toolcall/postgres/schema.sql}, applied by {@link #applySchema()}) has the table, an index
 * of the calls that have not ended (what a restarting runtime reads) and an index of ended calls by age (retention,
 * {@link #deleteEndedBefore}). Thread-safe: each operation takes its own connection from the {@link DataSource} (pass a
 * pooled one).
 *
 * <h2>What maps, and what does not</h2>
 * Stored: each call (identity, state, version, its runtime-snapshot entry: arguments, path, permission request,
 * outcome), the "approve for session" grants ({@link #sessionGrants()}), leases and the request-id lookup of several
 * runtimes ({@link #shared}), and an agent's state when the application saves it ({@link #saveConversation}). Not
 * stored: events, a call's live output, the permission queue's order (a restore orders the requests by when they
 * were asked), "approve always" grants (they live in the grant store), and each change of a conversation (it is
 * saved when the caller saves it). docs/durability.md has the schema and the proofs.
 *
 * <h2>Failures</h2>
 * Every operation throws {@link StoreException} (unchecked) when the database fails it, naming the row where there is
 * one; {@link StoreException#retriable()} and {@link StoreException#outcomeUnknown()} say what the caller may do.
 * Through {@link #calls()} or {@link #shared} the runtime handles those: the call does not change, and a write that
 * could not be stored is retried or ends the call as docs/durability.md says. Logged by this class: a row this version
 * cannot read, at WARN once per row while the store runs. Arguments that are null or out of range throw at once.
 */
public final class PostgresCallStore {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PostgresCallStore.class);

  private final DataSource dataSource;
  private final int timeoutSeconds;
  private final Writes writes;
  private final PostgresConversations conversations;

  private PostgresCallStore(DataSource dataSource, Duration statementTimeout) {
    this.dataSource = dataSource;
    this.timeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, statementTimeout.toSeconds()));
    this.writes = new Writes(dataSource, timeoutSeconds);
    this.conversations = new PostgresConversations(dataSource, timeoutSeconds);
  }

  /**
   * A store over {@code dataSource}, each statement limited to 10 seconds. Nothing is read or written until the first
   * operation: call {@link #applySchema()} once at startup.
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static PostgresCallStore create(DataSource dataSource) {
    return create(dataSource, Duration.ofSeconds(10));
  }

  /**
   * A store over {@code dataSource}, each statement limited to {@code statementTimeout} (whole seconds, at least one).
   *
   * @throws IllegalArgumentException if the timeout is not positive
   */
  public static PostgresCallStore create(DataSource dataSource, Duration statementTimeout) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(statementTimeout, "statementTimeout");
    if (statementTimeout.isNegative() || statementTimeout.isZero()) {
      throw new IllegalArgumentException("statementTimeout must be positive, was " + statementTimeout);
    }
    return new PostgresCallStore(dataSource, statementTimeout);
  }

  /**
   * Creates the tables and their indexes if they are not there, and brings an older schema up to this version's in
   * place (idempotent; safe to run from every runtime at once: an advisory lock runs them one after the other).
   *
   * @throws StoreException if the database refuses it or cannot be reached
   */
  public void applySchema() {
    String sql;
    try (InputStream in = PostgresCallStore.class.getResourceAsStream("schema.sql")) {
      sql = new String(Objects.requireNonNull(in, "schema.sql").readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("cannot read the bundled schema.sql", e);
    }
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      s.setQueryTimeout(timeoutSeconds);
      s.execute("SELECT pg_advisory_lock(7263541)"); // two runtimes applying at once: one after the other
      try {
        s.execute(sql);
      } finally {
        s.execute("SELECT pg_advisory_unlock(7263541)");
      }
    } catch (SQLException e) {
      throw new StoreException("cannot apply the schema: " + e.getMessage(), e);
    }
  }

  /**
   * Stores a new call.
   *
   * @return false when a call with that session and id is stored already (nothing changed)
   * @throws StoreException if the write failed (nothing changed), or (with {@link StoreException#outcomeUnknown()})
   *     if the commit's answer was lost and the row could not be read to settle it
   */
  public boolean insert(StoredCall call) {
    return writes.insert(call, null, null, false);
  }

  /**
   * The stored call, if any.
   *
   * @throws StoreException if the database cannot be read, or the row cannot be read by this version
   */
  public Optional<StoredCall> load(String sessionId, String callId) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(callId, "callId");
    try {
      return Writes.retried(timeoutSeconds, () -> writes.loadOrThrow(sessionId, callId));
    } catch (SQLException e) {
      throw new StoreException("row " + sessionId + "/" + callId + ": read failed: " + e.getMessage(), e);
    }
  }

  /** See {@link dev.toolcall.CallStore#readByLabels}: one query over the session's rows. */
  List<dev.toolcall.CallRecord> readByLabels(String sessionId, java.util.Collection<String> labels) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(labels, "labels");
    if (labels.isEmpty()) {
      return List.of();
    }
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT " + Rows.COLUMNS
        + " FROM toolcall_call WHERE session_id = ? AND coalesce(document ->> 'label', call_id) = ANY (?)"
        + " ORDER BY seq")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(sessionId));
      ps.setArray(2, c.createArrayOf("text", labels.stream().map(Nul::escape).toArray()));
      java.util.Map<String, dev.toolcall.CallRecord> byLabel = new java.util.LinkedHashMap<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          dev.toolcall.CallRecord r = entry(Rows.row(rs));
          byLabel.remove(r.label());
          byLabel.put(r.label(), r); // the one stored last wins
        }
      }
      return List.copyOf(byLabel.values());
    } catch (SQLException e) {
      throw new StoreException("session " + sessionId + ": reading its calls failed: " + e.getMessage(), e);
    }
  }

  /**
   * Stores {@code next} if the row still holds {@code expected}'s version: one conditional UPDATE.
   *
   * @param next version {@code expected.version() + 1} of the same call
   * @return won with {@code next}, or lost with the row as it is (its version is not {@code expected}'s)
   * @throws StoreException if the write failed and changed nothing, or (with {@link StoreException#outcomeUnknown()})
   *     if it may have been applied and the row could not be read to settle it
   * @throws IllegalArgumentException if {@code next} is not the next version of the same call
   */
  public CasResult compareAndSet(StoredCall expected, StoredCall next) {
    return writes.compareAndSet(expected, next, null, null, false);
  }

  /**
   * The calls that have not ended, in the order they were stored (what a restarting runtime reads). A row this
   * version cannot read is left out, and named in a WARN once per row while this store runs; the others are returned.
   *
   * @throws StoreException if the database cannot be read
   */
  public List<StoredCall> active() {
    return active(this::unreadable);
  }

  /**
   * {@link #active()}, handing each row this version cannot read to {@code unreadable} (on the calling thread)
   * instead of the log.
   *
   * @throws StoreException if the database cannot be read
   */
  public List<StoredCall> active(java.util.function.Consumer<? super StoreException> unreadable) {
    Objects.requireNonNull(unreadable, "unreadable");
    return active((key, e) -> unreadable.accept(e));
  }

  /** The rows whose unreadability was logged already (keys of {@link Rows#key}), the latest 4,096; guarded by it. */
  private final java.util.Map<String, Boolean> named = new java.util.LinkedHashMap<>(16, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > 4096;
    }
  };

  /**
   * Logs that a row cannot be read by this version, at WARN, once per row while this store runs (a row written by a
   * newer runtime stays unreadable here for good, and each sweep and restore meets it again).
   */
  void unreadable(String key, StoreException e) {
    boolean first;
    synchronized (named) {
      first = named.put(key, Boolean.TRUE) == null;
    }
    if (first) {
      log.warn("{} (said once per row)", e.getMessage());
    }
  }

  private List<StoredCall> active(java.util.function.BiConsumer<String, StoreException> unreadable) {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT " + Rows.COLUMNS + " FROM toolcall_call WHERE state NOT IN " + Rows.ENDED
            + " ORDER BY seq")) {
      ps.setQueryTimeout(timeoutSeconds);
      List<StoredCall> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          try {
            out.add(Rows.row(rs));
          } catch (StoreException e) {
            unreadable.accept(Rows.key(rs.getString(1), rs.getString(2)), e);
          }
        }
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("reading the calls that have not ended failed: " + e.getMessage(), e);
    }
  }

  /**
   * Deletes the calls that ended before {@code cutoff} (retention; run it from a scheduled job); returns how many.
   * Calls that have not ended are never deleted, however old.
   *
   * @throws StoreException if the delete failed
   */
  public int deleteEndedBefore(Instant cutoff) {
    Objects.requireNonNull(cutoff, "cutoff");
    try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
        "DELETE FROM toolcall_call WHERE state IN " + Rows.ENDED + " AND updated_at < ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setTimestamp(1, Timestamp.from(cutoff));
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("deleting ended calls failed: " + e.getMessage(), e,
          Writes.connectionLost(e));
    }
  }

  /** Whether the runtime should try a write that failed with {@code failure} again: not when retrying cannot fix it. */
  static boolean retriable(RuntimeException failure) {
    return !(failure instanceof StoreException e) || e.retriable();
  }

  /**
   * This store as a runtime's {@link dev.toolcall.CallStore} ({@code ToolCallRuntime.Builder.callStore}): each call
   * one row, each change of it one {@link #compareAndSet}, made before the change is visible. A call that has not
   * ended is stored as its runtime-snapshot entry ({@link dev.toolcall.runtime.RuntimeSnapshot#callJson}), so the rows of
   * {@link #active()} are what a restore needs; an ended one as its identity, state, version and outcome. A write
   * another runtime made first is refused ({@link dev.toolcall.StaleCallException} in the runtime); a failure is the
   * {@link StoreException}, and the runtime's call does not change. A new view each time; views share nothing but
   * this store, and each is thread-safe. For several runtimes on one database use {@link #shared} instead. Its writes
   * are quiet: they are not announced on the change feed ({@link ChangeFeed}), since a runtime alone on its store has
   * no one to tell, and announcing transactions commit one at a time.
   */
  public dev.toolcall.CallStore calls() {
    return new dev.toolcall.CallStore() {
      @Override
      public boolean create(dev.toolcall.ToolCallSnapshot first) {
        return writes.insert(stored(first), null, null, true);
      }

      @Override
      public void createAll(List<dev.toolcall.ToolCallSnapshot> firsts, boolean[] stored) {
        writes.insertAll(storedAll(firsts, stored), stored, null, null, true);
      }

      @Override
      public boolean compareAndSet(dev.toolcall.ToolCallSnapshot expected, dev.toolcall.ToolCallSnapshot next) {
        return writes.compareAndSet(stored(expected), stored(next), null, null, true).won();
      }

      @Override
      public Optional<dev.toolcall.CallRecord> read(String sessionId, String callId) {
        return load(sessionId, callId).map(PostgresCallStore::entry);
      }

      @Override
      public List<dev.toolcall.CallRecord> readByLabels(String sessionId, java.util.Collection<String> labels) {
        return PostgresCallStore.this.readByLabels(sessionId, labels);
      }

      @Override
      public boolean retriable(RuntimeException failure) {
        return PostgresCallStore.retriable(failure);
      }

      @Override
      public String toString() {
        return "PostgresCallStore.calls()";
      }
    };
  }

  /**
   * The calls that have not ended, as a runtime snapshot a restarting runtime restores
   * ({@code runtime.restore(store.snapshot(clock))}): each row's entry, the waiting calls' requests in the order they
   * were asked, and the session grants of {@link #sessionGrants()}. A row this version cannot read (its state or a
   * field of its document is unknown here: written by a newer version, say) is left out and left as it is, for a
   * runtime that can read it, and is named in a WARN once per row; the others are restored. (A file snapshot, by
   * contrast, is read whole or not at all.)
   *
   * @throws StoreException if the database cannot be read
   */
  public dev.toolcall.runtime.RuntimeSnapshot snapshot(java.time.Clock clock) {
    Objects.requireNonNull(clock, "clock");
    List<dev.toolcall.CallRecord> calls = new ArrayList<>();
    for (StoredCall row : active()) {
      try {
        calls.add(entry(row));
      } catch (StoreException e) { // written by a newer version, say: left as it is, for a runtime that reads it
        unreadable(Rows.key(Nul.escape(row.sessionId()), Nul.escape(row.callId())), e);
      }
    }
    dev.toolcall.runtime.RuntimeSnapshot bare = dev.toolcall.runtime.RuntimeSnapshot.ofCalls(clock.instant(), calls);
    List<dev.toolcall.runtime.RuntimeSnapshot.SessionGrant> grants = new ArrayList<>();
    sessionGrants().all().forEach((session, list) -> list.forEach(g -> grants.add(
        new dev.toolcall.runtime.RuntimeSnapshot.SessionGrant(session, g.id(), g.toolName(), g.arguments(),
            g.createdAt(), g.expiresAt()))));
    return new dev.toolcall.runtime.RuntimeSnapshot(bare.schemaVersion(), bare.takenAt(), bare.calls(), bare.requestOrder(),
        grants);
  }

  /** The row of a call's version: its document as {@link #calls()} describes. */
  static StoredCall stored(dev.toolcall.ToolCallSnapshot s) {
    String document = dev.toolcall.runtime.RuntimeSnapshot.callJson(dev.toolcall.runtime.RuntimeSnapshot.storedEntry(s));
    return new StoredCall(s.identity().sessionId(), s.callId(), s.toolName(), s.state(), s.version(), document);
  }

  /** The rows of {@link dev.toolcall.CallStore#createAll}'s first versions, its arguments checked. */
  static List<StoredCall> storedAll(List<dev.toolcall.ToolCallSnapshot> firsts, boolean[] stored) {
    Objects.requireNonNull(firsts, "firsts");
    Objects.requireNonNull(stored, "stored");
    if (stored.length != firsts.size()) {
      throw new IllegalArgumentException("stored must have one entry per call: " + firsts.size() + ", was "
          + stored.length);
    }
    List<StoredCall> rows = new ArrayList<>(firsts.size());
    for (dev.toolcall.ToolCallSnapshot s : firsts) {
      rows.add(stored(s));
    }
    return rows;
  }

  /** A row's document as a call's entry, or a {@link StoreException} naming the row. */
  static dev.toolcall.CallRecord entry(StoredCall row) {
    dev.toolcall.CallRecord call;
    try {
      call = dev.toolcall.runtime.RuntimeSnapshot.callFromJson(row.document());
    } catch (dev.toolcall.CorruptSnapshotException e) {
      throw StoreException.corrupt(row.where() + ": its document is not a call's entry: " + e.getMessage(), e);
    }
    if (!call.sessionId().equals(row.sessionId()) || !call.callId().equals(row.callId())) {
      throw StoreException.corrupt(row.where() + ": its document is the entry of call " + call.sessionId() + "/"
          + call.callId() + "; the row is left as it is", null);
    }
    if (call.version() != row.version() || call.state() != row.state()) {
      throw StoreException.corrupt(row.where() + ": its document holds version " + call.version() + " ("
          + call.state().wireName() + ") but the row version " + row.version() + " (" + row.state().wireName()
          + "); the row is left as it is", null);
    }
    return call;
  }

  /**
   * Keeps an agent's state ({@code agent.snapshot()}: the conversation's state, its messages and the results of its
   * turn's open calls) under its conversation id, in the table {@code toolcall_conversation}, unless a later version of
   * that conversation is stored already (so a slow writer never puts an older state back). Save it whenever the turn
   * reaches a state worth keeping (waiting for approvals, say), before anything of the runtime is read; a restarting
   * process gives {@link #loadConversation} to {@code Agent.Builder.resume} and the runtime's
   * {@code restore(store.snapshot(clock))} to {@code agent.resume}. For one process at a time: two writers saving the
   * same version keep the first and the second gets false. Where several instances serve one conversation, use
   * {@link #conversations()} through an {@link dev.toolcall.conversation.AgentDirectory}, which owns a conversation
   * for each step and refuses a second step ({@link dev.toolcall.conversation.ConversationBusyException}).
   *
   * @return whether it was stored (false: the stored one is as new or newer, or as new and another writer's)
   * @throws StoreException if the write failed
   */
  public boolean saveConversation(dev.toolcall.conversation.AgentSnapshot snapshot) {
    return conversations.save(snapshot);
  }

  /**
   * The conversations of every runtime on this database, for {@link dev.toolcall.conversation.AgentDirectory}: one
   * row per conversation in {@code toolcall_conversation} with its latest agent snapshot, a revision and the instance
   * holding it for the step under way (with a lease, on the database's clock). See
   * {@link dev.toolcall.conversation.ConversationStore}. The rows are those of {@link #saveConversation}: use one or the
   * other for a conversation, not both.
   */
  public dev.toolcall.conversation.ConversationStore conversations() {
    return conversations.store();
  }

  /**
   * The agent state last saved for {@code conversationId}, if any.
   *
   * @throws StoreException if it cannot be read, or its document is not an agent snapshot this version reads
   */
  public Optional<dev.toolcall.conversation.AgentSnapshot> loadConversation(String conversationId) {
    return conversations.load(conversationId);
  }

  /**
   * Deletes the saved state of {@code conversationId} (its conversation is over); whether there was one.
   *
   * @throws StoreException if the delete failed
   */
  public boolean deleteConversation(String conversationId) {
    return conversations.delete(conversationId);
  }

  /**
   * The grants made by "approve for session", in the table {@code toolcall_session_grant}, for
   * {@code PermissionService.Builder.sessionGrantStore}: a grant made on one runtime approves the calls of its session
   * on every runtime on this database, and survives restarts. Each read is one query (a runtime reads once per call it
   * authorizes that no rule decided); a failed one is a {@link StoreException}, which the service logs before asking
   * the person instead.
   */
  public dev.toolcall.permission.SessionGrantStore sessionGrants() {
    return new PostgresSessionGrants(dataSource, timeoutSeconds);
  }

  /**
   * This store as the {@link dev.toolcall.SharedCallStore} of one runtime among several on the same database (each
   * with its own {@code DataSource}): {@link #calls()} plus leases held by {@code owner} on the calls it drives, the lookup of
   * a waiting call by its request id, the calls nobody looks after, and a {@link ChangeFeed} for {@code watch}, which
   * leaves out the versions this instance wrote itself (so its runtime never reads back its own writes; a version
   * another writer won while this one was writing it is told once the write returns). A row carries the lease of the
   * runtime that last wrote it while the call is pending, approved or running (a call waiting for a person carries
   * none: anyone may answer, and its deadline bounds it).
   *
   * @param owner the runtime's name, unique among the runtimes (a host name and process id, say)
   * @param lease how long a claim on a driven call lives unrenewed (at least one second; the runtime renews every third)
   * @throws IllegalArgumentException if {@code owner} is blank or {@code lease} is under a second
   */
  public dev.toolcall.SharedCallStore shared(String owner, Duration lease) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(lease, "lease");
    if (owner.isBlank()) {
      throw new IllegalArgumentException("owner must not be blank");
    }
    if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("lease must be at least one second, was " + lease);
    }
    return new SharedView(this, writes, dataSource, timeoutSeconds, owner, lease);
  }

  /**
   * What a {@link #compareAndSet} did.
   *
   * @param won whether the write was stored
   * @param current the row as it is now: the write when it won, the winner's version when it lost
   */
  public record CasResult(boolean won, StoredCall current) {
    /** Checks the parts. */
    public CasResult {
      Objects.requireNonNull(current, "current");
    }
  }
}
