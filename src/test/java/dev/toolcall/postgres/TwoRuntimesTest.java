package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.SharedCallStore;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, part 4: two runtimes on one PostgreSQL database, each with its own {@code DataSource} and
 * {@link PostgresCallStore#shared} store. An audit trigger (the test's own) records every stored version, so the
 * tests check against what committed: a decision on B for A's request runs the call once, a deadline denies once
 * across both, an expired lease is taken over as a crash, and no runtime publishes a version that did not commit.
 */
class TwoRuntimesTest {
  private static final String DB = "toolcall_two_runtimes";

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
    dbA = Pool.of(second(), 8);
    dbB = Pool.of(second(), 8);
  }

  /** A data source of its own on the test database (the runtimes share no connection). */
  static DataSource second() {
    return second(DB);
  }

  /** A data source of its own on the test database {@code name}. */
  static DataSource second(String name) {
    org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
    ds.setURL(PgCluster.url());
    ds.setDatabaseName(name);
    return ds;
  }

  DataSource dbFor(String runtime) {
    return runtime.equals("a") ? dbA : dbB;
  }

  /** "Approve for the session" on B holds on A too: A's next such call in the session runs without asking. */
  @Test
  void anApprovalForTheSessionOnBHoldsOnA() throws Exception {
    Runs runs = new Runs();
    Published seenA = new Published();
    Published seenB = new Published();
    PostgresCallStore storeA = PostgresCallStore.create(dbA);
    ToolCallRuntime a = runtime("a", storeA.shared("a", Duration.ofSeconds(30)), runs, seenA);
    ToolCallRuntime b = runtime("b", PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(30)), runs, seenB);
    Batch first = a.schedule("s", List.of(CallRequest.of("g1", "shell", "{\"command\":\"ls\"}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(b.permissions().decide(asked.requestId(), Decision.approveForSession(asked)))
        .isInstanceOf(DecisionResult.Won.class);
    first.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
    assertThat(a.permissions().sessionGrants("s")).as("A reads the grant B made").hasSize(1);

    List<CallResult> second = a.schedule("s", List.of(CallRequest.of("g2", "shell", "{\"command\":\"ls\"}")))
        .whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
    assertThat(second.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(audit("g2")).as("approved by the grant, never asked").doesNotContain("permission_pending");
    assertThat(a.schedule("other", List.of(CallRequest.of("g3", "shell", "{\"command\":\"ls\"}"))).calls().get(0)
        .snapshot().state()).isNotEqualTo(ToolCallState.COMPLETED);
    assertThat(a.permissions().awaitNext(Duration.ofSeconds(10))).as("another session is asked").isPresent();
    assertThat(storeA.snapshot(java.time.Clock.systemUTC()).sessionGrants()).as("a restore from the store brings it"
        + " back").singleElement().satisfies(g -> assertThat(g.sessionId()).isEqualTo("s"));
    assertCommittedOnly(seenA, seenB);
  }

  @AfterEach
  void close() {
    open.forEach(ToolCallRuntime::close);
  }

  /** Counts each runtime's runs of each call, across both runtimes. */
  static final class Runs {
    final Map<String, AtomicInteger> byCall = new ConcurrentHashMap<>();
    final Map<String, Set<String>> where = new ConcurrentHashMap<>();

    int of(String callId) {
      AtomicInteger n = byCall.get(callId);
      return n == null ? 0 : n.get();
    }

    void ran(String callId, String runtime) {
      byCall.computeIfAbsent(callId, k -> new AtomicInteger()).incrementAndGet();
      where.computeIfAbsent(callId, k -> ConcurrentHashMap.newKeySet()).add(runtime);
    }
  }

  /** Every call event a runtime published, as (session/call, version, state). */
  static final class Published implements EventListener {
    final List<ToolCallSnapshot> seen = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(Event event) {
      if (event instanceof ToolCallEvent e) {
        seen.add(e.snapshot());
      }
    }
  }

  ToolCallRuntime runtime(String name, SharedCallStore store, Runs runs, Published published, Tool... extra) {
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      runs.ran(inv.callId(), name);
      return ToolResult.of("ran " + inv.arguments().raw() + " on " + name);
    });
    ToolCallRuntime r = ToolCallRuntime.builder().tools(shell).tools(extra).sharedStore(store)
        .permissions(p -> p.sessionGrantStore(PostgresCallStore.create(dbFor(name)).sessionGrants())).build();
    r.events().subscribe(published);
    open.add(r);
    return r;
  }

  @Test
  void aDecisionOnBForARequestOpenedOnARunsTheCallOnce() throws Exception {
    Runs runs = new Runs();
    Published seenA = new Published();
    Published seenB = new Published();
    ToolCallRuntime a = runtime("a", PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(30)), runs, seenA);
    ToolCallRuntime b = runtime("b", PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(30)), runs, seenB);
    Batch batch = a.schedule("s", List.of(CallRequest.of("c1", "shell", "{\"command\":\"make\"}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();

    Optional<PermissionRequest> onB = b.permissions().request(asked.requestId());
    assertThat(onB).as("B loads the request A opened, by its id").isPresent();
    assertThat(onB.get().deadline()).isEqualTo(asked.deadline());
    DecisionResult won = b.permissions().decide(asked.requestId(), Decision.approveOnce(asked));
    assertThat(won).isInstanceOf(DecisionResult.Won.class);
    assertThat(a.permissions().decide(asked.requestId(), Decision.approveOnce(asked)))
        .as("A's own decision comes too late").isNotInstanceOf(DecisionResult.Won.class);

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
    assertThat(results.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(runs.of("c1")).as("run exactly once, on whichever runtime claimed it").isEqualTo(1);
    assertThat(((Outcome.Completed) results.get(0).snapshot().outcome()).content())
        .startsWith("ran {\"command\":\"make\"} on ");
    assertThat(a.permissions().pending()).as("A's request was resolved by B's decision").isEmpty();
    assertCommittedOnly(seenA, seenB);
  }

  @Test
  void aDeadlineDeniesOnceAcrossRuntimes() throws Exception {
    Runs runs = new Runs();
    Published seenA = new Published();
    Published seenB = new Published();
    Tool quick = Tool.of(ToolDefinition.builder("quick").permissionTimeout(Duration.ofMillis(1500)).build(),
        inv -> ToolResult.of("never"));
    ToolCallRuntime a = runtime("a", PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(30)), runs, seenA,
        quick);
    ToolCallRuntime b = runtime("b", PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(30)), runs, seenB,
        quick);
    Batch batch = a.schedule("s", List.of(CallRequest.of("q1", "quick", "{}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(b.permissions().request(asked.requestId())).as("both runtimes hold the request and its deadline")
        .isPresent();

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
    ToolCallSnapshot end = results.get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    assertThat(((Outcome.Denied) end.outcome()).source()).isEqualTo(DenialSource.TIMEOUT);
    awaitEnded(b, "s", "q1");
    assertThat(audit("q1")).as("one denial stored, whichever runtime's timer won")
        .filteredOn(v -> v.equals("permission_denied")).hasSize(1);
    assertCommittedOnly(seenA, seenB);
  }

  /** A RUNNING claim whose runtime stops renewing it (a crash) is taken over by the other: outcome unknown. */
  @Test
  void anExpiredLeaseIsTakenOverAsACrash() throws Exception {
    Runs runs = new Runs();
    Published seenA = new Published();
    Published seenB = new Published();
    Hung h = hung("h1", false, runs, seenA, seenB);
    ToolCallRuntime a = h.a();
    ToolCallRuntime b = h.b();
    Batch batch = h.batch();
    CountDownLatch stuck = h.stuck();

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
    ToolCallSnapshot end = results.get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.FAILED);
    assertThat(((Outcome.Failed) end.outcome()).kind()).isEqualTo(FailureKind.OUTCOME_UNKNOWN);
    assertThat(end.outcome().messageForModel()).contains("may have partly run");
    String runner = runs.where.get("h1").iterator().next();
    ToolCallRuntime crashedOne = runner.equals("a") ? a : b;
    int stored = version("h1");

    stuck.countDown(); // the crashed runtime wakes up (a long pause): its late result changes no row
    awaitEnded(crashedOne, "s", "h1");
    assertThat(version("h1")).isEqualTo(stored);
    assertThat(runs.of("h1")).as("a tool that is not idempotent is never run again").isEqualTo(1);
    assertCommittedOnly(seenA, seenB);
  }

  /** An idempotent tool whose runtime stopped renewing its claim runs again on the other, as the next attempt. */
  @Test
  void anIdempotentToolWhoseLeaseExpiredRunsAgainElsewhere() throws Exception {
    Runs runs = new Runs();
    Published seenA = new Published();
    Published seenB = new Published();
    Hung h = hung("h2", true, runs, seenA, seenB);
    Batch batch = h.batch();
    CountDownLatch stuck = h.stuck();

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
    ToolCallSnapshot end = results.get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(end.attempt()).isEqualTo(2);
    assertThat(runs.of("h2")).isEqualTo(2);
    assertThat(runs.where.get("h2")).as("the second run on the other runtime").containsExactlyInAnyOrder("a", "b");
    stuck.countDown();
    assertCommittedOnly(seenA, seenB);
  }

  /**
   * Issue 16, part 6: two runtimes x 1,000 calls x 4 racing threads. Four threads schedule the calls on A while four
   * deciders (two on A, two on B) race to approve or deny every open request. Then: each request was won by exactly
   * one decision; every approved call ran exactly once and no denied call ran (0 double executions); every row's
   * versions were stored once each, from 0 to its version (0 lost updates: row version = history length); and neither
   * runtime published a version that did not commit.
   */
  @Test
  void twoRuntimesAThousandCallsFourRacingThreads() throws Exception {
    race(Integer.getInteger("toolcall.twoRuntimes.calls", 1000));
  }

  /**
   * The same race on a database whose default isolation is {@code SERIALIZABLE}: the racing writes of one row fail
   * with serialization failures (SQLSTATE 40001) there instead of waiting; the store tries them again, backing off, so
   * no decision, schedule or run fails, and the outcome is the same as under {@code READ COMMITTED}.
   */
  @Test
  void theRaceUnderSerializableIsolation() throws Exception {
    org.postgresql.ds.PGSimpleDataSource server = new org.postgresql.ds.PGSimpleDataSource();
    server.setURL(PgCluster.url());
    try (Connection c = server.getConnection(); Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE " + DB + " SET default_transaction_isolation TO 'serializable'");
    }
    dbA = Pool.of(second(), 8); // new connections: serializable
    dbB = Pool.of(second(), 8);
    try (Connection c = dbA.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SHOW transaction_isolation")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("serializable");
    }
    race(Integer.getInteger("toolcall.twoRuntimes.serializableCalls", 400));
  }

  void race(int calls) throws Exception {
    Runs runs = new Runs();
    Published seenA = new Published();
    Published seenB = new Published();
    ToolCallRuntime a = runtime("a", PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(30)), runs, seenA);
    ToolCallRuntime b = runtime("b", PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(30)), runs, seenB);
    List<Batch> batches = new CopyOnWriteArrayList<>();
    Map<String, AtomicInteger> wins = new ConcurrentHashMap<>();
    AtomicInteger winsOnB = new AtomicInteger();
    AtomicBoolean scheduled = new AtomicBoolean();
    AtomicInteger schedulers = new AtomicInteger(4);
    dev.toolcall.testing.Race.run(8, Duration.ofMinutes(5), i -> {
      if (i < 4) { // scheduler threads, on A: calls / 4 each, ten to a batch
        for (int k = 0; k < calls / 4; k += 10) {
          List<CallRequest> reqs = new java.util.ArrayList<>();
          for (int j = k; j < Math.min(k + 10, calls / 4); j++) {
            reqs.add(CallRequest.of("c" + i + "-" + j, "shell", "{\"n\":" + j + "}"));
          }
          batches.add(a.schedule("s" + i, reqs));
        }
        if (schedulers.decrementAndGet() == 0) {
          scheduled.set(true);
        }
        return;
      }
      ToolCallRuntime on = i < 6 ? a : b; // deciders: two on A, two on B
      java.util.Random random = new java.util.Random(i);
      try (Connection c = second().getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
          "SELECT document #>> '{permission,requestId}', document::text FROM toolcall_call"
              + " WHERE state = 'permission_pending'")) {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // the test's own scan never fails
        for (;;) {
          boolean done = scheduled.get(); // read before the scan: a scan after the last schedule finds all
          List<String[]> open = new java.util.ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              open.add(new String[] {rs.getString(1), rs.getString(2)});
            }
          }
          if (open.isEmpty() && done) {
            return;
          }
          java.util.Collections.shuffle(open, random);
          for (String[] o : open) {
            Optional<PermissionRequest> r = on.permissions().request(o[0]);
            if (r.isEmpty()) {
              continue; // decided meanwhile
            }
            Decision d = random.nextInt(10) == 0 ? Decision.deny(r.get(), "no") : Decision.approveOnce(r.get());
            if (on.permissions().decide(o[0], d) instanceof DecisionResult.Won) {
              wins.computeIfAbsent(o[0], k -> new AtomicInteger()).incrementAndGet();
              if (on == b) {
                winsOnB.incrementAndGet();
              }
            }
          }
          if (open.isEmpty()) {
            Thread.sleep(5); // waiting for the schedulers to open more; nothing is asserted on timing
          }
        }
      }
    });
    for (Batch batch : batches) {
      batch.whenDone().toCompletableFuture().get(2, TimeUnit.MINUTES);
    }
    int completed = 0;
    try (Connection c = second().getConnection(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT call_id, state, version, document #>> '{path,1,state}' FROM"
             + " toolcall_call")) {
      int rows = 0;
      while (rs.next()) {
        rows++;
        String id = rs.getString(1);
        ToolCallState state = ToolCallState.fromWireName(rs.getString(2));
        assertThat(state).as(id).isIn(ToolCallState.COMPLETED, ToolCallState.PERMISSION_DENIED);
        assertThat(runs.of(id)).as("runs of " + id).isEqualTo(state == ToolCallState.COMPLETED ? 1 : 0);
        completed += state == ToolCallState.COMPLETED ? 1 : 0;
      }
      assertThat(rows).isEqualTo(calls);
    }
    assertThat(wins).as("every request decided").hasSize(calls);
    assertThat(wins.values()).as("each by exactly one decision").allMatch(n -> n.get() == 1);
    try (Connection c = second().getConnection(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT t.call_id, t.version, count(a.version), min(a.version),"
             + " max(a.version), count(DISTINCT a.version) FROM toolcall_call t JOIN audit a USING (session_id,"
             + " call_id) GROUP BY t.call_id, t.version")) {
      while (rs.next()) {
        int v = rs.getInt(2);
        assertThat(new int[] {rs.getInt(3), rs.getInt(4), rs.getInt(5), rs.getInt(6)})
            .as("versions of %s stored: once each, 0 to %d", rs.getString(1), v).containsExactly(v + 1, 0, v, v + 1);
      }
    }
    assertCommittedOnly(seenA, seenB);
    assertThat(winsOnB.get()).as("B's deciders won some requests A opened").isPositive();
    assertThat(completed).as("most were approved (nine in ten decisions)").isGreaterThan(calls / 2);
  }

  /**
   * A runtime crashes after a call was approved on it and before the tool started: its lease on the approved call
   * expires, and the other runtime takes the call over and runs it, once; the crashed one (still reading the store)
   * learns the outcome.
   */
  @Test
  void anApprovedCallWhoseRuntimeCrashedRunsOnceOnTheOther() throws Exception {
    Runs runs = new Runs();
    AtomicBoolean crashed = new AtomicBoolean();
    Published seenA = new Published();
    Published seenB = new Published();
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      runs.ran(inv.callId(), "a");
      return ToolResult.of("ran on a");
    });
    ToolCallRuntime a = ToolCallRuntime.builder().tools(shell)
        .sharedStore(crashable(PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(1)), crashed))
        .scheduler(sb -> sb.executor(task -> crashed.set(true))) // its tools never start: it crashed there
        .build();
    open.add(a);
    a.events().subscribe(seenA);
    ToolCallRuntime b = runtime("b", PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(1)), runs, seenB);
    Batch batch = a.schedule("s", List.of(CallRequest.of("x1", "shell", "{}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(a.permissions().decide(asked.requestId(), Decision.approveOnce(asked)))
        .isInstanceOf(DecisionResult.Won.class);

    List<CallResult> results = batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
    assertThat(results.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(((Outcome.Completed) results.get(0).snapshot().outcome()).content()).isEqualTo("ran {} on b");
    assertThat(runs.of("x1")).isEqualTo(1);
    assertThat(audit("x1")).containsSubsequence("permission_approved", "running", "completed")
        .filteredOn("running"::equals).hasSize(1);
    assertCommittedOnly(seenA, seenB);
  }

  /**
   * A runtime crashes while a call waits for a person: nobody holds the request when its deadline passes, and the
   * other runtime's sweep denies it, once (a lease after its deadline, the asker's time to deny it itself), saying
   * the deadline passed while the runtime that asked could not deny it.
   */
  @Test
  void aRequestWhoseRuntimeCrashedIsDeniedOnceAtItsDeadlineByTheOther() throws Exception {
    Runs runs = new Runs();
    Tool quick = Tool.of(ToolDefinition.builder("quick").permissionTimeout(Duration.ofMillis(1200)).build(),
        inv -> ToolResult.of("never"));
    dev.toolcall.DeadlineTimer frozen = new dev.toolcall.DeadlineTimer() { // a crashed runtime's timer never fires
      @Override
      public Handle schedule(Runnable task, Duration delay) {
        return Handle.NONE;
      }

      @Override
      public void close() {}
    };
    ToolCallRuntime a = ToolCallRuntime.builder().tools(quick).timer(frozen)
        .callStore(PostgresCallStore.create(dbA).calls()).build(); // crashed: never closed, never reads the store
    a.schedule("s", List.of(CallRequest.of("q2", "quick", "{}")));
    a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    Published seenB = new Published();
    ToolCallRuntime b = runtime("b", PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(1)), runs, seenB,
        quick);

    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!audit("q2").contains("permission_denied")) {
      assertThat(System.nanoTime()).as("the overdue request was never denied").isLessThan(until);
      Thread.sleep(20); // polling the database for the other runtime's write; nothing asserts timing
    }
    assertThat(audit("q2")).filteredOn("permission_denied"::equals).hasSize(1);
    try (Connection c = second().getConnection(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT document #>> '{outcome,reason}' FROM toolcall_call"
             + " WHERE call_id = 'q2'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).contains("deadline passed while the runtime that asked could not deny it")
          .doesNotContain("process was down");
    }
    assertThat(runs.of("q2")).isZero();
    assertCommittedOnly(seenB);
  }

  /**
   * A runtime closing on a shared store hands its calls over instead of cancelling them: its open request stays open
   * in the store and is answered on the other runtime, and the approved call it had not started yet is taken over at
   * once (its lease let go) and run once by the other.
   */
  @Test
  void aClosingRuntimeHandsItsCallsToTheOther() throws Exception {
    Runs runs = new Runs();
    Published seenB = new Published();
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      runs.ran(inv.callId(), "a");
      return ToolResult.of("ran on a");
    });
    AtomicInteger dropped = new AtomicInteger();
    ToolCallRuntime a = ToolCallRuntime.builder().tools(shell)
        .sharedStore(PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(30)))
        .scheduler(sb -> sb.executor(task -> dropped.incrementAndGet())) // A starts no tool before it closes
        .build();
    ToolCallRuntime b = runtime("b", PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(3)), runs, seenB);
    a.schedule("s", List.of(CallRequest.of("w1", "shell", "{}"), CallRequest.of("w2", "shell", "{}")));
    PermissionRequest first = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    PermissionRequest approved = a.permissions().pending().stream().filter(r -> r.callId().equals("w2"))
        .findFirst().orElseThrow();
    PermissionRequest waiting = first.callId().equals("w1") ? first : a.permissions().pending().stream()
        .filter(r -> r.callId().equals("w1")).findFirst().orElseThrow();
    assertThat(a.permissions().decide(approved.requestId(), Decision.approveOnce(approved)))
        .isInstanceOf(DecisionResult.Won.class);
    assertThat(audit("w2")).contains("permission_approved");

    a.close();
    assertThat(audit("w1")).as("closing cancelled nothing").doesNotContain("cancelled");
    assertThat(audit("w2")).doesNotContain("cancelled");
    assertThat(b.permissions().decide(waiting.requestId(), Decision.approveOnce(waiting)))
        .as("A's open request is answered on B").isInstanceOf(DecisionResult.Won.class);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!audit("w1").contains("completed") || !audit("w2").contains("completed")) {
      assertThat(System.nanoTime()).as("B never ran both calls").isLessThan(until);
      Thread.sleep(20); // polling the database for B's writes; nothing asserts timing
    }
    assertThat(runs.of("w1")).isEqualTo(1);
    assertThat(runs.of("w2")).as("the approved call A had not started runs once, on B").isEqualTo(1);
    assertCommittedOnly(seenB);
  }

  /**
   * A listener only ever sees calls that were created and versions that were stored, however a deadline's denial and
   * the sweeps race. Both runtimes hold one waiting call (A asked, B loaded the request); once its deadline has
   * passed, four threads meet at one start barrier: A's and B's deadline timers fire (each tries to deny it) while
   * A's and B's sweeps read the overdue rows. A sweep that read the row before the denial committed finds, a moment
   * later, a call that has ended here; it must not take that stale row over as a call nobody holds (which published
   * a {@code duplicate_call} refusal under an id nobody scheduled). 100 rounds, each a fresh call; every event of
   * both runtimes is checked against the audit of stored versions.
   */
  @Test
  void aSweepRacingADeadlinePublishesOnlyStoredCallsAndVersions() throws Exception {
    int rounds = Integer.getInteger("toolcall.twoRuntimes.sweepRounds", 100);
    Published seenA = new Published();
    Published seenB = new Published();
    ManualTimer timerA = new ManualTimer();
    ManualTimer timerB = new ManualTimer();
    AtomicReference<CyclicBarrier> gate = new AtomicReference<>();
    Tool quick = Tool.of(ToolDefinition.builder("quick").permissionTimeout(Duration.ofMillis(50)).build(),
        inv -> ToolResult.of("never"));
    ToolCallRuntime a = ToolCallRuntime.builder().tools(quick).timer(timerA)
        .sharedStore(gated(PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(1)), gate)).build();
    ToolCallRuntime b = ToolCallRuntime.builder().tools(quick).timer(timerB)
        .sharedStore(gated(PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(1)), gate)).build();
    open.add(a);
    open.add(b);
    a.events().subscribe(seenA);
    b.events().subscribe(seenB);
    java.util.concurrent.ExecutorService firing = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round <= rounds; round++) {
        CyclicBarrier start = new CyclicBarrier(round < rounds ? 4 : 3); // the last: both sweeps and this thread
        gate.set(start);
        if (round == rounds) {
          start.await(20, TimeUnit.SECONDS); // each sweep reached the gate again: the previous ones have finished
          continue;
        }
        String id = "d" + round;
        a.schedule("s", List.of(CallRequest.of(id, "quick", "{}")));
        PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
        assertThat(b.permissions().request(asked.requestId())).as("B holds the request too").isPresent();
        while (!java.time.Instant.now().isAfter(asked.deadline().plusMillis(20))) {
          java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // until the deadline (and the database's now())
          // has passed; no timing is asserted
        }
        List<java.util.concurrent.Future<?>> fires = new java.util.ArrayList<>();
        for (ManualTimer t : List.of(timerA, timerB)) {
          fires.add(firing.submit(() -> {
            start.await(20, TimeUnit.SECONDS);
            t.fire();
            return null;
          }));
        }
        for (java.util.concurrent.Future<?> f : fires) {
          f.get(20, TimeUnit.SECONDS);
        }
        awaitEnded(a, "s", id);
        awaitEnded(b, "s", id);
      }
    } finally {
      gate.set(null);
      firing.shutdownNow();
    }
    List<String> unknown = new java.util.ArrayList<>();
    Set<String> stored = new HashSet<>();
    try (Connection c = second().getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT call_id, version FROM audit")) {
      while (rs.next()) {
        stored.add(rs.getString(1) + "/" + rs.getInt(2));
      }
    }
    for (Published p : List.of(seenA, seenB)) {
      for (ToolCallSnapshot s : p.seen) {
        if (!stored.contains(s.callId() + "/" + s.version())) {
          unknown.add((p == seenA ? "A: " : "B: ") + s.callId() + " v" + s.version() + " " + s.state().wireName());
        }
      }
    }
    assertThat(unknown).as("events of calls or versions never stored, over %d rounds", rounds).isEmpty();
    for (int round = 0; round < rounds; round++) {
      assertThat(audit("d" + round)).as("d" + round + " denied once").containsExactly("pending",
          "permission_pending", "permission_denied");
    }
    assertCommittedOnly(seenA, seenB);
  }

  /** A timer that runs the tasks given to it only when {@link #fire} is called (a deadline the test releases). */
  static final class ManualTimer implements dev.toolcall.DeadlineTimer {
    private final List<Runnable> tasks = new java.util.ArrayList<>(); // guarded by itself

    @Override
    public Handle schedule(Runnable task, Duration delay) {
      synchronized (tasks) {
        tasks.add(task);
      }
      return () -> {
        synchronized (tasks) {
          tasks.remove(task);
        }
      };
    }

    /** Runs every task scheduled so far, on the calling thread. */
    void fire() {
      List<Runnable> due;
      synchronized (tasks) {
        due = new java.util.ArrayList<>(tasks);
        tasks.clear();
      }
      due.forEach(Runnable::run);
    }

    @Override
    public void close() {}
  }

  /** {@code store}, whose sweep's read of the overdue calls waits at the barrier {@code gate} holds, when it holds one. */
  static SharedCallStore gated(SharedCallStore store, AtomicReference<CyclicBarrier> gate) {
    Map<CyclicBarrier, Boolean> passed = new ConcurrentHashMap<>();
    return PostgresCallStoreTest.proxy(SharedCallStore.class, (p, m, args) -> {
      CyclicBarrier g = gate.get();
      if (m.getName().equals("overdue") && g != null && passed.putIfAbsent(g, Boolean.TRUE) == null) {
        g.await(20, TimeUnit.SECONDS);
      }
      return PostgresCallStoreTest.invoke(store, m, args);
    });
  }

  /** Two runtimes (lease 1 s) and call {@code callId}, approved on B, whose tool hangs on its runtime until released. */
  record Hung(ToolCallRuntime a, ToolCallRuntime b, Batch batch, CountDownLatch stuck) {}

  Hung hung(String callId, boolean idempotent, Runs runs, Published seenA, Published seenB) throws Exception {
    CountDownLatch stuck = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    Map<String, AtomicBoolean> crashed = Map.of("a", new AtomicBoolean(), "b", new AtomicBoolean());
    ToolCallRuntime a = runtime("a", crashable(PostgresCallStore.create(dbA).shared("a", Duration.ofSeconds(1)),
        crashed.get("a")), runs, seenA, hanging("a", runs, crashed.get("a"), entered, stuck, idempotent));
    ToolCallRuntime b = runtime("b", crashable(PostgresCallStore.create(dbB).shared("b", Duration.ofSeconds(1)),
        crashed.get("b")), runs, seenB, hanging("b", runs, crashed.get("b"), entered, stuck, idempotent));
    Batch batch = a.schedule("s", List.of(CallRequest.of(callId, "hang", "{}")));
    PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(b.permissions().decide(asked.requestId(), Decision.approveOnce(asked)))
        .isInstanceOf(DecisionResult.Won.class);
    assertThat(entered.await(10, TimeUnit.SECONDS)).as("the tool started on one runtime").isTrue();
    return new Hung(a, b, batch, stuck);
  }

  /** A tool whose first run (on either runtime) marks its runtime crashed and hangs until {@code stuck}. */
  static Tool hanging(String name, Runs runs, AtomicBoolean crashed, CountDownLatch entered, CountDownLatch stuck,
      boolean idempotent) {
    AtomicBoolean first = new AtomicBoolean(true);
    return Tool.of(ToolDefinition.builder("hang").idempotent(idempotent).permissionTimeout(Duration.ofHours(1))
        .timeout(Duration.ofMinutes(1)).build(), inv -> {
          runs.ran(inv.callId(), name);
          if (entered.getCount() > 0 && first.getAndSet(false)) {
            crashed.set(true);
            entered.countDown();
            stuck.await();
          }
          return ToolResult.of("done on " + name);
        });
  }

  /** {@code store}, whose leases stop being renewed once {@code crashed}: a crashed or paused runtime. */
  static SharedCallStore crashable(SharedCallStore store, AtomicBoolean crashed) {
    return PostgresCallStoreTest.proxy(SharedCallStore.class, (p, m, args) -> {
      if (m.getName().equals("renewLeases") && crashed.get()) {
        return 0;
      }
      return PostgresCallStoreTest.invoke(store, m, args);
    });
  }

  /** Waits (bounded) until {@code r}'s copy of the call has ended: it adopts what the other stored. */
  static void awaitEnded(ToolCallRuntime r, String session, String callId) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (r.scheduler().call(session, callId).isPresent()) {
      assertThat(System.nanoTime()).as("call " + callId + " never ended on this runtime").isLessThan(until);
      Thread.sleep(10); // polling an outcome across processes; no assertion depends on the timing
    }
  }

  /** The states of the call's stored versions, in version order, each version once (0 lost updates). */
  List<String> audit(String callId) throws SQLException {
    try (Connection c = second().getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT version, state FROM audit WHERE call_id = '" + callId
             + "' ORDER BY version")) {
      List<String> states = new java.util.ArrayList<>();
      int expected = 0;
      while (rs.next()) {
        assertThat(rs.getInt(1)).as("versions of " + callId + " stored once each, none lost").isEqualTo(expected++);
        states.add(rs.getString(2));
      }
      return states;
    }
  }

  int version(String callId) throws SQLException {
    try (Connection c = second().getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT version FROM toolcall_call WHERE call_id = '" + callId + "'")) {
      assertThat(rs.next()).isTrue();
      return rs.getInt(1);
    }
  }

  /**
   * Every version each runtime published was stored with that state (0 events for uncommitted changes), and each
   * runtime published each version of a call at most once, in rising order.
   */
  void assertCommittedOnly(Published... runtimes) throws SQLException {
    Map<String, String> committed = new HashMap<>();
    try (Connection c = second().getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT session_id, call_id, version, state FROM audit")) {
      while (rs.next()) {
        String key = rs.getString(1) + "/" + rs.getString(2) + "/" + rs.getInt(3);
        assertThat(committed.put(key, rs.getString(4))).as("stored once: " + key).isNull();
      }
    }
    for (Published p : runtimes) {
      Map<String, Integer> last = new HashMap<>();
      Set<String> keys = new HashSet<>();
      for (ToolCallSnapshot s : p.seen) {
        String call = s.identity().sessionId() + "/" + s.callId();
        String key = call + "/" + s.version();
        assertThat(committed.get(key)).as("published " + key + " was committed in that state")
            .isEqualTo(s.state().wireName());
        assertThat(keys.add(key)).as("published once: " + key).isTrue();
        Integer before = last.put(call, s.version());
        assertThat(before == null || before < s.version()).as("versions of " + call + " rise").isTrue();
      }
    }
  }
}
