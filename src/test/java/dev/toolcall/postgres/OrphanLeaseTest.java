package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolResult;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A call stored under a runtime's lease that the runtime does not hold (its first version committed, but the answer
 * to the commit was lost, so the runtime took the call as never stored): the runtime's renewals would keep its lease
 * alive for ever, so no other runtime would ever take it over. The runtime's sweep finds it among its own leased rows
 * and takes it over as a restore would: the call ends (here: it runs once and completes).
 */
class OrphanLeaseTest {

  @Test
  void aRowUnderThisRuntimesLeaseThatItDoesNotHoldIsTakenOver() throws Exception {
    DataSource db = PgCluster.database("toolcall_orphan_lease");
    PostgresCallStore store = PostgresCallStore.create(db);
    store.applySchema();
    AtomicInteger runs = new AtomicInteger();
    Tool shell = Tool.of(ToolDefinition.builder("shell").requiresApproval(false).build(), inv -> {
      runs.incrementAndGet();
      return ToolResult.of("ran");
    });
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(shell)
        .sharedStore(store.shared("orphan", Duration.ofSeconds(1))).build()) {
      // the first version, written under this runtime's lease by a write whose answer it never got
      assertThat(store.shared("orphan", Duration.ofSeconds(1)).create(PostgresHardeningTest.snapshotAt("lost", 0)))
          .isTrue();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!state(db).equals("completed")) {
        assertThat(System.nanoTime()).as("the orphan row is taken over and ends; now " + state(db)).isLessThan(until);
        Thread.sleep(50);
      }
      assertThat(runs).hasValue(1);
    }
  }

  private static String state(DataSource db) throws Exception {
    try (Connection c = db.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT state FROM toolcall_call WHERE call_id = 'lost'")) {
      return rs.next() ? rs.getString(1) : "absent";
    }
  }
}
