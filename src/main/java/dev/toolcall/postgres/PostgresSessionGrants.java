package dev.toolcall.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The grants made by "approve for session", in the table {@code toolcall_session_grant}, for
 * {@code PermissionService.Builder.sessionGrantStore}: a grant made on one runtime approves the calls of its session
 * on every runtime on this database, and survives restarts. Each read is one query (a runtime reads once per call it
 * authorizes that no rule decided); a failed one is a {@link StoreException}, which the service logs before asking
 * the person instead. U+0000 in ids and arguments is escaped as the call rows escape it. Immutable after
 * construction and thread-safe: each operation takes its own connection.
 */
final class PostgresSessionGrants implements dev.toolcall.permission.SessionGrantStore {
  private static final String GRANT_COLUMNS = "session_id, grant_id, tool_name, arguments, created_at, expires_at,"
      + " arguments_match";

  private final DataSource dataSource;
  private final int timeoutSeconds;

  PostgresSessionGrants(DataSource dataSource, int timeoutSeconds) {
    this.dataSource = dataSource;
    this.timeoutSeconds = timeoutSeconds;
  }

  @Override
  public List<dev.toolcall.permission.Grant> of(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    return query("SELECT " + GRANT_COLUMNS + " FROM toolcall_session_grant WHERE session_id = ? ORDER BY seq",
        sessionId).getOrDefault(sessionId, List.of());
  }

  /** Every session's grants, in the order they were added (what a restore reads). */
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

  /** Inserts the grant, or replaces the session's grant of the same id (so a retried write does no harm). */
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
    try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setQueryTimeout(timeoutSeconds);
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i] instanceof String t ? Nul.escape(t) : args[i]);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("writing session grants failed: " + e.getMessage(), e,
        Writes.connectionLost(e));
    }
  }

  @Override
  public String toString() {
    return "PostgresCallStore.sessionGrants()";
  }
}
