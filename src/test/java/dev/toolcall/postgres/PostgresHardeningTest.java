package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Reason;
import dev.toolcall.ToolCallIdentity;
import dev.toolcall.ToolCallOrigin;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolArguments;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
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
        ResultSet rs = st.executeQuery("SELECT version FROM toolcall_call WHERE session_id = 's' AND call_id = '"
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

  // ---- item 3: a write whose commit lost its answer is settled by whether the row records it ----

  static StoredCall call(String id) {
    return new StoredCall("s", id, "shell", ToolCallState.RUNNING, 0, "{\"n\":0}");
  }

  static String doc(String who, int n) {
    return "{\"by\":\"" + who + "\",\"n\":" + n + "}";
  }

  /**
   * {@code ds} whose connections lose the answer of their commit: the commit is made ({@code applied}) or not, then
   * {@code meanwhile} runs (another writer), then the connection dies. Works whether the store commits by autocommit
   * (the write statement is then the commit) or explicitly.
   */
  static DataSource losingTheCommitsAnswer(DataSource ds, boolean applied, Runnable meanwhile) {
    return losingTheCommitsAnswer(ds, applied, meanwhile, () -> true);
  }

  /** As above, for the writes for which {@code fire} says true when they commit (the others commit as usual). */
  static DataSource losingTheCommitsAnswer(DataSource ds, boolean applied, Runnable meanwhile,
      java.util.function.BooleanSupplier fire) {
    return PostgresCallStoreTest.proxy(DataSource.class, (p, m, args) -> {
      Object r = PostgresCallStoreTest.invoke(ds, m, args);
      if (!(r instanceof Connection c)) {
        return r;
      }
      PostgresCallStoreTest.SqlCall die = () -> {
        if (!applied) {
          if (!c.getAutoCommit()) {
            c.rollback();
          }
        }
        meanwhile.run();
        c.close();
        throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
      };
      return PostgresCallStoreTest.proxy(Connection.class, (cp, cm, cargs) -> {
        if (cm.getName().equals("commit") && fire.getAsBoolean()) {
          if (applied) {
            c.commit();
          }
          return die.get();
        }
        Object cr = PostgresCallStoreTest.invoke(c, cm, cargs);
        String sql = cargs == null ? "" : String.valueOf(cargs[0]);
        if (cr instanceof PreparedStatement ps && (sql.startsWith("UPDATE toolcall_call SET state")
            || sql.startsWith("INSERT INTO toolcall_call"))) { // a write of a call
          return PostgresCallStoreTest.proxy(PreparedStatement.class, (pp, pm, pargs) -> {
            if (!pm.getName().equals("executeUpdate") || !c.getAutoCommit()) {
              return PostgresCallStoreTest.invoke(ps, pm, pargs);
            }
            if (applied) { // autocommit: the statement is the commit
              int rows = ps.executeUpdate();
              return rows == 0 || !fire.getAsBoolean() ? Integer.valueOf(rows) : Integer.valueOf(die.get());
            }
            return fire.getAsBoolean() ? Integer.valueOf(die.get()) : PostgresCallStoreTest.invoke(ps, pm, pargs);
          });
        }
        return cr;
      });
    });
  }

  /**
   * The connection dies after my commit of version 1, and another writer moves the row on to version 2 before I read
   * it again: my write won, and is reported won (not lost to "changed elsewhere").
   */
  @Test
  void aWriteThatCommittedIsWonAlthoughTheRowMovedOnBeforeTheReRead() {
    store.insert(call("moved-on"));
    StoredCall cur = store.load("s", "moved-on").orElseThrow();
    PostgresCallStore faulty = PostgresCallStore.create(losingTheCommitsAnswer(db, true, () -> {
      StoredCall mine = store.load("s", "moved-on").orElseThrow();
      assertThat(store.compareAndSet(mine, mine.next(ToolCallState.RUNNING, doc("other", 2))).won()).isTrue();
    }));
    PostgresCallStore.CasResult r = faulty.compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("me", 1)));
    assertThat(r.won()).as("my version 1 committed").isTrue();
    assertThat(r.current().document()).contains("me");
    assertThat(store.load("s", "moved-on").orElseThrow().version()).isEqualTo(2);
  }

  /**
   * The connection dies before my commit of version 1; another writer stores version 1 with the very same change, then
   * version 2: my write lost (the row records another writer of version 1), though an identical version 1 is stored.
   */
  @Test
  void aWriteThatDidNotCommitIsLostEvenWhenAnIdenticalVersionWon() {
    store.insert(call("twin"));
    StoredCall cur = store.load("s", "twin").orElseThrow();
    PostgresCallStore faulty = PostgresCallStore.create(losingTheCommitsAnswer(db, false, () -> {
      StoredCall v0 = store.load("s", "twin").orElseThrow();
      assertThat(store.compareAndSet(v0, v0.next(ToolCallState.RUNNING, doc("me", 1))).won()).isTrue();
      StoredCall v1 = store.load("s", "twin").orElseThrow();
      assertThat(store.compareAndSet(v1, v1.next(ToolCallState.RUNNING, doc("other", 2))).won()).isTrue();
    }));
    PostgresCallStore.CasResult r = faulty.compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("me", 1)));
    assertThat(r.won()).isFalse();
    assertThat(r.current().version()).isEqualTo(2);
  }

  /** An insert whose commit lost its answer is settled by reading: it created the call. */
  @Test
  void anInsertThatCommittedIsCreatedAlthoughTheAnswerWasLost() {
    PostgresCallStore faulty = PostgresCallStore.create(losingTheCommitsAnswer(db, true, () -> { }));
    assertThat(faulty.insert(call("inserted"))).isTrue();
    assertThat(store.load("s", "inserted")).isPresent();
    PostgresCallStore lost = PostgresCallStore.create(losingTheCommitsAnswer(db, false, () -> { }));
    assertThatThrownBy(() -> lost.insert(call("not-inserted"))).isInstanceOfSatisfying(StoreException.class,
        e -> assertThat(e.outcomeUnknown()).isFalse());
    assertThat(store.load("s", "not-inserted")).isEmpty();
  }

  // ---- item 4: outcomeUnknown is true exactly when the write may have committed ----

  /**
   * A client-side socket timeout while the server waits on a row lock with my UPDATE: the library answers "changed
   * nothing" (outcomeUnknown false), and that is true: when the lock goes, the write does not commit.
   */
  @Test
  void aSocketTimeoutOnALockedRowIsNotAppliedAndNeverCommitsLater() throws Exception {
    store.insert(call("sock"));
    StoredCall cur = store.load("s", "sock").orElseThrow();
    PGSimpleDataSource impatientDs = (PGSimpleDataSource) PostgresCallStoreTest.named(db, "toolcall-sock");
    impatientDs.setSocketTimeout(1);
    PostgresCallStore impatient = PostgresCallStore.create(impatientDs, Duration.ofSeconds(30));
    try (Connection holder = db.getConnection()) {
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute("SELECT * FROM toolcall_call WHERE session_id = 's' AND call_id = 'sock' FOR UPDATE");
      }
      assertThatThrownBy(() -> impatient.compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("late", 1))))
          .isInstanceOfSatisfying(StoreException.class, e -> {
            assertThat(e.outcomeUnknown()).isFalse();
            assertThat(e.getMessage()).contains("row s/sock", "changed nothing");
          });
      holder.commit(); // the lock goes
    }
    awaitNoBackend("toolcall-sock");
    assertThat(versionOf("sock")).as("the timed-out write never committed").isZero();
  }

  /** Waits (bounded) until no backend of {@code applicationName} is left: the server has finished its statements. */
  static void awaitNoBackend(String applicationName) throws Exception {
    try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
      ps.setString(1, applicationName);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (true) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getInt(1) == 0) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("backend " + applicationName + " still there").isLessThan(until);
        Thread.onSpinWait();
      }
    }
  }

  /** With the database unreachable, a write never reached the server: it is not applied, and says so. */
  @Test
  void aWriteWithTheDatabaseDownIsNotAppliedWithNoDoubt() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    PGSimpleDataSource down = new PGSimpleDataSource();
    down.setURL("jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=toolcall");
    down.setConnectTimeout(2);
    PostgresCallStore dead = PostgresCallStore.create(down);
    StoredCall c = call("down");
    assertThatThrownBy(() -> dead.compareAndSet(c, c.next(ToolCallState.RUNNING, doc("me", 1))))
        .isInstanceOfSatisfying(StoreException.class, e -> {
          assertThat(e.outcomeUnknown()).isFalse();
          assertThat(e.retriable()).isTrue();
          assertThat(e.getMessage()).contains("row s/down", "not sent");
        });
    assertThatThrownBy(() -> dead.insert(c)).isInstanceOfSatisfying(StoreException.class,
        e -> assertThat(e.outcomeUnknown()).isFalse());
  }

  // ---- item 5: NUL is stored; errors retrying cannot fix say so ----

  /** U+0000 (and U+FFFF, the escape) in ids, tool name and document round-trip exactly. */
  @Test
  void nulCharactersRoundTripExactly() throws Exception {
    String doc = "{\"text\":\"a\\u0000b\\uffff0\\uffff\",\"k\\u0000\":[\"\\u0000\",1.50,{\"x\":\"\\\\u0000\"}]}";
    StoredCall c = new StoredCall("s\0", "nul\0\uFFFF", "sh\0ell", ToolCallState.RUNNING, 0, doc);
    assertThat(store.insert(c)).isTrue();
    StoredCall back = store.load("s\0", "nul\0\uFFFF").orElseThrow();
    ObjectMapper json = new ObjectMapper();
    assertThat(back.toolName()).isEqualTo("sh\0ell");
    assertThat(json.readTree(back.document())).isEqualTo(json.readTree(doc));
    assertThat(back.document()).contains("1.50"); // numbers exactly as written
    StoredCall next = back.next(ToolCallState.RUNNING, "{\"t\":\"\\u0000\"}");
    assertThat(store.compareAndSet(back, next).won()).isTrue();
    assertThat(json.readTree(store.load("s\0", "nul\0\uFFFF").orElseThrow().document()).get("t").textValue())
        .isEqualTo("\0");
  }

  /** A tool's result holding NUL, and NUL in the arguments: the call completes, stored, and reads back exactly. */
  @Test
  void aResultAndArgumentsWithNulAreStored() throws Exception {
    Tool echo = Tool.of(ToolDefinition.builder("echo").readOnly(true).requiresApproval(false).build(),
        inv -> ToolResult.of("out\0put " + inv.arguments().raw()));
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(List.of(echo)).callStore(store.calls()).build()) {
      List<CallResult> rs = rt.schedule("nul-session", List.of(CallRequest.of("n1", "echo", "{\"q\":\"a\\u0000b\"}"),
          CallRequest.of("n2", "echo", "{\"q\":\"a\0b\"}"))).join();
      assertThat(rs.get(0).outcome()).isEqualTo(new Outcome.Completed("out\0put {\"q\":\"a\\u0000b\"}"));
      assertThat(rs.get(1).outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
          f -> assertThat(f.kind()).isEqualTo(dev.toolcall.FailureKind.MALFORMED_ARGUMENTS));
    }
    assertThat(PostgresCallStore.entry(store.load("nul-session", "n2").orElseThrow()).arguments())
        .isEqualTo("{\"q\":\"a\0b\"}");
    StoredCall row = store.load("nul-session", "n1").orElseThrow();
    assertThat(row.state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(PostgresCallStore.entry(row).outcome())
        .isEqualTo(new Outcome.Completed("out\0put {\"q\":\"a\\u0000b\"}"));
  }

  /**
   * The store refuses a tool's result for good (a CHECK constraint: SQLSTATE 23514; retrying cannot fix it): the
   * error says it is not retriable, and the call ends FAILED with a reason the model reads instead of staying RUNNING
   * while the end is retried for ever.
   */
  @Test
  void anEndTheStoreRefusesForGoodEndsTheCallFailed() throws Exception {
    DataSource strict = PgCluster.database("toolcall_hardening_strict");
    PostgresCallStore st = PostgresCallStore.create(strict);
    st.applySchema();
    try (Connection c = strict.getConnection(); Statement x = c.createStatement()) {
      x.execute("ALTER TABLE toolcall_call ADD CONSTRAINT no_forbidden CHECK (document::text NOT LIKE '%forbidden%')");
    }
    StoredCall bad = new StoredCall("s", "refused", "shell", ToolCallState.RUNNING, 0, "{\"x\":\"forbidden\"}");
    assertThatThrownBy(() -> st.insert(bad)).isInstanceOfSatisfying(StoreException.class, e -> {
      assertThat(e.retriable()).isFalse();
      assertThat(e.outcomeUnknown()).isFalse();
    });
    dev.toolcall.testing.Logs.expect(dev.toolcall.execution.ToolScheduler.class);
    Tool leak = Tool.of(ToolDefinition.builder("leak").readOnly(true).requiresApproval(false).build(),
        inv -> ToolResult.of("a forbidden result"));
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(List.of(leak)).callStore(st.calls()).build()) {
      dev.toolcall.ToolCallSnapshot end = rt.schedule("strict", List.of(CallRequest.of("l1", "leak", "{}")))
          .calls().get(0).whenTerminal().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(end.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
        assertThat(f.kind()).isEqualTo(dev.toolcall.FailureKind.INTERNAL_ERROR);
        assertThat(f.message()).contains("could not be stored").doesNotContain("forbidden");
      });
    }
    assertThat(st.load("strict", "l1").orElseThrow().state()).isEqualTo(ToolCallState.FAILED);
    assertThat(dev.toolcall.testing.Logs.of(dev.toolcall.execution.ToolScheduler.class))
        .anyMatch(e -> e.message().contains("l1") && e.message().contains("retrying cannot fix"));
  }

  // ---- items 6 and 9: a row from a newer version blocks nothing, and is named once ----

  /**
   * Of three waiting rows, one was written by a newer version (a field this version does not know): the other two
   * restore, the unreadable one is left exactly as it was and named in one WARN, however often it is met.
   */
  @Test
  void aRowFromANewerVersionBlocksNoRestoreAndIsNamedOnce() throws Exception {
    DataSource mixed = PgCluster.database("toolcall_hardening_mixed");
    PostgresCallStore st = PostgresCallStore.create(mixed);
    st.applySchema();
    for (String id : List.of("old-1", "newer", "old-2")) {
      assertThat(st.calls().create(snapshotAt(id, 0))).isTrue();
    }
    try (Connection c = mixed.getConnection(); Statement x = c.createStatement()) {
      x.execute("UPDATE toolcall_call SET document = document || '{\"priority\": 7}' WHERE call_id = 'newer'");
    }
    String before = st.load("s", "newer").orElseThrow().document();
    dev.toolcall.testing.Logs.expect(PostgresCallStore.class);
    Tool shell = Tool.of(ToolDefinition.builder("shell").readOnly(true).requiresApproval(false).build(),
        inv -> ToolResult.of("ran"));
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(List.of(shell)).callStore(st.calls()).build()) {
      st.snapshot(java.time.Clock.systemUTC()); // met once before the restore, too
      List<String> restored = new java.util.ArrayList<>();
      for (dev.toolcall.execution.Batch b : rt.restore(st.snapshot(java.time.Clock.systemUTC()))) {
        for (CallResult r : b.join()) {
          restored.add(r.callId());
          assertThat(r.outcome()).isEqualTo(new Outcome.Completed("ran"));
        }
      }
      assertThat(restored).containsExactlyInAnyOrder("old-1", "old-2");
    }
    StoredCall after = st.load("s", "newer").orElseThrow();
    assertThat(after.version()).isZero();
    assertThat(after.document()).isEqualTo(before);
    assertThat(dev.toolcall.testing.Logs.of(PostgresCallStore.class)).singleElement()
        .satisfies(e -> assertThat(e.message()).contains("row s/newer", "priority"));
  }

  /** An overdue row this version cannot read is named once, not at every sweep of every runtime. */
  @Test
  void anUnreadableOverdueRowIsNamedOnceNotAtEverySweep() throws Exception {
    DataSource swept = PgCluster.database("toolcall_hardening_sweep");
    PostgresCallStore st = PostgresCallStore.create(swept);
    st.applySchema();
    try (Connection c = swept.getConnection(); Statement x = c.createStatement()) {
      x.execute("INSERT INTO toolcall_call (session_id, call_id, tool_name, state, version, document, lease_owner,"
          + " lease_until) VALUES ('s', 'paused', 'shell', 'paused', 3, '{}', 'gone', now() - interval '1 hour')");
    }
    dev.toolcall.testing.Logs.expect(PostgresCallStore.class);
    dev.toolcall.SharedCallStore shared = st.shared("sweeper", Duration.ofSeconds(5));
    for (int sweep = 0; sweep < 5; sweep++) {
      assertThat(shared.overdue()).isEmpty();
    }
    assertThat(st.active()).isEmpty();
    assertThat(dev.toolcall.testing.Logs.of(PostgresCallStore.class)).singleElement()
        .satisfies(e -> assertThat(e.message()).contains("row s/paused", "'paused' is unknown"));
  }

  /**
   * After a restart, the model reuses a call id its session used before the restart: with the calls in PostgreSQL,
   * the new call fails DUPLICATE_CALL with a message for the model, as in memory; the batch's other call runs, the
   * stored call is untouched, and nothing is logged.
   */
  @Test
  void aCallIdReusedAfterARestartIsADuplicateForTheModel() throws Exception {
    java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
    Tool echo = Tool.of(ToolDefinition.builder("echo").readOnly(true).requiresApproval(false).build(),
        inv -> ToolResult.of("run " + runs.incrementAndGet()));
    try (ToolCallRuntime before = ToolCallRuntime.builder().tools(List.of(echo)).callStore(store.calls()).build()) {
      assertThat(before.schedule("reuse", List.of(CallRequest.of("call_1", "echo", "{}"))).join().get(0).outcome())
          .isEqualTo(new Outcome.Completed("run 1"));
    }
    StoredCall stored = store.load("reuse", "call_1").orElseThrow();
    try (ToolCallRuntime after = ToolCallRuntime.builder().tools(List.of(echo)).callStore(store.calls()).build()) {
      List<CallResult> rs = after.schedule("reuse", List.of(CallRequest.of("call_1", "echo", "{}"),
          CallRequest.of("call_2", "echo", "{}"))).join();
      assertThat(rs.get(0).outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
        assertThat(f.kind()).isEqualTo(dev.toolcall.FailureKind.DUPLICATE_CALL);
        assertThat(f.message()).contains("'call_1'", "already used");
      });
      assertThat(rs.get(1).outcome()).isEqualTo(new Outcome.Completed("run 2"));
      assertThat(after.schedule("reuse", List.of(CallRequest.of("call_1", "echo", "{}"))).join().get(0).outcome())
          .isInstanceOf(Outcome.Failed.class);
    }
    assertThat(runs).hasValue(2);
    assertThat(store.load("reuse", "call_1").orElseThrow()).isEqualTo(stored);
    assertThat(dev.toolcall.testing.Logs.of(dev.toolcall.execution.ToolScheduler.class)).isEmpty();
  }

  /**
   * A waiting row whose deadline is not an instant this version writes (a newer version's form) does not make the
   * sweep's query fail for every other row: the overdue call beside it is found.
   */
  @Test
  void aDeadlineThisVersionCannotReadDoesNotBlockTheSweep() throws Exception {
    DataSource swept = PgCluster.database("toolcall_hardening_deadline");
    PostgresCallStore st = PostgresCallStore.create(swept);
    st.applySchema();
    assertThat(st.calls().create(snapshotAt("late", 0).next(ToolCallState.RUNNING, Reason.STARTED, null, 1L)))
        .isTrue();
    try (Connection c = swept.getConnection(); Statement x = c.createStatement()) {
      x.execute("INSERT INTO toolcall_call (session_id, call_id, tool_name, state, version, document) VALUES"
          + " ('s', 'odd', 'shell', 'permission_pending', 1, '{\"permission\": {\"deadline\": \"in 5 minutes\"}}')");
      x.execute("UPDATE toolcall_call SET lease_owner = 'gone', lease_until = now() - interval '1 hour'"
          + " WHERE call_id = 'late'");
    }
    assertThat(st.shared("sweeper", Duration.ofSeconds(5)).overdue()).extracting(c -> c.callId())
        .containsExactly("late");
  }

  /** The change feed reads ids as the server counts them (characters) and as the store writes them (NUL escaped). */
  @Test
  void theChangeFeedReadsIdsOfAnyCharacter() {
    assertThat(ChangeFeed.parse("1:\uD83D\uDE003:c\uFFFF0/3"))
        .isEqualTo(new ChangeFeed.Change("\uD83D\uDE00", "c\0", 3));
  }

  /**
   * The store's other writes (one autocommit statement each: leases, grants, conversations, retention) say the same:
   * a connection lost after the statement was sent may have committed (outcomeUnknown), one never had is not.
   */
  @Test
  void anAutocommitWriteWhoseConnectionDiedMayHaveCommitted() {
    PostgresCallStore faulty = PostgresCallStore.create(PostgresCallStoreTest.failing(db, (ps, update) -> {
      update.get();
      throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
    }));
    assertThatThrownBy(() -> faulty.shared("renewer", Duration.ofSeconds(5)).renewLeases())
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.outcomeUnknown()).isTrue());
    PGSimpleDataSource down = new PGSimpleDataSource();
    down.setURL("jdbc:postgresql://127.0.0.1:1/postgres?user=toolcall");
    assertThatThrownBy(() -> PostgresCallStore.create(down).shared("renewer", Duration.ofSeconds(5)).renewLeases())
        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.outcomeUnknown()).isFalse());
  }

  /**
   * A database made by the first schema (version 1: no {@code writers} column) is brought to the current version in
   * place by {@code applySchema()}; its rows keep their data and move on by compare-and-set.
   */
  @Test
  void aVersion1DatabaseIsMigratedInPlace() throws Exception {
    DataSource old = PgCluster.database("toolcall_hardening_v1");
    try (Connection c = old.getConnection(); Statement x = c.createStatement()) {
      x.execute("CREATE TABLE toolcall_call (session_id text NOT NULL, call_id text NOT NULL, tool_name text NOT NULL,"
          + " state text NOT NULL, version integer NOT NULL CHECK (version >= 0), document jsonb NOT NULL,"
          + " seq bigserial NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), lease_owner text,"
          + " lease_until timestamptz, PRIMARY KEY (session_id, call_id))");
      x.execute("CREATE TABLE toolcall_schema (version integer NOT NULL PRIMARY KEY)");
      x.execute("INSERT INTO toolcall_schema VALUES (1)");
      x.execute("INSERT INTO toolcall_call (session_id, call_id, tool_name, state, version, document) VALUES"
          + " ('s', 'legacy', 'shell', 'running', 4, '{\"n\": 4}')");
    }
    PostgresCallStore st = PostgresCallStore.create(old);
    st.applySchema();
    StoredCall legacy = st.load("s", "legacy").orElseThrow();
    assertThat(legacy.version()).isEqualTo(4);
    assertThat(st.compareAndSet(legacy, legacy.next(ToolCallState.RUNNING, doc("me", 5))).won()).isTrue();
    try (Connection c = old.getConnection(); Statement x = c.createStatement();
        ResultSet rs = x.executeQuery("SELECT (SELECT max(version) FROM toolcall_schema),"
            + " (SELECT cardinality(writers) FROM toolcall_call WHERE call_id = 'legacy'),"
            + " to_regclass('toolcall_token_revocation') IS NOT NULL")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(6);
      assertThat(rs.getBoolean(3)).as("version 4: the token revocations").isTrue();
      assertThat(rs.getInt(2)).isEqualTo(1);
    }
  }

  /** The row's record of writers keeps the last 16 writes however many there were. */
  @Test
  void theRecordOfWritersIsBounded() throws Exception {
    store.insert(call("many"));
    for (int i = 0; i < 40; i++) {
      StoredCall cur = store.load("s", "many").orElseThrow();
      assertThat(store.compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("w", i + 1))).won()).isTrue();
    }
    try (Connection c = db.getConnection(); Statement x = c.createStatement();
        ResultSet rs = x.executeQuery("SELECT writers FROM toolcall_call WHERE call_id = 'many'")) {
      rs.next();
      String[] writers = (String[]) rs.getArray(1).getArray();
      assertThat(writers).hasSize(16);
      assertThat(writers[15]).startsWith("40:");
      assertThat(writers[0]).startsWith("25:");
    }
  }

  /**
   * The case through two runtimes: B holds a call waiting for approval; A approves it, and A's connection dies
   * after the COMMIT while B runs the call on (versions 3 and 4). A's decision won, and is told so (not "lost, changed
   * elsewhere"); the tool ran once.
   */
  @Test
  void anApprovalWhoseCommitLostItsAnswerWhileTheOtherRuntimeRanTheCallWon() throws Exception {
    DataSource shared = PgCluster.database("toolcall_hardening_two");
    PostgresCallStore.create(shared).applySchema();
    java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
    PostgresCallStore watcher = PostgresCallStore.create(TwoRuntimesTest.second("toolcall_hardening_two"));
    Runnable bRunsIt = () -> { // between A's commit and its lost answer: B runs the approved call to its end
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (watcher.load("s", "c1").orElseThrow().state() != ToolCallState.COMPLETED) {
        assertThat(System.nanoTime()).as("B ran the call").isLessThan(until);
        Thread.onSpinWait();
      }
    };
    DataSource dsA = Pool.of(losingTheCommitsAnswer(TwoRuntimesTest.second("toolcall_hardening_two"), true, bRunsIt,
        () -> armed.getAndSet(false)), 4);
    DataSource dsB = Pool.of(TwoRuntimesTest.second("toolcall_hardening_two"), 4);
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      runs.incrementAndGet();
      return ToolResult.of("ran");
    });
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell)
            .sharedStore(PostgresCallStore.create(dsA).shared("a", Duration.ofSeconds(30))).build();
        ToolCallRuntime b = ToolCallRuntime.builder().tools(shell)
            .sharedStore(PostgresCallStore.create(dsB).shared("b", Duration.ofSeconds(30))).build()) {
      dev.toolcall.execution.Batch batch = b.schedule("s", List.of(CallRequest.of("c1", "shell", "{}")));
      dev.toolcall.permission.PermissionRequest asked = b.permissions().awaitNext(Duration.ofSeconds(10))
          .orElseThrow();
      armed.set(true);
      dev.toolcall.permission.DecisionResult result = a.permissions().decide(asked.requestId(),
          dev.toolcall.permission.Decision.approveOnce(asked));
      assertThat(armed).as("the decision's write lost its answer").isFalse();
      assertThat(result).isInstanceOf(dev.toolcall.permission.DecisionResult.Won.class);
      assertThat(batch.whenDone().toCompletableFuture().get(30, TimeUnit.SECONDS).get(0).outcome())
          .isEqualTo(new Outcome.Completed("ran"));
    }
    assertThat(runs).hasValue(1);
  }
}
