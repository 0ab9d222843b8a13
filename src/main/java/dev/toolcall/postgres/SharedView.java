package dev.toolcall.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * One runtime's view of the shared store: {@link PostgresCallStore#shared}. Writes go through {@link Writes} with this
 * runtime's name and lease on the row; reads, lease renewal and the sweep are one statement each. Immutable after
 * construction and thread-safe: each operation takes its own connection. Every failure is a {@link StoreException}.
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

  /** Inserts the call's row under this runtime's lease; false if the session has a call of that id already. */
  @Override
  public boolean create(dev.toolcall.ToolCallSnapshot first) {
    return writes.insert(PostgresCallStore.stored(first), owner, lease);
  }

  /** One conditional UPDATE that also takes (or keeps; drops it for a call waiting for a person or ended) this runtime's lease. */
  @Override
  public boolean compareAndSet(dev.toolcall.ToolCallSnapshot expected, dev.toolcall.ToolCallSnapshot next) {
    return writes.compareAndSet(PostgresCallStore.stored(expected), PostgresCallStore.stored(next), owner, lease)
        .won();
  }

  @Override
  public Optional<dev.toolcall.CallRecord> read(String sessionId, String callId) {
    return store.load(sessionId, callId).map(PostgresCallStore::entry);
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
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT " + Rows.COLUMNS
        + " FROM toolcall_call WHERE state = 'permission_pending' AND document #>> '{permission,requestId}' = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(requestId));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(PostgresCallStore.entry(Rows.row(rs))) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new StoreException("reading the call of request " + requestId + " failed: " + e.getMessage(), e);
    }
  }

  /** Moves the end of every lease this runtime holds to now plus the lease, in one UPDATE; how many rows. */
  @Override
  public int renewLeases() {
    try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
        "UPDATE toolcall_call SET lease_until = now() + ? * interval '1 millisecond'"
            + " WHERE lease_owner = ?")) { // only rows it drives carry a lease
      ps.setQueryTimeout(timeoutSeconds);
      ps.setLong(1, lease.toMillis());
      ps.setString(2, owner);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("renewing the leases of " + owner + " failed: " + e.getMessage(), e,
        Writes.connectionLost(e));
    }
  }

  /** Ends every lease this runtime holds now (it stops), so others may take its calls at once; how many rows. */
  @Override
  public int releaseLeases() {
    try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
        "UPDATE toolcall_call SET lease_until = now() WHERE lease_owner = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, owner);
      return ps.executeUpdate();
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
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT " + Rows.COLUMNS
        + " FROM toolcall_call WHERE state NOT IN " + Rows.ENDED + " AND (state <> 'permission_pending'"
        + " AND lease_until <= now()"
        + " OR state = 'permission_pending' AND " + Rows.DEADLINE + " < now())"
        + " ORDER BY seq")) {
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
    } catch (SQLException e) {
      throw new StoreException("reading the overdue calls failed: " + e.getMessage(), e);
    }
  }

  /** A {@link ChangeFeed} (waiting 500 ms at a time) that tells {@code listener} each version stored. */
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
