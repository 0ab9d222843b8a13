package dev.toolcall.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.ToolCallState;
import java.sql.ResultSet;
import java.sql.SQLException;

/** How {@link PostgresCallStore} reads a call row: the columns it selects, the ended states, and the row's checks. */
final class Rows {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String COLUMNS = "session_id, call_id, tool_name, state, version, document::text";
  static final String ENDED = "('completed', 'failed', 'cancelled', 'permission_denied')";
  /**
   * A waiting row's deadline, or null when its text is not an instant as this version writes it (a row of a newer
   * version, say): guarded, so that one such row cannot make the cast fail the whole query.
   */
  static final String DEADLINE = "(CASE WHEN document #>> '{permission,deadline}'"
      + " ~ '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?Z$'"
      + " THEN (document #>> '{permission,deadline}')::timestamptz END)";

  private Rows() {}

  /** A row's key in {@link PostgresCallStore}'s record of unreadable rows, from its stored (escaped) ids. */
  static String key(String storedSession, String storedCall) {
    return storedSession.length() + ":" + storedSession + storedCall;
  }

  /** A row as this version reads it, or a {@link StoreException} naming the row. */
  static StoredCall row(ResultSet rs) throws SQLException {
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
}
