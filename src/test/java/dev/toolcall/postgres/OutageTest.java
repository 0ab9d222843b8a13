package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.SharedCallStore;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.Logs;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 26, items 2 and 8: two runtimes on one PostgreSQL database that becomes unreachable for a while (each
 * runtime's {@code DataSource} refuses every new connection while the test's switch is down, as a stopped server
 * does). A permission deadline that passes meanwhile is denied once when the database is back, whoever holds the
 * request, and an approval that comes after the deadline loses; a tool that finishes during the outage keeps its
 * result, and the other runtime does not take the call over as if its runtime had crashed. An audit trigger of the
 * test's own records every stored version.
 */
class OutageTest {
  private static final String DB = "toolcall_outage";

  /** Whether the database is "down": every new connection of either runtime is refused. */
  final AtomicBoolean down = new AtomicBoolean();
  DataSource dbA;
  DataSource dbB;
  final List<ToolCallRuntime> open = new CopyOnWriteArrayList<>();

  @BeforeEach
  void database() throws SQLException {
    DataSource admin = PgCluster.database(DB);
    PostgresCallStore.create(admin).applySchema();
    try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
      PgCluster.installAudit(s);
    }
    dbA = switched(Pool.of(TwoRuntimesTest.second(DB), 8));
    dbB = switched(Pool.of(TwoRuntimesTest.second(DB), 8));
    Logs.expect(ChangeFeed.class);
    Logs.expect("dev.toolcall.runtime.SharedStoreLink");
    Logs.expect(dev.toolcall.permission.PermissionService.class);
    Logs.expect(dev.toolcall.execution.ToolScheduler.class);
    Logs.expect("dev.toolcall.HeapDeadlineTimer");
  }

  @AfterEach
  void close() {
    down.set(false);
    open.forEach(ToolCallRuntime::close);
  }

  /** {@code ds}, refusing new connections while {@link #down}, as an unreachable server does. */
  DataSource switched(DataSource ds) {
    return PostgresCallStoreTest.proxy(DataSource.class, (p, m, args) -> {
      if (m.getName().equals("getConnection") && down.get()) {
        throw new SQLException("Connection to 127.0.0.1 refused (the test's outage)", "08001");
      }
      return PostgresCallStoreTest.invoke(ds, m, args);
    });
  }

  /** What one runtime's store saw: failed denials and end writes, failed sweeps, and a gate on its own writes. */
  static final class Watched {
    final AtomicInteger failedDenials = new AtomicInteger();
    final AtomicInteger failedEnds = new AtomicInteger();
    final AtomicInteger failedSweeps = new AtomicInteger();
    final AtomicInteger failedRenewals = new AtomicInteger();
    /** Counted down by each sweep ({@code overdue()}) that reads the database. */
    final AtomicReference<CountDownLatch> sweeps = new AtomicReference<>();
    /** When set, lease renewals and end writes wait for it first. */
    final AtomicReference<CountDownLatch> gate = new AtomicReference<>();
  }

  static SharedCallStore watched(SharedCallStore store, Watched w) {
    return PostgresCallStoreTest.proxy(SharedCallStore.class, (p, m, args) -> {
      String name = m.getName();
      boolean end = name.equals("compareAndSet") && ((ToolCallSnapshot) args[1]).isTerminal();
      CountDownLatch gate = w.gate.get();
      if (gate != null && (end || name.equals("renewLeases"))) {
        assertThat(gate.await(20, TimeUnit.SECONDS)).isTrue();
      }
      try {
        Object out = PostgresCallStoreTest.invoke(store, m, args);
        CountDownLatch sweeps = w.sweeps.get();
        if (name.equals("overdue") && sweeps != null) {
          sweeps.countDown();
        }
        return out;
      } catch (RuntimeException e) {
        if (name.equals("compareAndSet")
            && ((ToolCallSnapshot) args[1]).state() == ToolCallState.PERMISSION_DENIED) {
          w.failedDenials.incrementAndGet();
        } else if (end) {
          w.failedEnds.incrementAndGet();
        } else if (name.equals("overdue")) {
          w.failedSweeps.incrementAndGet();
        } else if (name.equals("renewLeases")) {
          w.failedRenewals.incrementAndGet();
        }
        throw e;
      }
    });
  }

  ToolCallRuntime runtime(String name, DataSource ds, Duration lease, Watched w, Tool... tools) {
    ToolCallRuntime r = ToolCallRuntime.builder().tools(tools)
        .sharedStore(watched(PostgresCallStore.create(ds).shared(name, lease), w)).build();
    open.add(r);
    return r;
  }

  static Tool quick(TwoRuntimesTest.Runs runs, String where) {
    return Tool.of(ToolDefinition.builder("quick").permissionTimeout(Duration.ofMillis(1500)).build(), inv -> {
      runs.ran(inv.callId(), where);
      return ToolResult.of("ran");
    });
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(until);
      Thread.sleep(10); // polling the runtimes' progress; nothing asserts on timing
    }
  }

  /**
   * Both runtimes hold a waiting request whose deadline passes while the database is down: each one's deadline
   * denial fails. When the database is back, an approval on B (after the deadline) loses, the request is denied once,
   * as a timeout whose reason says the database was unreachable, and the tool never runs.
   */
  @Test
  void aDeadlineHeldByBothThatPassesDuringAnOutageIsDeniedOnceAfterItAndALateApprovalLoses() throws Exception {
    TwoRuntimesTest.Runs runs = new TwoRuntimesTest.Runs();
    Watched wa = new Watched();
    Watched wb = new Watched();
    ToolCallRuntime a = runtime("a", dbA, Duration.ofSeconds(30), wa, quick(runs, "a"));
    ToolCallRuntime b = runtime("b", dbB, Duration.ofSeconds(30), wb, quick(runs, "b"));
    Batch batch = a.schedule("s", List.of(CallRequest.of("q1", "quick", "{}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    PermissionRequest onB = b.permissions().request(asked.requestId()).orElseThrow();

    down.set(true);
    await("both runtimes tried to deny at the deadline", () -> wa.failedDenials.get() >= 1
        && wb.failedDenials.get() >= 1);
    down.set(false);
    DecisionResult late = b.permissions().decide(onB.requestId(), Decision.approveOnce(onB));
    assertThat(late).as("an approval after the deadline loses").isNotInstanceOf(DecisionResult.Won.class);

    ToolCallSnapshot end = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS).get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    assertThat(((Outcome.Denied) end.outcome()).source()).isEqualTo(DenialSource.TIMEOUT);
    assertThat(end.outcome().messageForModel()).contains("database was unreachable").doesNotContain("process");
    TwoRuntimesTest.awaitEnded(b, "s", "q1");
    assertThat(audit("q1")).containsExactly("pending", "permission_pending", "permission_denied");
    assertThat(runs.of("q1")).isZero();
    assertThat(Logs.of(dev.toolcall.permission.PermissionService.class))
        .as("each runtime's timer says once that it keeps trying, and nothing is logged at ERROR")
        .allMatch(e -> e.level() == org.slf4j.event.Level.WARN)
        .filteredOn(e -> e.message().contains("trying again until it lands")).hasSize(2);
  }

  /**
   * Only A holds the waiting request; its deadline passes while the database is down, so A's denial fails. When the
   * database is back, an approval on B loses, and the denial stored says what happened: no process stopped.
   */
  @Test
  void aDeadlineHeldByOneThatPassesDuringAnOutageIsDeniedOnceWithATrueReason() throws Exception {
    TwoRuntimesTest.Runs runs = new TwoRuntimesTest.Runs();
    Watched wa = new Watched();
    Watched wb = new Watched();
    ToolCallRuntime a = runtime("a", dbA, Duration.ofSeconds(30), wa, quick(runs, "a"));
    ToolCallRuntime b = runtime("b", dbB, Duration.ofSeconds(30), wb, quick(runs, "b"));
    Batch batch = a.schedule("s", List.of(CallRequest.of("q2", "quick", "{}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();

    down.set(true);
    await("A tried to deny at the deadline", () -> wa.failedDenials.get() >= 1);
    down.set(false);
    DecisionResult late = b.permissions().decide(asked.requestId(), Decision.approveOnce(asked));
    assertThat(late).as("an approval after the deadline loses").isNotInstanceOf(DecisionResult.Won.class);

    ToolCallSnapshot end = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS).get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    assertThat(((Outcome.Denied) end.outcome()).source()).isEqualTo(DenialSource.TIMEOUT);
    assertThat(end.outcome().messageForModel()).as("a timeout (denied by A's timer when the database is back, or by"
        + " B as it loads the request), blaming no process").contains("It waited").doesNotContain("process");
    assertThat(audit("q2")).containsExactly("pending", "permission_pending", "permission_denied");
    assertThat(runs.of("q2")).isZero();
  }

  /**
   * No process stops; the database does. A holds a waiting request whose deadline passes while the database is down
   * (A's denial fails, and A's timer is held so that it does not try again before the test is done). When the database
   * is back, B's first write fails (a pooled connection that died in the outage, say) just as a late approval makes B
   * load the request and deny it: the denial that lands says the database was unreachable, never that a process was
   * down, and the approval loses.
   */
  @Test
  void aDenialWhoseFirstTryAfterAnOutageFailsSaysTheDatabaseWasUnreachable() throws Exception {
    TwoRuntimesTest.Runs runs = new TwoRuntimesTest.Runs();
    Watched wa = new Watched();
    Watched wb = new Watched();
    TwoRuntimesTest.ManualTimer timerA = new TwoRuntimesTest.ManualTimer();
    Tool quick = Tool.of(ToolDefinition.builder("quick").permissionTimeout(Duration.ofMillis(300)).build(), inv -> {
      runs.ran(inv.callId(), "?");
      return ToolResult.of("ran");
    });
    ToolCallRuntime a = ToolCallRuntime.builder().tools(quick).timer(timerA)
        .sharedStore(watched(PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(30)), wa)).build();
    open.add(a);
    AtomicBoolean failNextDenial = new AtomicBoolean();
    SharedCallStore storeB = watched(PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(1)), wb);
    ToolCallRuntime b = ToolCallRuntime.builder().tools(quick)
        .sharedStore(PostgresCallStoreTest.proxy(SharedCallStore.class, (p, m, args) -> {
          if (m.getName().equals("compareAndSet") && ((ToolCallSnapshot) args[1]).state()
              == ToolCallState.PERMISSION_DENIED && failNextDenial.getAndSet(false)) {
            throw new StoreException("the connection died (the test's stale pooled connection)", null);
          }
          return PostgresCallStoreTest.invoke(storeB, m, args);
        })).build();
    open.add(b);
    Batch batch = a.schedule("s", List.of(CallRequest.of("q3", "quick", "{}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();

    down.set(true);
    await("the deadline passed", () -> java.time.Instant.now().isAfter(asked.deadline()));
    timerA.fire();
    assertThat(wa.failedDenials.get()).as("A's denial at the deadline failed").isEqualTo(1);
    int sweeps = wb.failedRenewals.get(); // each sweep renews first
    await("B's sweep failed after the deadline", () -> wb.failedRenewals.get() > sweeps);
    failNextDenial.set(true);
    down.set(false);
    DecisionResult late = b.permissions().decide(asked.requestId(), Decision.approveOnce(asked));
    assertThat(late).as("an approval after the deadline loses").isNotInstanceOf(DecisionResult.Won.class);
    assertThat(failNextDenial.get()).as("B's first denial failed").isFalse();

    ToolCallSnapshot end = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS).get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    assertThat(((Outcome.Denied) end.outcome()).source()).isEqualTo(DenialSource.TIMEOUT);
    assertThat(end.outcome().messageForModel()).contains("database was unreachable").doesNotContain("process");
    assertThat(audit("q3")).containsExactly("pending", "permission_pending", "permission_denied");
    assertThat(runs.of("q3")).isZero();
  }

  /**
   * A tool runs on A (lease 2 s) and finishes while the database is down, longer than the lease: A's end write fails
   * and its lease lapses. When the database is back, B's sweep finds the lapsed lease first (A's renewal and end
   * write are held back until B has swept twice), yet B does not take the call over as a crash: A renews and stores
   * the tool's result, and no "outcome unknown" is ever stored.
   */
  @Test
  void aToolThatEndsDuringAnOutageLongerThanItsLeaseKeepsItsResult() throws Exception {
    TwoRuntimesTest.Runs runs = new TwoRuntimesTest.Runs();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Tool work = Tool.of(ToolDefinition.builder("work").requiresApproval(false).timeout(Duration.ofMinutes(1))
        .build(), inv -> {
          runs.ran(inv.callId(), "?");
          entered.countDown();
          assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
          return ToolResult.of("done");
        });
    Watched wa = new Watched();
    Watched wb = new Watched();
    ToolCallRuntime a = runtime("a", dbA, Duration.ofSeconds(2), wa, work);
    runtime("b", dbB, Duration.ofSeconds(2), wb, work);
    Batch batch = a.schedule("s", List.of(CallRequest.of("w1", "work", "{}")));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    down.set(true);
    await("A's lease lapsed (five renewals failed: 2.7 s) and B swept during the outage",
        () -> wa.failedRenewals.get() >= 5 && wb.failedRenewals.get() >= 1);
    release.countDown();
    await("A's end write failed", () -> wa.failedEnds.get() >= 1);
    CountDownLatch bSwept = new CountDownLatch(2);
    wb.sweeps.set(bSwept);
    wa.gate.set(bSwept); // A renews and writes its end only after B has swept twice with the database back
    down.set(false);

    ToolCallSnapshot end = batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS).get(0).snapshot();
    assertThat(end.outcome()).isEqualTo(new Outcome.Completed("done"));
    assertThat(audit("w1")).containsExactly("pending", "running", "completed");
    assertThat(runs.of("w1")).isEqualTo(1);
  }

  /** The states of the call's stored versions, in version order. */
  List<String> audit(String callId) throws SQLException {
    try (Connection c = TwoRuntimesTest.second(DB).getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT state FROM audit WHERE call_id = '" + callId + "' ORDER BY version")) {
      List<String> states = new ArrayList<>();
      while (rs.next()) {
        states.add(rs.getString(1));
      }
      return states;
    }
  }
}
