package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Outcome;
import dev.toolcall.ToolCall;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, parts 1, 4 and 5 for one runtime: a runtime whose calls are stored in PostgreSQL
 * ({@code callStore(store.calls())}) writes each change before it is visible, so a restart restores what is in the
 * database, with no snapshot file; a write the database refuses changes nothing and publishes nothing.
 */
class PostgresRuntimeTest {
  static DataSource db;
  static PostgresCallStore store;

  @BeforeAll
  static void database() {
    db = PgCluster.database("toolcall_runtime_test");
    store = PostgresCallStore.create(db);
    store.applySchema();
  }

  static final class Tools {
    final AtomicInteger shellRuns = new AtomicInteger();

    List<Tool> all() {
      return List.of(Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
        shellRuns.incrementAndGet();
        return ToolResult.of("ran " + inv.arguments().raw());
      }), Tool.of(ToolDefinition.builder("read").readOnly(true).requiresApproval(false).build(),
          inv -> ToolResult.of("read")));
    }
  }

  @Test
  void theDatabaseHoldsEveryCallAtItsLastVersion() throws Exception {
    Tools a = new Tools();
    try (ToolCallRuntime ra = ToolCallRuntime.builder().tools(a.all()).callStore(store.calls()).build()) {
      Batch b = ra.schedule("r1", List.of(CallRequest.of("read-1", "read", "{}"),
          CallRequest.of("shell-1", "shell", "{\"command\":\"make\"}")));
      b.calls().get(0).whenTerminal().toCompletableFuture().get(10, TimeUnit.SECONDS);
      String request = ra.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow().requestId();
      StoredCall read = store.load("r1", "read-1").orElseThrow();
      assertThat(read.state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(read.version()).isEqualTo(b.calls().get(0).snapshot().version());
      assertThat(read.document()).contains("\"outcome\": {\"state\": \"completed\", \"content\": \"read\"}");
      StoredCall shell = store.load("r1", "shell-1").orElseThrow();
      assertThat(shell.state()).isEqualTo(ToolCallState.PERMISSION_PENDING);
      assertThat(shell.version()).isEqualTo(b.calls().get(1).snapshot().version());
      assertThat(shell.document()).contains(request);
    }
    assertThat(store.load("r1", "shell-1").orElseThrow().state()).as("closing cancelled it, through the store")
        .isEqualTo(ToolCallState.CANCELLED);
  }

  @Test
  void aCrashLeavesTheWaitingRowAndTheNextRuntimeTakesItFromTheDatabase() throws Exception {
    Tools a = new Tools();
    ToolCallRuntime ra = ToolCallRuntime.builder().tools(a.all()).callStore(store.calls()).build();
    ra.schedule("r2", List.of(CallRequest.of("shell-2", "shell", "{\"command\":\"npm test\"}")));
    String request = ra.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow().requestId();
    // a crash: nothing of ra runs again, and nothing is closed (its daemon threads are left to the JVM)

    Tools b = new Tools();
    try (ToolCallRuntime rb = ToolCallRuntime.builder().tools(b.all()).callStore(store.calls()).build()) {
      List<Batch> owed = rb.restore(store.snapshot(Clock.systemUTC()));
      CallResult mine = null;
      PermissionRequest again = rb.permissions().pending().stream().filter(p -> p.requestId().equals(request))
          .findFirst().orElseThrow();
      assertThat(rb.permissions().decide(again.requestId(), Decision.approveOnce(again)).won()).isTrue();
      for (Batch x : owed) {
        for (CallResult r : x.join()) {
          if (r.callId().equals("shell-2")) {
            mine = r;
          }
        }
      }
      assertThat(mine).isNotNull();
      assertThat(mine.outcome()).isEqualTo(new Outcome.Completed("ran {\"command\":\"npm test\"}"));
      assertThat(b.shellRuns).hasValue(1);
      assertThat(a.shellRuns).hasValue(0);
      StoredCall row = store.load("r2", "shell-2").orElseThrow();
      assertThat(row.state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(row.version()).isEqualTo(mine.snapshot().version());
    }
    // ra's in-memory call is stale now: a change through it is refused by the store and loses, as a race in memory
    // would, to what the store holds, which the call adopts (published here once, after the fact)
    ToolCall stale = ra.scheduler().activeCalls().stream().filter(c -> c.callId().equals("shell-2")).findFirst()
        .orElseThrow();
    int stored = store.load("r2", "shell-2").orElseThrow().version();
    var late = stale.cancel("late");
    assertThat(late.won()).isFalse();
    assertThat(late.snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(stale.snapshot().version()).isEqualTo(stored);
    assertThat(stale.snapshot().outcome()).isEqualTo(new Outcome.Completed("ran {\"command\":\"npm test\"}"));
    assertThat(stale.snapshot().change()).isEqualTo(dev.toolcall.Reason.CHANGED_ELSEWHERE);
    ra.close();
    assertThat(store.load("r2", "shell-2").orElseThrow().version()).isEqualTo(stored);
  }

  /** A write the database refuses changes nothing: no event, the row and the call as they were. */
  @Test
  void aFailedWriteChangesNothingAndPublishesNothing() throws Exception {
    AtomicBoolean failing = new AtomicBoolean();
    DataSource flaky = PostgresCallStoreTest.failing(db, (ps, update) -> {
      if (failing.get()) {
        throw new SQLException("could not extend file: No space left on device", "53100");
      }
      return update.get();
    });
    PostgresCallStore flakyStore = PostgresCallStore.create(flaky);
    List<Long> events = new CopyOnWriteArrayList<>();
    try (ToolCallRuntime r = ToolCallRuntime.builder().tools(new Tools().all()).callStore(flakyStore.calls())
        .build()) {
      r.events().subscribe(new EventListener() {
        @Override
        public void onEvent(Event e) {
          if (e.sourceId().equals("shell-3")) {
            events.add(e.version());
          }
        }
      });
      r.schedule("r3", List.of(CallRequest.of("shell-3", "shell", "{\"command\":\"ls\"}")));
      PermissionRequest p = r.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      List<Long> before = List.copyOf(events);
      failing.set(true);
      assertThatThrownBy(() -> r.permissions().decide(p.requestId(), Decision.approveOnce(p)))
          .isInstanceOf(StoreException.class).hasMessageContaining("changed nothing");
      assertThat(events).as("no event for the change that did not commit").isEqualTo(before);
      assertThat(store.load("r3", "shell-3").orElseThrow().state()).isEqualTo(ToolCallState.PERMISSION_PENDING);
      assertThat(r.permissions().pending()).extracting(PermissionRequest::requestId).contains(p.requestId());
      failing.set(false);
      assertThat(r.permissions().decide(p.requestId(), Decision.approveOnce(p)).won()).isTrue();
    }
  }
}
