package dev.toolcall.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.ToolCallState;
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
import java.util.concurrent.atomic.AtomicLong;
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
 * Serialization failures and deadlocks are retried up to three times. Only when the connection dies during the
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
 */
public final class PostgresCallStore {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PostgresCallStore.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String COLUMNS = "session_id, call_id, tool_name, state, version, document::text";
  private static final String ENDED = "('completed', 'failed', 'cancelled', 'permission_denied')";
  private static final int RETRIES = 3;
  /**
   * A waiting row's deadline, or null when its text is not an instant as this version writes it (a row of a newer
   * version, say): guarded, so that one such row cannot make the cast fail the whole query.
   */
  private static final String DEADLINE = "(CASE WHEN document #>> '{permission,deadline}'"
      + " ~ '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?Z$'"
      + " THEN (document #>> '{permission,deadline}')::timestamptz END)";
  /** How many of a row's last writes its {@code writers} column records (to settle a commit whose answer was lost). */
  private static final int WRITERS_KEPT = 16;

  private final DataSource dataSource;
  private final int timeoutSeconds;
  /** This store's name in the tokens its writes leave in a row's {@code writers}: random, so unique per store. */
  private final String writerId = Long.toHexString(new java.security.SecureRandom().nextLong());
  /** Counts this store's writes (each write's token is unique). */
  private final AtomicLong writes = new AtomicLong();

