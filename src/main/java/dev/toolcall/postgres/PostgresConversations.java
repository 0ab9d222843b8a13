package dev.toolcall.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
