package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallState;
import dev.toolcall.ToolResult;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A runtime alone on its store ({@code calls()}) writes quietly: its rows are not announced on the change feed's
 * channel (an announcing transaction takes the notification queue's lock at commit, so announcing writes commit one at
 * a time), while the store's own methods and {@code shared(...)} announce every write. Notifications arrive in commit
 * order, so what a listener got before a marker written last is all the earlier writes announced.
 */
class QuietWritesTest {

  @Test
  void aRuntimeOnCallsIsQuietAndTheOthersAnnounce() throws Exception {
    DataSource db = PgCluster.database("toolcall_quiet");
    PostgresCallStore store = PostgresCallStore.create(db);
    store.applySchema();
    Tool echo = Tool.of(ToolDefinition.builder("echo").requiresApproval(false).build(), inv -> ToolResult.of("ok"));
    try (Connection listen = db.getConnection(); Statement st = listen.createStatement()) {
      st.execute("LISTEN toolcall_call");
      try (ToolCallRuntime alone = ToolCallRuntime.builder().tools(echo).callStore(store.calls()).build()) {
        Batch b = alone.schedule("quiet", List.of(CallRequest.of("q1", "echo", "{}"),
            CallRequest.of("q2", "echo", "{}")));
        b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
        Batch one = alone.schedule("quiet", List.of(CallRequest.of("q3", "echo", "{}")));
        assertThat(one.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS).get(0).snapshot().state())
            .isEqualTo(ToolCallState.COMPLETED);
      }
      try (ToolCallRuntime shared = ToolCallRuntime.builder().tools(echo)
          .sharedStore(store.shared("loud", java.time.Duration.ofMinutes(1))).build()) {
        shared.schedule("loud", List.of(CallRequest.of("l1", "echo", "{}"))).whenDone().toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
      }
      store.insert(new StoredCall("marker", "m", "echo", ToolCallState.RUNNING, 0, "{}"));
      List<String> heard = new ArrayList<>();
      PGConnection pg = listen.unwrap(PGConnection.class);
      while (!heard.contains("6:marker1:m/0")) {
        PGNotification[] got = pg.getNotifications(10_000);
        assertThat(got).as("the marker's notification within 10 s (heard %s)", heard).isNotNull();
        for (PGNotification n : got) {
          heard.add(n.getParameter());
        }
      }
      assertThat(heard).as("nothing of the runtime on calls()").noneMatch(p -> p.startsWith("5:quiet"));
      assertThat(heard).as("the shared runtime's call: stored with its start, then its end")
          .contains("4:loud2:l1/1", "4:loud2:l1/2");
    }
  }
}
