package dev.toolcall.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The agent states of {@link PostgresCallStore#saveConversation}, {@link PostgresCallStore#loadConversation} and
 * {@link PostgresCallStore#deleteConversation}, in the table {@code toolcall_conversation}. Thread-safe: each operation
 * takes its own connection.
 */
final class PostgresConversations {
  private final DataSource dataSource;
  private final int timeoutSeconds;

  PostgresConversations(DataSource dataSource, int timeoutSeconds) {
    this.dataSource = dataSource;
    this.timeoutSeconds = timeoutSeconds;
  }

  boolean save(dev.toolcall.conversation.AgentSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    String id = snapshot.conversation().conversationId();
    try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
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
          Writes.connectionLost(e));
    }
  }

  /**
   * The agent state last saved for {@code conversationId}, if any.
   *
   * @throws StoreException if it cannot be read, or its document is not an agent snapshot this version reads
   */
  Optional<dev.toolcall.conversation.AgentSnapshot> load(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT document::text FROM toolcall_conversation WHERE conversation_id = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(conversationId));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || rs.getString(1) == null) {
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

  /** This table as a {@link dev.toolcall.conversation.ConversationStore}: see {@link PostgresCallStore#conversations}. */
  dev.toolcall.conversation.ConversationStore store() {
    return new Owned();
  }

  /** The conversations with their owners: each operation one statement on the conversation's row. */
  private final class Owned implements dev.toolcall.conversation.ConversationStore {
    @Override
    public Step take(String conversationId, String owner, Duration lease) {
      Objects.requireNonNull(conversationId, "conversationId");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(lease, "lease");
      if (conversationId.isBlank() || owner.isBlank() || lease.isNegative() || lease.isZero()) {
        throw new IllegalArgumentException("conversationId and owner must not be blank and lease must be positive;"
            + " were '" + conversationId + "', '" + owner + "', " + lease);
      }
      String id = Nul.escape(conversationId);
      for (int attempt = 0; ; attempt++) {
        try (Connection c = Writes.writeConnection(dataSource)) {
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO toolcall_conversation AS t"
              + " (conversation_id, version, document, revision, owner, owner_until)"
              + " VALUES (?, 0, NULL, 1, ?, now() + make_interval(secs => ?))"
              + " ON CONFLICT (conversation_id) DO UPDATE SET revision = t.revision + 1, owner = EXCLUDED.owner,"
              + " owner_until = EXCLUDED.owner_until WHERE t.owner IS NULL OR t.owner_until <= now()"
              + " RETURNING revision, document::text")) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setString(1, id);
            ps.setString(2, owner);
            ps.setDouble(3, lease.toNanos() / 1e9);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                return new Taken(conversationId, owner, rs.getLong(1), document(conversationId, rs.getString(2)));
              }
            }
          }
          try (PreparedStatement ps = c.prepareStatement(
              "SELECT owner_until FROM toolcall_conversation WHERE conversation_id = ?")) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next() && rs.getTimestamp(1) != null) {
                return new Busy(conversationId, rs.getTimestamp(1).toInstant());
              }
            }
          }
          if (attempt >= 2) { // let go between the two statements, three times running
            throw new StoreException("conversation " + conversationId + ": could not be taken (its holder kept"
                + " letting go and taking it again)", null);
          }
        } catch (SQLException e) {
          throw new StoreException("conversation " + conversationId + ": take failed (nothing was taken): "
              + e.getMessage(), e);
        }
      }
    }

    @Override
    public boolean put(Taken taken, dev.toolcall.conversation.AgentSnapshot next) {
      Objects.requireNonNull(taken, "taken");
      Objects.requireNonNull(next, "next");
      if (!next.conversation().conversationId().equals(taken.conversationId())) {
        throw new IllegalArgumentException("next is conversation " + next.conversation().conversationId()
            + ", not the taken conversation " + taken.conversationId());
      }
      try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
          "UPDATE toolcall_conversation SET document = ?::jsonb, version = ?, revision = revision + 1, owner = NULL,"
              + " owner_until = NULL, updated_at = now() WHERE conversation_id = ? AND revision = ? AND owner = ?")) {
        ps.setQueryTimeout(timeoutSeconds);
        ps.setString(1, Nul.escapeJson(next.toJson()));
        ps.setInt(2, next.conversation().version());
        ps.setString(3, Nul.escape(taken.conversationId()));
        ps.setLong(4, taken.revision());
        ps.setString(5, taken.owner());
        return ps.executeUpdate() == 1;
      } catch (SQLException e) {
        if (Writes.connectionLost(e)) { // the answer was lost: stored if the row moved on by this write alone
          Optional<Stored> now = read(taken.conversationId());
          if (now.isPresent() && now.get().revision() == taken.revision() + 1 && !now.get().held()) {
            return true;
          }
        }
        throw new StoreException("conversation " + taken.conversationId() + ": storing the step failed: "
            + e.getMessage(), e, Writes.connectionLost(e));
      }
    }

    @Override
    public void release(Taken taken) {
      Objects.requireNonNull(taken, "taken");
      try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
          "WITH gone AS (DELETE FROM toolcall_conversation WHERE conversation_id = ? AND revision = ? AND owner = ?"
              + " AND document IS NULL RETURNING 1) UPDATE toolcall_conversation SET revision = revision + 1,"
              + " owner = NULL, owner_until = NULL WHERE conversation_id = ? AND revision = ? AND owner = ?")) {
        ps.setQueryTimeout(timeoutSeconds);
        for (int i = 0; i < 2; i++) {
          ps.setString(1 + 3 * i, Nul.escape(taken.conversationId()));
          ps.setLong(2 + 3 * i, taken.revision());
          ps.setString(3 + 3 * i, taken.owner());
        }
        ps.executeUpdate();
      } catch (SQLException e) {
        throw new StoreException("conversation " + taken.conversationId() + ": letting go failed (the hold lapses"
            + " with its lease): " + e.getMessage(), e, Writes.connectionLost(e));
      }
    }

    @Override
    public boolean renew(Taken taken, Duration lease) {
      Objects.requireNonNull(taken, "taken");
      Objects.requireNonNull(lease, "lease");
      try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
          "UPDATE toolcall_conversation SET owner_until = now() + make_interval(secs => ?)"
              + " WHERE conversation_id = ? AND revision = ? AND owner = ?")) {
        ps.setQueryTimeout(timeoutSeconds);
        ps.setDouble(1, lease.toNanos() / 1e9);
        ps.setString(2, Nul.escape(taken.conversationId()));
        ps.setLong(3, taken.revision());
        ps.setString(4, taken.owner());
        return ps.executeUpdate() == 1;
      } catch (SQLException e) {
        throw new StoreException("conversation " + taken.conversationId() + ": renewing the hold failed: "
            + e.getMessage(), e, Writes.connectionLost(e));
      }
    }

    @Override
    public Optional<Stored> read(String conversationId) {
      Objects.requireNonNull(conversationId, "conversationId");
      try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
          "SELECT revision, document::text, owner IS NOT NULL AND owner_until > now()"
              + " FROM toolcall_conversation WHERE conversation_id = ?")) {
        ps.setQueryTimeout(timeoutSeconds);
        ps.setString(1, Nul.escape(conversationId));
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          return Optional.of(new Stored(rs.getLong(1), document(conversationId, rs.getString(2)), rs.getBoolean(3)));
        }
      } catch (SQLException e) {
        throw new StoreException("conversation " + conversationId + ": read failed: " + e.getMessage(), e);
      }
    }

    @Override
    public String toString() {
      return "PostgresCallStore.conversations()";
    }
  }

  private static Optional<dev.toolcall.conversation.AgentSnapshot> document(String conversationId, String json) {
    if (json == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(dev.toolcall.conversation.AgentSnapshot.fromJson(Nul.unescapeJson(json)));
    } catch (IllegalArgumentException e) {
      throw new StoreException("conversation " + conversationId + ": its document cannot be read: "
          + e.getMessage(), e);
    }
  }

  /** Deletes the saved state of {@code conversationId} (its conversation is over); whether there was one. */
  boolean delete(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    try (Connection c = Writes.writeConnection(dataSource); PreparedStatement ps = c.prepareStatement(
        "DELETE FROM toolcall_conversation WHERE conversation_id = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(conversationId));
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new StoreException("conversation " + conversationId + ": delete failed: " + e.getMessage(), e,
          Writes.connectionLost(e));
    }
  }
}
