package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Reason;
import dev.toolcall.ToolCallIdentity;
import dev.toolcall.ToolCallOrigin;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.tool.ToolArguments;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 26, items 3 to 7 and 9 (the PostgreSQL store), against a real PostgreSQL ({@link PgCluster}): writes whose
 * outcome the connection hid are settled from the row's record of who wrote each version, the outcome flag is true
 * exactly when a write may have committed, NUL characters are stored, errors retrying cannot fix say so, a row from a
 * newer version blocks no restore, and versions are numbers, never sizes.
 */
class PostgresHardeningTest {
  static DataSource db;
  static PostgresCallStore store;

  @BeforeAll
  static void database() {
    db = PgCluster.database("toolcall_hardening_test");
    store = PostgresCallStore.create(db);
    store.applySchema();
  }

  static ToolCallSnapshot snapshotAt(String callId, int version) {
    ToolCallIdentity id = new ToolCallIdentity(callId, "shell", "s", null, Instant.parse("2026-01-01T00:00:00Z"), 0L,
        ToolCallOrigin.MODEL);
    return new ToolCallSnapshot(id, ToolCallState.PENDING, version, ToolArguments.ofText("{\"cmd\":\"ls\"}"), 0, 0,
        null, Reason.RESTORED, 0L, null);
  }

  static long versionOf(String callId) {
    try (Connection c = db.getConnection(); Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT version FROM toolcall_call WHERE session_id = 's' AND call_id = '"
            + callId + "'")) {
      return rs.next() ? rs.getLong(1) : -1;
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
  }

  // ---- item 7: a version is a number, never a size ----

  /** A call at version 2,147,483,646 is stored, read, and moved on by compare-and-set, allocating nothing by it. */
  @Test
  void aCallAtAHighVersionLoadsAndItsCompareAndSetWorks() {
    ToolCallSnapshot high = snapshotAt("high", Integer.MAX_VALUE - 1);
    assertThat(high.versions()).containsExactly(high);
    assertThat(store.calls().create(high)).isTrue();
    assertThat(store.calls().read("s", "high")).get().extracting(c -> c.version()).isEqualTo(Integer.MAX_VALUE - 1);
    ToolCallSnapshot next = high.next(ToolCallState.RUNNING, Reason.VALIDATING, null, 1L);
    assertThat(store.calls().compareAndSet(high, next)).isTrue();
    assertThat(versionOf("high")).isEqualTo(Integer.MAX_VALUE);
    assertThatThrownBy(() -> next.next(ToolCallState.FAILED, Reason.FAILED, null, 2L))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("s/high").hasMessageContaining("last");
  }

  /** A row whose document and column disagree on the version cannot be right: a clear error naming the row. */
  @Test
  void aRowWhoseVersionsDisagreeIsAnErrorNamingIt() throws Exception {
    ToolCallSnapshot s = snapshotAt("disagree", 3);
    assertThat(store.calls().create(s)).isTrue();
    try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
      st.execute("UPDATE toolcall_call SET version = 7 WHERE session_id = 's' AND call_id = 'disagree'");
    }
    assertThatThrownBy(() -> store.calls().read("s", "disagree")).isInstanceOf(StoreException.class)
        .hasMessageContaining("row s/disagree").hasMessageContaining("version 3").hasMessageContaining("7");
  }
}
