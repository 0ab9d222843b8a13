package dev.toolcall.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * One runtime's view of the shared store: {@link PostgresCallStore#shared}. Its {@link #watch} leaves out the versions
 * this view wrote itself (its runtime installs each of them as the write returns), so a runtime does not read back its
 * own writes when their notifications overtake the install. Writes go through
 * {@link Writes} with this runtime's name and lease on the row; reads, lease renewal and the sweep are one statement
 * each. Thread-safe: each operation takes its own connection. Every failure is a {@link StoreException}.
 */
final class SharedView implements dev.toolcall.SharedCallStore {
  private final PostgresCallStore store;
  private final Writes writes;
  private final DataSource dataSource;
  private final int timeoutSeconds;
  private final String owner;
  private final Duration lease;

  SharedView(PostgresCallStore store, Writes writes, DataSource dataSource, int timeoutSeconds, String owner,
      Duration lease) {
    this.store = store;
    this.writes = writes;
    this.dataSource = dataSource;
    this.timeoutSeconds = timeoutSeconds;
    this.owner = owner;
    this.lease = lease;
  }

  /**
   * The version of each call this view wrote or is writing, for the latest 4,096 calls it wrote, by session and call
   * id; guarded by itself. Writes of one call are serialised by its runtime, so each call has at most one under way.
   */
  private final Map<Map.Entry<String, String>, Own> own = new LinkedHashMap<>(16, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<Map.Entry<String, String>, Own> eldest) {
      return size() > 4096;
    }
  };

  /** The listeners of this view's open watches. */
  private final List<Listener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * A version of a call this view writes: {@code writing} until its write returns, then kept only if it won.
   * {@code heard} when its notification came while the write was under way (and was held back). Guarded by
   * {@link #own}.
   */
  private static final class Own {
    final int version;
    boolean writing = true;
    boolean heard;

    Own(int version) {
      this.version = version;
    }
  }

  /**
   * Inserts the call's row under this runtime's lease; false if the session has a call of that id already. Its
   * version is this view's own write, as {@link #compareAndSet}'s are (a call stored with its first change is inserted
   * at that change's version, and the feed must not make the runtime read it back).
   */
  @Override
  public boolean create(dev.toolcall.ToolCallSnapshot first) {
    return owned(first, () -> writes.insert(PostgresCallStore.stored(first), owner, lease, false));
  }

  /** Inserts the calls' rows in one transaction under this runtime's lease, leaving out those stored already. */
  @Override
  public void createAll(List<dev.toolcall.ToolCallSnapshot> firsts, boolean[] stored) {
    writes.insertAll(PostgresCallStore.storedAll(firsts, stored), stored, owner, lease, false);
  }

  /** One conditional UPDATE that also takes (or keeps; drops it for a call waiting for a person or ended) this runtime's lease. */
  @Override
  public boolean compareAndSet(dev.toolcall.ToolCallSnapshot expected, dev.toolcall.ToolCallSnapshot next) {
    return owned(next, () -> writes.compareAndSet(PostgresCallStore.stored(expected), PostgresCallStore.stored(next),
        owner, lease, false).won());
  }

  /**
   * Runs {@code write} of {@code next} as this view's own: the feed's notification of that version is left out while
   * the write is under way, and told once it returns if the write did not win (another writer's version).
   */
  private boolean owned(dev.toolcall.ToolCallSnapshot next, java.util.function.BooleanSupplier write) {
    Map.Entry<String, String> key = Map.entry(next.identity().sessionId(), next.callId());
    Own mine = new Own(next.version());
    synchronized (own) {
      own.put(key, mine);
    }
    boolean won = false;
    try {
      won = write.getAsBoolean();
      return won;
    } finally {
      boolean tell;
      synchronized (own) {
        mine.writing = false;
        tell = !won && mine.heard;
        if (!won) {
          own.remove(key, mine);
        }
      }
      if (tell) { // that version was another writer's: told now, as the feed would have
        for (Listener l : listeners) {
          l.stored(key.getKey(), key.getValue(), mine.version);
        }
      }
    }
  }

  /**
   * Whether the feed's notification of {@code version} of a call is of this view's own write, so its runtime has (or
   * is about to install) it: held back while the write is under way (told once it returns if it did not win).
   */
  private boolean ownVersion(String sessionId, String callId, int version) {
    synchronized (own) {
      Own mine = own.get(Map.entry(sessionId, callId));
      if (mine == null || mine.version != version) {
        return false;
      }
      if (mine.writing) {
        mine.heard = true;
      }
      return true;
    }
  }

  @Override
  public Optional<dev.toolcall.CallRecord> read(String sessionId, String callId) {
    return store.load(sessionId, callId).map(PostgresCallStore::entry);
  }

  @Override
  public List<dev.toolcall.CallRecord> readByLabels(String sessionId, java.util.Collection<String> labels) {
    return store.readByLabels(sessionId, labels);
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

  /**
   * The waiting call whose permission request is {@code requestId}, through the partial index on the document's
   * request id; empty when no call waits on it (answered already, or unknown).
   */
  @Override
  public Optional<dev.toolcall.CallRecord> readByRequest(String requestId) {
    Objects.requireNonNull(requestId, "requestId");
    try {
      return Writes.retried(timeoutSeconds, () -> {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT "
            + Rows.COLUMNS + " FROM toolcall_call WHERE state = 'permission_pending' AND document #>>"
            + " '{permission,requestId}' = ?")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, Nul.escape(requestId));
          try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(PostgresCallStore.entry(Rows.row(rs))) : Optional.empty();
          }
        }
      });
    } catch (SQLException e) {
      throw new StoreException("reading the call of request " + requestId + " failed: " + e.getMessage(), e);
    }
  }

  /** Moves the end of every lease this runtime holds to now plus the lease, in one UPDATE; how many rows. */
  @Override
  public int renewLeases() {
    try {
      return Writes.retried(timeoutSeconds, () -> {
        try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
            "UPDATE toolcall_call SET lease_until = now() + ? * interval '1 millisecond'"
                + " WHERE lease_owner = ?")) { // only rows it drives carry a lease
          ps.setQueryTimeout(timeoutSeconds);
          ps.setLong(1, lease.toMillis());
          ps.setString(2, owner);
          return ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      throw new StoreException("renewing the leases of " + owner + " failed: " + e.getMessage(), e,
        Writes.connectionLost(e));
    }
  }

  /** Ends every lease this runtime holds now (it stops), so others may take its calls at once; how many rows. */
  @Override
  public int releaseLeases() {
    try {
      return Writes.retried(timeoutSeconds, () -> {
        try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
            "UPDATE toolcall_call SET lease_until = now() WHERE lease_owner = ?")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, owner);
          return ps.executeUpdate();
        }
      });
    } catch (SQLException e) {
      throw new StoreException("releasing the leases of " + owner + " failed: " + e.getMessage(), e,
        Writes.connectionLost(e));
    }
  }

  /**
   * The calls nobody looks after: not ended, and either leased with the lease run out, or waiting past the request's
   * deadline. A row this version cannot read is left out and named once in a WARN.
   */
  @Override
  public List<dev.toolcall.CallRecord> overdue() {
    try {
      return Writes.retried(timeoutSeconds, this::readOverdue);
    } catch (SQLException e) {
      throw new StoreException("reading the overdue calls failed: " + e.getMessage(), e);
    }
  }

  private List<dev.toolcall.CallRecord> readOverdue() throws SQLException {
    return readRows("SELECT " + Rows.COLUMNS
        + " FROM toolcall_call WHERE state NOT IN " + Rows.ENDED + " AND (state <> 'permission_pending'"
        + " AND lease_until <= now()"
        + " OR state = 'permission_pending' AND " + Rows.DEADLINE + " < now()"
        + " AND lease_owner IS DISTINCT FROM '" + HANDED_OVER + "')"
        + " ORDER BY seq");
  }

  /** The lease owner of a waiting call its runtime handed over to the store ({@link #handOver}): nobody. */
  static final String HANDED_OVER = "";

  /**
   * Marks the waiting call {@code s} as handed over (its lease owner is the empty name, no lease), if its row still
   * holds that version waiting: no runtime will deny it at its deadline by its own timer, so a sweep does as soon as
   * the deadline has passed. Not a new version: nothing is published.
   */
  @Override
  public boolean handOver(dev.toolcall.ToolCallSnapshot s) {
    Objects.requireNonNull(s, "s");
    try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
        "UPDATE toolcall_call SET lease_owner = '" + HANDED_OVER + "', lease_until = NULL"
            + " WHERE session_id = ? AND call_id = ? AND version = ? AND state = 'permission_pending'")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(s.identity().sessionId()));
      ps.setString(2, Nul.escape(s.callId()));
      ps.setInt(3, s.version());
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new StoreException("handing call " + s.callId() + " over failed: " + e.getMessage(), e,
          Writes.connectionLost(e));
    }
  }

  /** The calls not ended under this view's lease ({@link dev.toolcall.SharedCallStore#leased}). */
  @Override
  public List<dev.toolcall.CallRecord> leased() {
    try {
      return Writes.retried(timeoutSeconds, () -> {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT "
            + Rows.COLUMNS + " FROM toolcall_call WHERE lease_owner = ? AND state NOT IN " + Rows.ENDED
            + " ORDER BY seq")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, owner);
          List<dev.toolcall.CallRecord> out = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              try {
                out.add(PostgresCallStore.entry(Rows.row(rs)));
              } catch (StoreException e) {
                store.unreadable(Rows.key(rs.getString(1), rs.getString(2)), e);
              }
            }
          }
          return out;
        }
      });
    } catch (SQLException e) {
      throw new StoreException("reading the calls leased by " + owner + " failed: " + e.getMessage(), e);
    }
  }

  /** The waiting calls handed over to the store ({@link #handOver}) whose deadline has passed. */
  @Override
  public List<dev.toolcall.CallRecord> handedOverPastDeadline() {
    try {
      return Writes.retried(timeoutSeconds, () -> readRows("SELECT " + Rows.COLUMNS
          + " FROM toolcall_call WHERE state = 'permission_pending' AND lease_owner = '" + HANDED_OVER + "' AND "
          + Rows.DEADLINE + " < now() ORDER BY seq"));
    } catch (SQLException e) {
      throw new StoreException("reading the handed-over calls past their deadlines failed: " + e.getMessage(), e);
    }
  }

  private List<dev.toolcall.CallRecord> readRows(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setQueryTimeout(timeoutSeconds);
      List<dev.toolcall.CallRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          try {
            out.add(PostgresCallStore.entry(Rows.row(rs)));
          } catch (StoreException e) {
            store.unreadable(Rows.key(rs.getString(1), rs.getString(2)), e);
          }
        }
      }
      return out;
    }
  }

  /**
   * A {@link ChangeFeed} (waiting 500 ms at a time) that tells {@code listener} each version stored, and each change
   * of a conversation ({@link dev.toolcall.SharedCallStore.Listener#conversationChanged}), on one connection.
   */
  @Override
  public AutoCloseable watch(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    ChangeFeed feed;
    try {
      feed = ChangeFeed.start(dataSource, ch -> {
        if (!ownVersion(ch.sessionId(), ch.callId(), ch.version())) {
          listener.stored(ch.sessionId(), ch.callId(), ch.version());
        }
      }, ch -> listener.conversationChanged(ch.conversationId(), ch.revision()), Duration.ofMillis(500));
    } catch (RuntimeException | Error e) {
      listeners.remove(listener);
      throw e;
    }
    return () -> {
      listeners.remove(listener);
      feed.close();
    };
  }

  @Override
  public String toString() {
    return "PostgresCallStore.shared(" + owner + ")";
  }
}