  private PostgresCallStore(DataSource dataSource, Duration statementTimeout) {
    this.dataSource = dataSource;
    this.timeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, statementTimeout.toSeconds()));
  }

  /** A store over {@code dataSource}, each statement limited to 10 seconds. */
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

  /** Creates the table and its indexes if they are not there (idempotent; safe to run from every runtime). */
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
   */
  public boolean insert(StoredCall call) {
    return insert(call, null, null);
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
      return loadOrThrow(sessionId, callId);
    } catch (SQLException e) {
      throw new StoreException("row " + sessionId + "/" + callId + ": read failed: " + e.getMessage(), e);
    }
  }

  private Optional<StoredCall> loadOrThrow(String sessionId, String callId) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT " + COLUMNS + " FROM toolcall_call WHERE session_id = ? AND call_id = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(sessionId));
      ps.setString(2, Nul.escape(callId));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  /** {@link #insert(StoredCall)} by the runtime {@code owner}, whose lease the row carries while it drives it. */
  boolean insert(StoredCall call, String owner, Duration lease) {
    Objects.requireNonNull(call, "call");
    String token = token(call.version());
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(call, "the insert");
      Tx tx = null;
      try {
        tx = new Tx(c);
        int rows;
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO toolcall_call (session_id, call_id, tool_name, state, version, document, lease_owner,"
                + " lease_until, writers) VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, now() + ? * interval '1 millisecond',"
                + " ARRAY[?]) ON CONFLICT DO NOTHING")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, Nul.escape(call.sessionId()));
          ps.setString(2, Nul.escape(call.callId()));
          ps.setString(3, Nul.escape(call.toolName()));
          ps.setString(4, call.state().wireName());
          ps.setInt(5, call.version());
          ps.setString(6, Nul.escapeJson(call.document()));
          bindLease(ps, 7, call.state(), owner, lease);
          ps.setString(9, token);
          rows = ps.executeUpdate();
        }
        if (rows == 0) {
          tx.rollback();
          return false;
        }
        if (tx.commit()) {
          return true;
        }
        return settleInsert(call, token, tx.failure);
      } catch (SQLException e) {
        if (tx != null) {
          tx.abandon(e);
        }
        if (retryable(e) && attempt < RETRIES) {
          continue;
        }
        throw new StoreException(call.where() + ": the insert failed and changed nothing: " + e.getMessage(), e);
      } finally {
        if (tx != null) {
          tx.close();
        } else {
          closeQuietly(c);
        }
      }
    }
  }

  /**
   * A connection for a write of {@code call}; when none can be had, a {@link StoreException} saying the write was not
   * sent (it certainly did not commit).
   */
  private Connection connect(StoredCall call, String what) {
    try {
      return dataSource.getConnection();
    } catch (SQLException e) {
      throw new StoreException(call.where() + ": " + what + " was not sent (no connection to the database) and"
          + " changed nothing: " + e.getMessage(), e);
    }
  }

  /**
   * One write's transaction on its own connection. The write's statement runs inside it and only {@link #commit}
   * can make it durable, so a statement that fails in any way (the connection lost, a client-side socket timeout while
   * the server still waits on a lock) cannot commit later: the server rolls it back when it finds the connection
   * gone. Only a commit whose answer was lost leaves the outcome open, and that is settled by reading the row.
   */
  private final class Tx {
    private final Connection connection;
    private final boolean autoCommit;
    private final int backendPid;
    /** Why {@link #commit} could not tell whether it committed (the connection was lost), or null. */
    SQLException failure;

    Tx(Connection connection) throws SQLException {
      this.connection = connection;
      this.autoCommit = connection.getAutoCommit();
      int pid = 0;
      try {
        if (connection.isWrapperFor(org.postgresql.PGConnection.class)) {
          pid = connection.unwrap(org.postgresql.PGConnection.class).getBackendPID();
        }
      } catch (SQLException e) {
        pid = 0; // a pool that will not unwrap: no cancel after a lost statement
      }
      this.backendPid = pid;
      if (autoCommit) {
        connection.setAutoCommit(false);
      }
    }

    /**
     * Commits: true when it committed; false when the connection was lost during the commit, so it may have
     * ({@link #failure} says why); throws when the commit certainly failed (the server refused it).
     */
    boolean commit() throws SQLException {
      try {
        connection.commit();
        return true;
      } catch (SQLException e) {
        if (connectionLost(e)) {
          failure = e;
          return false;
        }
        throw e;
      }
    }

    void rollback() throws SQLException {
      connection.rollback();
    }

    /** The statement failed, so it did not commit: roll back what is left, and stop it if the server still runs it. */
    void abandon(SQLException cause) {
      try {
        connection.rollback();
      } catch (SQLException e) {
        // the connection is gone: the server rolls the transaction back when it notices
      }
      if (backendPid != 0 && connectionLost(cause)) {
        cancelOrphan();
      }
    }

    /**
     * After a lost connection (a client-side socket timeout, say) the server may still be running the statement,
     * waiting on a row lock: it cannot commit (no COMMIT was sent), but it would hold its place in the lock's queue
     * until it notices the connection is gone. Cancelled from a fresh connection, best effort; only that backend's
     * write of this table is cancelled (a backend id reused since is left alone unless it runs the same statement,
     * which then fails and changes nothing).
     */
    private void cancelOrphan() {
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
          "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid = ? AND state = 'active'"
              + " AND (query LIKE 'UPDATE toolcall_call SET state%' OR query LIKE 'INSERT INTO toolcall_call %')")) {
        ps.setQueryTimeout(timeoutSeconds);
        ps.setInt(1, backendPid);
        ps.executeQuery().close();
      } catch (SQLException e) {
        log.debug("could not cancel the statement of backend {}: {}", backendPid, e.getMessage());
      }
    }

    void close() {
      try {
        if (autoCommit && !connection.isClosed()) {
          connection.setAutoCommit(true);
        }
      } catch (SQLException e) {
        // lost: the pool finds it closed
      }
      closeQuietly(connection);
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // lost already
    }
  }

  /** A token unique to one write of version {@code version}, as the row's {@code writers} records it. */
  private String token(int version) {
    return version + ":" + writerId + "-" + writes.incrementAndGet();
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
    return compareAndSet(expected, next, null, null);
  }

  /**
   * {@link #compareAndSet(StoredCall, StoredCall)} by the runtime {@code owner}: a version that is RUNNING carries its
   * lease until {@code lease} from the server's now; any other version carries none.
   */
  CasResult compareAndSet(StoredCall expected, StoredCall next, String owner, Duration lease) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(next, "next");
    if (!expected.sessionId().equals(next.sessionId()) || !expected.callId().equals(next.callId())
        || next.version() != expected.version() + 1) {
      throw new IllegalArgumentException("next must be version " + (expected.version() + 1L) + " of "
          + expected.where() + ", was version " + next.version() + " of " + next.where());
    }
    String token = token(next.version());
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(next, "the write of version " + next.version());
      Tx tx = null;
      try {
        tx = new Tx(c);
        int rows;
        try (PreparedStatement ps = c.prepareStatement(
            "UPDATE toolcall_call SET state = ?, version = ?, document = ?::jsonb, updated_at = now(),"
                + " lease_owner = ?, lease_until = now() + ? * interval '1 millisecond',"
                + " writers = (writers || ?::text)[greatest(1, cardinality(writers) - " + (WRITERS_KEPT - 2) + "):]"
                + " WHERE session_id = ? AND call_id = ? AND version = ?")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, next.state().wireName());
          ps.setInt(2, next.version());
          ps.setString(3, Nul.escapeJson(next.document()));
          bindLease(ps, 4, next.state(), owner, lease);
          ps.setString(6, token);
          ps.setString(7, Nul.escape(next.sessionId()));
          ps.setString(8, Nul.escape(next.callId()));
          ps.setInt(9, expected.version());
          rows = ps.executeUpdate();
        }
        if (rows == 0) {
          tx.rollback();
          return new CasResult(false, loadOrThrow(next.sessionId(), next.callId()).orElseThrow(() ->
              new StoreException(next.where() + ": the row is gone", null)));
        }
        if (tx.commit()) {
          return new CasResult(true, next);
        }
        return settle(expected, next, token, tx.failure);
      } catch (SQLException e) {
        if (tx != null) {
          tx.abandon(e);
        }
        if (retryable(e) && attempt < RETRIES) {
          continue;
        }
        throw new StoreException(next.where() + ": the write of version " + next.version() + " failed and"
            + " changed nothing: " + e.getMessage(), e);
      } finally {
        if (tx != null) {
          tx.close();
        } else {
          closeQuietly(c);
        }
      }
    }
  }
  /**
   * Whether a runtime drives a call in {@code state} (so its row carries that runtime's lease): every state but
   * waiting for a person (which anyone may answer, and its deadline bounds) and the ends.
   */
  static boolean driven(ToolCallState state) {
    return !state.isTerminal() && state != ToolCallState.PERMISSION_PENDING;
  }

  /**
   * Binds the lease of a row in {@code state} written by {@code owner} at {@code index} (the owner) and
   * {@code index + 1} (the lease in milliseconds): both null when no runtime drives the call or none is named.
   */
  private static void bindLease(PreparedStatement ps, int index, ToolCallState state, String owner, Duration lease)
      throws SQLException {
    boolean leased = owner != null && driven(state);
    ps.setString(index, leased ? owner : null);
    if (leased) {
      ps.setLong(index + 1, lease.toMillis());
    } else {
      ps.setNull(index + 1, java.sql.Types.BIGINT);
    }
  }

  /** The row and its record of writers, read once any transaction writing it has ended; empty when there is none. */
  private Optional<Map.Entry<StoredCall, List<String>>> settledRow(StoredCall call) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT " + COLUMNS + ", writers FROM toolcall_call WHERE session_id = ? AND call_id = ? FOR SHARE")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(call.sessionId()));
      ps.setString(2, Nul.escape(call.callId()));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        java.sql.Array a = rs.getArray(7);
        List<String> writers = a == null ? List.of() : List.of((String[]) a.getArray());
        return Optional.of(Map.entry(row(rs), writers));
      }
    }
  }

  /**
   * The connection was lost while the commit of {@code next} was under way, so it may have committed. Settled from
   * the row's record of who wrote each of its last versions, read once every transaction writing the row has ended
   * (FOR SHARE waits for one still committing): the write won if its token is there, whatever the row's version is
   * now (another runtime may have moved the call on since); it lost if the row records another writer of that version;
   * it was not applied if the row is still at {@code expected}'s version. Anything else is
   * {@link StoreException#outcomeUnknown()}.
   */
  private CasResult settle(StoredCall expected, StoredCall next, String token, SQLException cause) {
    Map.Entry<StoredCall, List<String>> now;
    try {
      now = settledRow(next).orElseThrow(() -> new StoreException(next.where() + ": the connection died during the"
          + " commit of version " + next.version() + ", and the row is gone", cause, true));
    } catch (SQLException e) {
      e.addSuppressed(cause);
      throw new StoreException(next.where() + ": the connection died during the commit of version " + next.version()
          + ", and the row could not be read to settle it: " + e.getMessage(), e, true);
    }
    StoredCall row = now.getKey();
    List<String> writers = now.getValue();
    if (writers.contains(token)) {
      return new CasResult(true, next);
    }
    if (row.version() == expected.version()) {
      throw new StoreException(next.where() + ": the write of version " + next.version() + " was not applied (the"
          + " connection died before it committed): " + cause.getMessage(), cause);
    }
    String prefix = next.version() + ":";
    if (row.version() >= next.version() && writers.stream().anyMatch(w -> w.startsWith(prefix))) {
      return new CasResult(false, row);
    }
    throw new StoreException(next.where() + ": the connection died during the commit of version " + next.version()
        + ", and the row (now at version " + row.version() + ") no longer records who wrote it",
        cause, true);
  }

  /** As {@link #settle}, for an insert: it won if the row records its token, lost if another's, not applied if none. */
  private boolean settleInsert(StoredCall call, String token, SQLException cause) {
    Optional<Map.Entry<StoredCall, List<String>>> now;
    try {
      now = settledRow(call);
    } catch (SQLException e) {
      e.addSuppressed(cause);
      throw new StoreException(call.where() + ": the connection died during the commit of its insert, and the row"
          + " could not be read to settle it: " + e.getMessage(), e, true);
    }
    if (now.isEmpty()) {
      throw new StoreException(call.where() + ": the insert was not applied (the connection died before it"
          + " committed): " + cause.getMessage(), cause);
    }
    List<String> writers = now.get().getValue();
    if (writers.contains(token)) {
      return true;
    }
    if (writers.isEmpty() || !writers.get(0).startsWith(call.version() + ":")) {
      throw new StoreException(call.where() + ": the connection died during the commit of its insert, and the row no"
          + " longer records who wrote it", cause, true);
    }
    return false; // another writer stored the call first
  }

  /**
   * The calls that have not ended, in the order they were stored (what a restarting runtime reads). A row this
   * version cannot read is left out, and named in a WARN once per row while this store runs; the others are returned.
   */
  public List<StoredCall> active() {
    return active(this::unreadable);
  }

  /** {@link #active()}, handing each row this version cannot read to {@code unreadable} instead of the log. */
  public List<StoredCall> active(java.util.function.Consumer<? super StoreException> unreadable) {
    Objects.requireNonNull(unreadable, "unreadable");
    return active((key, e) -> unreadable.accept(e));
  }

  /** The rows whose unreadability was logged already (keys of {@link #key}), the latest 4,096; guarded by itself. */
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
  private void unreadable(String key, StoreException e) {
    boolean first;
    synchronized (named) {
      first = named.put(key, Boolean.TRUE) == null;
    }
    if (first) {
      log.warn("{} (said once per row)", e.getMessage());
    }
  }

  /** The key of a row in {@link #named}, from its stored (escaped) ids. */
  private static String key(String storedSession, String storedCall) {
    return storedSession.length() + ":" + storedSession + storedCall;
  }

  private List<StoredCall> active(java.util.function.BiConsumer<String, StoreException> unreadable) {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT " + COLUMNS + " FROM toolcall_call WHERE state NOT IN " + ENDED + " ORDER BY seq")) {
      ps.setQueryTimeout(timeoutSeconds);
      List<StoredCall> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          try {
            out.add(row(rs));
          } catch (StoreException e) {
            unreadable.accept(key(rs.getString(1), rs.getString(2)), e);
          }
        }
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("reading the calls that have not ended failed: " + e.getMessage(), e);
    }
  }

  /** Deletes the calls that ended before {@code cutoff} (retention); returns how many. */
  public int deleteEndedBefore(Instant cutoff) {
    Objects.requireNonNull(cutoff, "cutoff");
    try (Connection c = writeConnection(); PreparedStatement ps = c.prepareStatement(
        "DELETE FROM toolcall_call WHERE state IN " + ENDED + " AND updated_at < ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setTimestamp(1, Timestamp.from(cutoff));
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("deleting ended calls failed: " + e.getMessage(), e,
          connectionLost(e));
    }
  }

  /** A row as this version reads it, or a {@link StoreException} naming the row. */
  private static StoredCall row(ResultSet rs) throws SQLException {
    String session;
    String call;
    String tool;
    try {
      session = Nul.unescape(rs.getString(1));
      call = Nul.unescape(rs.getString(2));
      tool = Nul.unescape(rs.getString(3));
    } catch (IllegalArgumentException e) {
      throw StoreException.corrupt("row " + rs.getString(1) + "/" + rs.getString(2) + ": its ids cannot be read: "
          + e.getMessage(), e);
    }
    String where = "row " + session + "/" + call;
    ToolCallState state;
    try {
      state = ToolCallState.fromWireName(rs.getString(4));
    } catch (IllegalArgumentException e) {
      throw StoreException.corrupt(where + ": state '" + rs.getString(4) + "' is unknown to this version of the library"
          + " (written by a newer one?); the row is left as it is", e);
    }
    int version = rs.getInt(5);
    if (version == Integer.MAX_VALUE && !state.isTerminal()) {
      throw StoreException.corrupt(where + ": version " + version + " is the last one, so the call could never end",
          null);
    }
    String document;
    try {
      document = Nul.unescapeJson(rs.getString(6));
    } catch (IllegalArgumentException e) {
      throw StoreException.corrupt(where + ": its document cannot be read: " + e.getMessage(), e);
    }
    if (state.isTerminal()) {
      JsonNode outcome;
      try {
        outcome = JSON.readTree(document).get("outcome");
      } catch (JsonProcessingException e) {
        throw StoreException.corrupt(where + ": its document is not JSON", e);
      }
      if (outcome == null || outcome.isNull()) {
        throw StoreException.corrupt(where + ": it ended " + state.wireName() + " but its document has no outcome",
            null);
      }
    }
    return new StoredCall(session, call, tool, state, version, document);
  }

  /**
   * A connection for a write that is one autocommit statement; when none can be had, a {@link StoreException} saying
   * the write was not sent (so it certainly did not commit). A connection lost once the statement was sent is
   * {@link StoreException#outcomeUnknown()}: these writes are idempotent, and trying again settles them.
   */
  private Connection writeConnection() {
    try {
      return dataSource.getConnection();
    } catch (SQLException e) {
      throw new StoreException("the write was not sent (no connection to the database) and changed nothing: "
          + e.getMessage(), e);
    }
  }

  /** Whether the runtime should try a write that failed with {@code failure} again: not when retrying cannot fix it. */
  static boolean retriable(RuntimeException failure) {
    return !(failure instanceof StoreException e) || e.retriable();
  }

  /** Serialization failure or deadlock: the transaction may be retried. */
  private static boolean retryable(SQLException e) {
    String s = e.getSQLState();
    return "40001".equals(s) || "40P01".equals(s);
  }

  /** The connection failed (SQLSTATE class 08, or an admin shutdown or terminated backend, class 57P). */
  private static boolean connectionLost(SQLException e) {
    String s = e.getSQLState();
    return s != null && (s.startsWith("08") || s.startsWith("57P"));
  }

  /**
   * This store as a runtime's {@link dev.toolcall.CallStore} ({@code ToolCallRuntime.Builder.callStore}): each call
   * one row, each change of it one {@link #compareAndSet}, made before the change is visible. A call that has not
   * ended is stored as its runtime-snapshot entry ({@link dev.toolcall.RuntimeSnapshot#callJson}), so the rows of
   * {@link #active()} are what a restore needs; an ended one as its identity, state, version and outcome. A write
   * another runtime made first is refused ({@link dev.toolcall.StaleCallException} in the runtime); a failure is the
   * {@link StoreException}, and the runtime's call does not change.
   */
  public dev.toolcall.CallStore calls() {
    return new dev.toolcall.CallStore() {
      @Override
      public boolean create(dev.toolcall.ToolCallSnapshot first) {
        return insert(stored(first));
      }

      @Override
      public boolean compareAndSet(dev.toolcall.ToolCallSnapshot expected, dev.toolcall.ToolCallSnapshot next) {
        return PostgresCallStore.this.compareAndSet(stored(expected), stored(next)).won();
      }

      @Override
      public Optional<dev.toolcall.RuntimeSnapshot.Call> read(String sessionId, String callId) {
        return load(sessionId, callId).map(PostgresCallStore::entry);
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
   */
  public dev.toolcall.RuntimeSnapshot snapshot(java.time.Clock clock) {
    Objects.requireNonNull(clock, "clock");
    List<dev.toolcall.RuntimeSnapshot.Call> calls = new ArrayList<>();
    for (StoredCall row : active()) {
      try {
        calls.add(entry(row));
      } catch (StoreException e) { // written by a newer version, say: left as it is, for a runtime that reads it
        unreadable(key(Nul.escape(row.sessionId()), Nul.escape(row.callId())), e);
      }
    }
    dev.toolcall.RuntimeSnapshot bare = dev.toolcall.RuntimeSnapshot.ofCalls(clock.instant(), calls);
    List<dev.toolcall.RuntimeSnapshot.SessionGrant> grants = new ArrayList<>();
    sessionGrants().all().forEach((session, list) -> list.forEach(g -> grants.add(
        new dev.toolcall.RuntimeSnapshot.SessionGrant(session, g.id(), g.toolName(), g.arguments(),
            g.createdAt(), g.expiresAt()))));
    return new dev.toolcall.RuntimeSnapshot(bare.schemaVersion(), bare.takenAt(), bare.calls(), bare.requestOrder(),
        grants);
  }

  /** The row of a call's version: its document as {@link #calls()} describes. */
  static StoredCall stored(dev.toolcall.ToolCallSnapshot s) {
    String document = dev.toolcall.RuntimeSnapshot.callJson(dev.toolcall.RuntimeSnapshot.storedEntry(s));
    return new StoredCall(s.identity().sessionId(), s.callId(), s.toolName(), s.state(), s.version(), document);
  }

  /** A row's document as a call's entry, or a {@link StoreException} naming the row. */
  static dev.toolcall.RuntimeSnapshot.Call entry(StoredCall row) {
    dev.toolcall.RuntimeSnapshot.Call call;
    try {
      call = dev.toolcall.RuntimeSnapshot.callFromJson(row.document());
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
   * {@code restore(store.snapshot(clock))} to {@code agent.resume}.
   *
   * @return whether it was stored (false: the stored one is as new or newer)
   */
  public boolean saveConversation(dev.toolcall.conversation.AgentSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    String id = snapshot.conversation().conversationId();
    try (Connection c = writeConnection(); PreparedStatement ps = c.prepareStatement(
        "INSERT INTO toolcall_conversation (conversation_id, version, document) VALUES (?, ?, ?::jsonb)"
            + " ON CONFLICT (conversation_id) DO UPDATE SET version = EXCLUDED.version, document = EXCLUDED.document,"
            + " updated_at = now() WHERE toolcall_conversation.version < EXCLUDED.version")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(id));
      ps.setInt(2, snapshot.conversation().version());
      ps.setString(3, Nul.escapeJson(snapshot.toJson()));
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new StoreException("conversation " + id + ": save failed: " + e.getMessage(), e,
          connectionLost(e));
    }
  }

  /**
   * The agent state last saved for {@code conversationId}, if any.
   *
   * @throws StoreException if it cannot be read, or its document is not an agent snapshot this version reads
   */
  public Optional<dev.toolcall.conversation.AgentSnapshot> loadConversation(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT document::text FROM toolcall_conversation WHERE conversation_id = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(conversationId));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        try {
          return Optional.of(dev.toolcall.conversation.AgentSnapshot.fromJson(Nul.unescapeJson(rs.getString(1))));
        } catch (IllegalArgumentException e) {
          throw new StoreException("conversation " + conversationId + ": its document cannot be read: "
              + e.getMessage(), e);
        }
      }
    } catch (SQLException e) {
      throw new StoreException("conversation " + conversationId + ": read failed: " + e.getMessage(), e);
    }
  }

  /** Deletes the saved state of {@code conversationId} (its conversation is over); whether there was one. */
  public boolean deleteConversation(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    try (Connection c = writeConnection(); PreparedStatement ps = c.prepareStatement(
        "DELETE FROM toolcall_conversation WHERE conversation_id = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(conversationId));
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new StoreException("conversation " + conversationId + ": delete failed: " + e.getMessage(), e,
          connectionLost(e));
    }
  }

  /**
   * The grants made by "approve for session", in the table {@code toolcall_session_grant}, for
   * {@code PermissionService.Builder.sessionGrantStore}: a grant made on one runtime approves the calls of its session
   * on every runtime on this database, and survives restarts. Each read is one query (a runtime reads once per call it
   * authorizes that no rule decided); a failed one is a {@link StoreException}, which the service logs before asking
   * the person instead.
   */
  public dev.toolcall.permission.SessionGrantStore sessionGrants() {
    return new PostgresSessionGrants();
  }

  private final class PostgresSessionGrants implements dev.toolcall.permission.SessionGrantStore {
    private static final String GRANT_COLUMNS = "session_id, grant_id, tool_name, arguments, created_at, expires_at,"
        + " arguments_match";

    @Override
    public List<dev.toolcall.permission.Grant> of(String sessionId) {
      Objects.requireNonNull(sessionId, "sessionId");
      return query("SELECT " + GRANT_COLUMNS + " FROM toolcall_session_grant WHERE session_id = ? ORDER BY seq",
          sessionId).getOrDefault(sessionId, List.of());
    }

    @Override
    public java.util.Map<String, List<dev.toolcall.permission.Grant>> all() {
      return query("SELECT " + GRANT_COLUMNS + " FROM toolcall_session_grant ORDER BY seq", null);
    }

    private java.util.Map<String, List<dev.toolcall.permission.Grant>> query(String sql, String sessionId) {
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setQueryTimeout(timeoutSeconds);
        if (sessionId != null) {
          ps.setString(1, Nul.escape(sessionId));
        }
        java.util.Map<String, List<dev.toolcall.permission.Grant>> out = new java.util.LinkedHashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String where = "session grant " + rs.getString(1) + "/" + rs.getString(2);
            dev.toolcall.permission.Grant g;
            String session;
            try {
              session = Nul.unescape(rs.getString(1));
              Timestamp expires = rs.getTimestamp(6);
              g = new dev.toolcall.permission.Grant(Nul.unescape(rs.getString(2)), Nul.unescape(rs.getString(3)),
                  GrantPatterns.read(rs.getString(7), Nul.unescape(rs.getString(4))), rs.getTimestamp(5).toInstant(),
                  expires == null ? null : expires.toInstant());
            } catch (IllegalArgumentException e) {
              throw StoreException.corrupt(where + ": cannot be read: " + e.getMessage(), e);
            }
            out.computeIfAbsent(session, k -> new ArrayList<>()).add(g);
          }
        }
        out.replaceAll((k, v) -> List.copyOf(v));
        return out;
      } catch (SQLException e) {
        throw new StoreException("reading session grants failed: " + e.getMessage(), e);
      }
    }

    @Override
    public void add(String sessionId, dev.toolcall.permission.Grant grant) {
      Objects.requireNonNull(sessionId, "sessionId");
      Objects.requireNonNull(grant, "grant");
      update("INSERT INTO toolcall_session_grant (" + GRANT_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (session_id, grant_id) DO UPDATE SET tool_name = EXCLUDED.tool_name,"
          + " arguments = EXCLUDED.arguments, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,"
          + " arguments_match = EXCLUDED.arguments_match",
          sessionId, grant.id(), grant.toolName(), GrantPatterns.value(grant.arguments()),
          Timestamp.from(grant.createdAt()), grant.expiresAt() == null ? null : Timestamp.from(grant.expiresAt()),
          grant.arguments().kind().wireName());
    }

    @Override
    public boolean revoke(String sessionId, String grantId) {
      return update("DELETE FROM toolcall_session_grant WHERE session_id = ? AND grant_id = ?",
          Objects.requireNonNull(sessionId, "sessionId"), Objects.requireNonNull(grantId, "grantId")) > 0;
    }

    @Override
    public void forget(String sessionId) {
      update("DELETE FROM toolcall_session_grant WHERE session_id = ?", Objects.requireNonNull(sessionId,
          "sessionId"));
    }

    private int update(String sql, Object... args) {
      try (Connection c = writeConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setQueryTimeout(timeoutSeconds);
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i] instanceof String t ? Nul.escape(t) : args[i]);
        }
        return ps.executeUpdate();
      } catch (SQLException e) {
        throw new StoreException("writing session grants failed: " + e.getMessage(), e,
          connectionLost(e));
      }
    }

    @Override
    public String toString() {
      return "PostgresCallStore.sessionGrants()";
    }
  }

  /**
   * This store as the {@link dev.toolcall.SharedCallStore} of one runtime among several on the same database (each
   * with its own {@code DataSource}): {@link #calls()} plus leases on RUNNING calls held by {@code owner}, the lookup of
   * a waiting call by its request id, the calls nobody looks after, and a {@link ChangeFeed} for {@code watch}. A row
   * carries the lease of the runtime that last wrote it while the call is pending, approved or running (a call
   * waiting for a person carries none: anyone may answer, and its deadline bounds it).
   *
   * @param owner the runtime's name, unique among the runtimes (a host name and process id, say)
   * @param lease how long a RUNNING claim lives unrenewed (at least one second; the runtime renews every third)
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
    return new Shared(owner, lease);
  }

  /** One runtime's view of the shared store. */
  private final class Shared implements dev.toolcall.SharedCallStore {
    private final String owner;
    private final Duration lease;

    Shared(String owner, Duration lease) {
      this.owner = owner;
      this.lease = lease;
    }

    @Override
    public boolean create(dev.toolcall.ToolCallSnapshot first) {
      return insert(stored(first), owner, lease);
    }

    @Override
    public boolean compareAndSet(dev.toolcall.ToolCallSnapshot expected, dev.toolcall.ToolCallSnapshot next) {
      return PostgresCallStore.this.compareAndSet(stored(expected), stored(next), owner, lease).won();
    }

    @Override
    public Optional<dev.toolcall.RuntimeSnapshot.Call> read(String sessionId, String callId) {
      return load(sessionId, callId).map(PostgresCallStore::entry);
    }

    @Override
    public boolean retriable(RuntimeException failure) {
      return PostgresCallStore.retriable(failure);
    }

    @Override
    public String owner() {
      return owner;
    }

    @Override
    public Duration lease() {
      return lease;
    }

    @Override
    public Optional<dev.toolcall.RuntimeSnapshot.Call> readByRequest(String requestId) {
      Objects.requireNonNull(requestId, "requestId");
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS
          + " FROM toolcall_call WHERE state = 'permission_pending' AND document #>> '{permission,requestId}' = ?")) {
        ps.setQueryTimeout(timeoutSeconds);
        ps.setString(1, Nul.escape(requestId));
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(entry(row(rs))) : Optional.empty();
        }
      } catch (SQLException e) {
        throw new StoreException("reading the call of request " + requestId + " failed: " + e.getMessage(), e);
      }
    }

    @Override
    public int renewLeases() {
      try (Connection c = writeConnection(); PreparedStatement ps = c.prepareStatement(
          "UPDATE toolcall_call SET lease_until = now() + ? * interval '1 millisecond'"
              + " WHERE lease_owner = ?")) { // only rows it drives carry a lease
        ps.setQueryTimeout(timeoutSeconds);
        ps.setLong(1, lease.toMillis());
        ps.setString(2, owner);
        return ps.executeUpdate();
      } catch (SQLException e) {
        throw new StoreException("renewing the leases of " + owner + " failed: " + e.getMessage(), e,
          connectionLost(e));
      }
    }

    @Override
    public int releaseLeases() {
      try (Connection c = writeConnection(); PreparedStatement ps = c.prepareStatement(
          "UPDATE toolcall_call SET lease_until = now() WHERE lease_owner = ?")) {
        ps.setQueryTimeout(timeoutSeconds);
        ps.setString(1, owner);
        return ps.executeUpdate();
      } catch (SQLException e) {
        throw new StoreException("releasing the leases of " + owner + " failed: " + e.getMessage(), e,
          connectionLost(e));
      }
    }

    @Override
    public List<dev.toolcall.RuntimeSnapshot.Call> overdue() {
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS
          + " FROM toolcall_call WHERE state NOT IN " + ENDED + " AND (state <> 'permission_pending'"
          + " AND lease_until <= now()"
          + " OR state = 'permission_pending' AND " + DEADLINE + " < now())"
          + " ORDER BY seq")) {
        ps.setQueryTimeout(timeoutSeconds);
        List<dev.toolcall.RuntimeSnapshot.Call> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            try {
              out.add(entry(row(rs)));
            } catch (StoreException e) {
              unreadable(key(rs.getString(1), rs.getString(2)), e);
            }
          }
        }
        return out;
      } catch (SQLException e) {
        throw new StoreException("reading the overdue calls failed: " + e.getMessage(), e);
      }
    }

    @Override
    public AutoCloseable watch(Listener listener) {
      Objects.requireNonNull(listener, "listener");
      return ChangeFeed.start(dataSource, ch -> listener.stored(ch.sessionId(), ch.callId(), ch.version()),
          Duration.ofMillis(500));
    }

    @Override
    public String toString() {
      return "PostgresCallStore.shared(" + owner + ")";
    }
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
