package dev.toolcall.postgres;

import dev.toolcall.ToolCallState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The writes of {@link PostgresCallStore}'s call rows and how they are settled: each insert and compare-and-set runs in
 * a transaction of its own ({@link Tx}), serialization failures and deadlocks are retried, and a commit whose answer
 * was lost is settled from the row's record of its last writers. Thread-safe: each write takes its own connection.
 */
final class Writes {
  /** Logs under the store's name, as before the split. */
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PostgresCallStore.class);
  /** The first wait before a write whose transaction failed to serialize is tried again; it doubles up to the cap. */
  private static final long BACKOFF_FIRST_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(2);
  /** The longest wait between two tries of such a write. */
  private static final long BACKOFF_CAP_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200);
  /** How many of a row's last writes its {@code writers} column records (to settle a commit whose answer was lost). */
  private static final int WRITERS_KEPT = 16;

  private final DataSource dataSource;
  private final int timeoutSeconds;
  /** This store's name in the tokens its writes leave in a row's {@code writers}: random, so unique per store. */
  private final String writerId = Long.toHexString(new java.security.SecureRandom().nextLong());
  /** Counts this store's writes (each write's token is unique). */
  private final AtomicLong writes = new AtomicLong();

  Writes(DataSource dataSource, int timeoutSeconds) {
    this.dataSource = dataSource;
    this.timeoutSeconds = timeoutSeconds;
  }

  Optional<StoredCall> loadOrThrow(String sessionId, String callId) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT " + Rows.COLUMNS + " FROM toolcall_call WHERE session_id = ? AND call_id = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(sessionId));
      ps.setString(2, Nul.escape(callId));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(Rows.row(rs)) : Optional.empty();
      }
    }
  }

  /**
   * {@link PostgresCallStore#insert(StoredCall)} by the runtime {@code owner}, whose lease the row carries while it
   * drives it.
   */
  boolean insert(StoredCall call, String owner, Duration lease, boolean quiet) {
    Objects.requireNonNull(call, "call");
    String token = token(call.version());
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(call, "the insert");
      Tx tx = null;
      try {
        tx = new Tx(c);
        int rows;
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO toolcall_call (session_id, call_id, tool_name, state, version, document, lease_owner,"
                + " lease_until, writers, quiet) VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, now() + ? * interval '1 millisecond',"
                + " ARRAY[?], ?) ON CONFLICT DO NOTHING")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, Nul.escape(call.sessionId()));
          ps.setString(2, Nul.escape(call.callId()));
          ps.setString(3, Nul.escape(call.toolName()));
          ps.setString(4, call.state().wireName());
          ps.setInt(5, call.version());
          ps.setString(6, Nul.escapeJson(call.document()));
          bindLease(ps, 7, call.state(), owner, lease);
          ps.setString(9, token);
          ps.setBoolean(10, quiet);
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
        if (again(e, attempt, started, timeoutSeconds)) {
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

  /** Rows per {@code INSERT} of {@link #insertAll} (ten parameters a row, under PostgreSQL's 65,535). */
  private static final int ROWS_PER_INSERT = 1_000;

  /**
   * Several new calls in one transaction (one {@code INSERT … ON CONFLICT DO NOTHING RETURNING} per 1,000 rows, one
   * commit): {@code stored[i]} is set for each row inserted, once the commit is known to have made it durable; a call
   * whose session and id is stored already is left out and the others are stored. On a failure nothing is stored and
   * no entry is set; a commit whose answer was lost is settled from an inserted row's record of writers, as
   * {@link #insert} is (the rows commit together).
   */
  void insertAll(List<StoredCall> calls, boolean[] stored, String owner, Duration lease, boolean quiet) {
    Objects.requireNonNull(calls, "calls");
    if (calls.isEmpty()) {
      return;
    }
    StoredCall first = calls.get(0);
    String[] tokens = new String[calls.size()];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = token(calls.get(i).version());
    }
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(first, "the insert of " + calls.size() + " calls");
      Tx tx = null;
      try {
        tx = new Tx(c);
        boolean[] inserted = new boolean[calls.size()];
        int rows = 0;
        for (int from = 0; from < calls.size(); from += ROWS_PER_INSERT) {
          rows += insertRows(c, calls, from, Math.min(calls.size(), from + ROWS_PER_INSERT), tokens, inserted, owner,
              lease, quiet);
        }
        if (rows == 0) {
          tx.rollback();
          return;
        }
        if (!tx.commit()) {
          int any = 0;
          while (!inserted[any]) {
            any++;
          }
          if (!settleInsert(calls.get(any), tokens[any], tx.failure)) {
            throw new StoreException(calls.get(any).where() + ": the insert of " + calls.size() + " calls was not"
                + " applied (the connection died before it committed; another writer stored this call since): "
                + tx.failure.getMessage(), tx.failure);
          }
        }
        System.arraycopy(inserted, 0, stored, 0, inserted.length);
        return;
      } catch (SQLException e) {
        if (tx != null) {
          tx.abandon(e);
        }
        if (again(e, attempt, started, timeoutSeconds)) {
          continue;
        }
        throw new StoreException(first.where() + " and " + (calls.size() - 1) + " more: the insert failed and"
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

  /** One {@code INSERT} of rows {@code from} to {@code to} of {@link #insertAll}, marking those inserted. */
  private int insertRows(Connection c, List<StoredCall> calls, int from, int to, String[] tokens, boolean[] inserted,
      String owner, Duration lease, boolean quiet) throws SQLException {
    StringBuilder sql = new StringBuilder("INSERT INTO toolcall_call (session_id, call_id, tool_name, state, version,"
        + " document, lease_owner, lease_until, writers, quiet) VALUES ");
    for (int i = from; i < to; i++) {
      sql.append(i == from ? "" : ", ")
          .append("(?, ?, ?, ?, ?, ?::jsonb, ?, now() + ? * interval '1 millisecond', ARRAY[?], ?)");
    }
    sql.append(" ON CONFLICT DO NOTHING RETURNING session_id, call_id");
    Map<Map.Entry<String, String>, Integer> index = new java.util.HashMap<>();
    int rows = 0;
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      ps.setQueryTimeout(timeoutSeconds);
      int p = 1;
      for (int i = from; i < to; i++) {
        StoredCall call = calls.get(i);
        index.put(Map.entry(Nul.escape(call.sessionId()), Nul.escape(call.callId())), i);
        ps.setString(p, Nul.escape(call.sessionId()));
        ps.setString(p + 1, Nul.escape(call.callId()));
        ps.setString(p + 2, Nul.escape(call.toolName()));
        ps.setString(p + 3, call.state().wireName());
        ps.setInt(p + 4, call.version());
        ps.setString(p + 5, Nul.escapeJson(call.document()));
        bindLease(ps, p + 6, call.state(), owner, lease);
        ps.setString(p + 8, tokens[i]);
        ps.setBoolean(p + 9, quiet);
        p += 10;
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Integer i = index.get(Map.entry(rs.getString(1), rs.getString(2)));
          if (i != null) {
            inserted[i] = true;
            rows++;
          }
        }
      }
    }
    return rows;
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
   * {@link PostgresCallStore#compareAndSet(StoredCall, StoredCall)} by the runtime {@code owner}: a version that is
   * pending, approved or running carries its lease until {@code lease} from the server's now; a version waiting for a
   * person, or ended, carries none ({@link #driven}).
   */
  PostgresCallStore.CasResult compareAndSet(StoredCall expected, StoredCall next, String owner, Duration lease,
      boolean quiet) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(next, "next");
    if (!expected.sessionId().equals(next.sessionId()) || !expected.callId().equals(next.callId())
        || next.version() != expected.version() + 1) {
      throw new IllegalArgumentException("next must be version " + (expected.version() + 1L) + " of "
          + expected.where() + ", was version " + next.version() + " of " + next.where());
    }
    String token = token(next.version());
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      Connection c = connect(next, "the write of version " + next.version());
      Tx tx = null;
      try {
        tx = new Tx(c);
        int rows;
        try (PreparedStatement ps = c.prepareStatement(
            "UPDATE toolcall_call SET state = ?, version = ?, document = ?::jsonb, updated_at = now(),"
                + " lease_owner = ?, lease_until = now() + ? * interval '1 millisecond',"
                + " writers = (writers || ?::text)[greatest(1, cardinality(writers) - " + (WRITERS_KEPT - 2) + "):],"
                + " quiet = ? WHERE session_id = ? AND call_id = ? AND version = ?")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, next.state().wireName());
          ps.setInt(2, next.version());
          ps.setString(3, Nul.escapeJson(next.document()));
          bindLease(ps, 4, next.state(), owner, lease);
          ps.setString(6, token);
          ps.setBoolean(7, quiet);
          ps.setString(8, Nul.escape(next.sessionId()));
          ps.setString(9, Nul.escape(next.callId()));
          ps.setInt(10, expected.version());
          rows = ps.executeUpdate();
        }
        if (rows == 0) {
          tx.rollback();
          return new PostgresCallStore.CasResult(false, loadOrThrow(next.sessionId(), next.callId()).orElseThrow(() ->
              new StoreException(next.where() + ": the row is gone", null)));
        }
        if (tx.commit()) {
          return new PostgresCallStore.CasResult(true, next);
        }
        return settle(expected, next, token, tx.failure);
      } catch (SQLException e) {
        if (tx != null) {
          tx.abandon(e);
        }
        if (again(e, attempt, started, timeoutSeconds)) {
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
        "SELECT " + Rows.COLUMNS + ", writers FROM toolcall_call WHERE session_id = ? AND call_id = ? FOR SHARE")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(call.sessionId()));
      ps.setString(2, Nul.escape(call.callId()));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        java.sql.Array a = rs.getArray(7);
        List<String> writers = a == null ? List.of() : List.of((String[]) a.getArray());
        return Optional.of(Map.entry(Rows.row(rs), writers));
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
  private PostgresCallStore.CasResult settle(StoredCall expected, StoredCall next, String token, SQLException cause) {
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
      return new PostgresCallStore.CasResult(true, next);
    }
    if (row.version() == expected.version()) {
      throw new StoreException(next.where() + ": the write of version " + next.version() + " was not applied (the"
          + " connection died before it committed): " + cause.getMessage(), cause);
    }
    String prefix = next.version() + ":";
    if (row.version() >= next.version() && writers.stream().anyMatch(w -> w.startsWith(prefix))) {
      return new PostgresCallStore.CasResult(false, row);
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
   * A connection for a write that is one autocommit statement; when none can be had, a {@link StoreException} saying
   * the write was not sent (so it certainly did not commit). A connection lost once the statement was sent is
   * {@link StoreException#outcomeUnknown()}: these writes are idempotent, and trying again settles them.
   */
  static Connection writeConnection(DataSource dataSource) {
    try {
      return dataSource.getConnection();
    } catch (SQLException e) {
      throw new StoreException("the write was not sent (no connection to the database) and changed nothing: "
          + e.getMessage(), e);
    }
  }

  /**
   * Whether a write whose transaction failed with {@code e} on its try {@code attempt} (from 1), first tried at
   * {@code started} ({@link System#nanoTime}), is tried again, after waiting: only a serialization failure or a
   * deadlock (which {@code SERIALIZABLE} and {@code REPEATABLE READ} isolation report for racing writes of a row, and
   * which change nothing), and only while the write's time lasts (the statement timeout, from its first try). The
   * wait doubles from 2 ms up to 200 ms, each a random time between half of it and all of it, so racing writers do not
   * meet again at once. An interrupted wait stops trying (the interrupt is kept).
   */
  static boolean again(SQLException e, int attempt, long started, int timeoutSeconds) {
    if (!retryable(e)) {
      return false;
    }
    long cap = Math.min(BACKOFF_CAP_NANOS, BACKOFF_FIRST_NANOS << Math.min(attempt - 1, 20));
    long wait = cap / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(cap / 2 + 1);
    if (System.nanoTime() + wait - started > java.util.concurrent.TimeUnit.SECONDS.toNanos(timeoutSeconds)) {
      return false;
    }
    java.util.concurrent.locks.LockSupport.parkNanos(wait);
    return !Thread.currentThread().isInterrupted();
  }

  /** One statement of the store that changes nothing when it fails, run on a connection of its own. */
  @FunctionalInterface
  interface Statement<T> {
    T run() throws SQLException;
  }

  /**
   * Runs {@code statement}, trying it again as {@link #again} says while it fails to serialize or deadlocks (a lease
   * renewal racing the writes of its rows under {@code SERIALIZABLE} isolation, say).
   */
  static <T> T retried(int timeoutSeconds, Statement<T> statement) throws SQLException {
    long started = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      try {
        return statement.run();
      } catch (SQLException e) {
        if (!again(e, attempt, started, timeoutSeconds)) {
          throw e;
        }
      }
    }
  }

  /** Serialization failure or deadlock: the transaction may be retried. */
  static boolean retryable(SQLException e) {
    String s = e.getSQLState();
    return "40001".equals(s) || "40P01".equals(s);
  }

  /** The connection failed (SQLSTATE class 08, or an admin shutdown or terminated backend, class 57P). */
  static boolean connectionLost(SQLException e) {
    String s = e.getSQLState();
    return s != null && (s.startsWith("08") || s.startsWith("57P"));
  }
}
