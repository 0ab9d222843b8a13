package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.ToolCallState;
import dev.toolcall.testing.Race;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, parts 4 and 6: the shared store against a real PostgreSQL ({@link PgCluster}; never a mock). Each
 * transition is one conditional UPDATE: racing writers lose no update, two stores on one database claim each call
 * once, a paused writer's stale write changes no row, faults change nothing or are settled by reading the row again,
 * and a row the library cannot read is named and left alone.
 */
class PostgresCallStoreTest {
  static DataSource db;
  static PostgresCallStore store;

  @BeforeAll
  static void database() {
    db = PgCluster.database("toolcall_store_test");
    store = PostgresCallStore.create(db);
    store.applySchema();
    store.applySchema(); // idempotent
  }

  static StoredCall call(String id, ToolCallState state) {
    return new StoredCall("s", id, "shell", state, 0, "{\"arguments\":\"ls\",\"n\":0}");
  }

  static String doc(String who, int n) {
    return "{\"by\":\"" + who + "\",\"n\":" + n + "}";
  }

  @Test
  void aRowRoundTripsAndAnInsertOfAKnownCallChangesNothing() {
    StoredCall c = call("round-trip", ToolCallState.PENDING);
    assertThat(store.insert(c)).isTrue();
    assertThat(store.insert(c.next(ToolCallState.RUNNING, "{}"))).isFalse();
    StoredCall back = store.load("s", "round-trip").orElseThrow();
    assertThat(back.version()).isZero();
    assertThat(back.state()).isEqualTo(ToolCallState.PENDING);
    assertThat(back.document()).contains("\"arguments\": \"ls\"");
    assertThat(store.load("s", "nope")).isEmpty();
  }

  /** Invariant: four threads advancing one row lose no update: the row's version is the number of writes that won. */
  @Test
  void racingWritersLoseNoUpdate() throws Exception {
    store.insert(call("race", ToolCallState.RUNNING));
    int threads = 4;
    int each = 60;
    Set<Integer> versionsWon = ConcurrentHashMap.newKeySet();
    AtomicInteger wins = new AtomicInteger();
    Race.run(threads, Duration.ofSeconds(120), t -> {
      String who = "w" + t;
      for (int i = 0; i < each; i++) {
        StoredCall cur = store.load("s", "race").orElseThrow();
        PostgresCallStore.CasResult r = store.compareAndSet(cur, cur.next(ToolCallState.RUNNING,
            doc(who, cur.version() + 1)));
        if (r.won()) {
          wins.incrementAndGet();
          assertThat(versionsWon.add(r.current().version())).as("a version won twice").isTrue();
        } else {
          assertThat(r.current().version()).isGreaterThan(cur.version());
        }
      }
    });
    StoredCall end = store.load("s", "race").orElseThrow();
    assertThat(end.version()).as("row version = number of won writes (no lost update)").isEqualTo(wins.get());
    assertThat(versionsWon).hasSize(wins.get()).allMatch(v -> v >= 1 && v <= wins.get());
  }

  /**
   * Two stores (separate DataSources, as two runtimes would have) on one database, two threads each, race to claim
   * 300 approved calls: each is claimed (approved -> running) exactly once, so no tool would run twice.
   */
  @Test
  void twoStoresOnOneDatabaseClaimEachCallOnce() throws Exception {
    PostgresCallStore a = PostgresCallStore.create(PgCluster.database("toolcall_store_test_shared"));
    a.applySchema();
    DataSource second = new org.postgresql.ds.PGSimpleDataSource();
    ((org.postgresql.ds.PGSimpleDataSource) second).setURL(PgCluster.url());
    ((org.postgresql.ds.PGSimpleDataSource) second).setDatabaseName("toolcall_store_test_shared");
    PostgresCallStore b = PostgresCallStore.create(second);
    int n = 300;
    for (int i = 0; i < n; i++) {
      a.insert(new StoredCall("s", "c" + i, "shell", ToolCallState.PERMISSION_APPROVED, 2, "{}"));
    }
    ConcurrentHashMap<String, AtomicInteger> claims = new ConcurrentHashMap<>();
    Race.run(4, Duration.ofSeconds(180), t -> {
      PostgresCallStore mine = t % 2 == 0 ? a : b;
      int offset = t * 37;
      for (int k = 0; k < n; k++) {
        String id = "c" + ((k + offset) % n);
        StoredCall cur = mine.load("s", id).orElseThrow();
        if (cur.state() == ToolCallState.PERMISSION_APPROVED
            && mine.compareAndSet(cur, cur.next(ToolCallState.RUNNING, "{\"claimedBy\":1}")).won()) {
          claims.computeIfAbsent(id, x -> new AtomicInteger()).incrementAndGet();
        }
      }
    });
    assertThat(claims).hasSize(n);
    assertThat(claims.values()).allMatch(c -> c.get() == 1);
    assertThat(a.active()).hasSize(n).allMatch(c -> c.state() == ToolCallState.RUNNING && c.version() == 3);
  }

  /** A writer paused (a latch in place of a GC pause) while another moved the row on: its stale write changes no row. */
  @Test
  void aPausedWritersStaleWriteChangesNoRow() throws Exception {
    store.insert(call("paused", ToolCallState.PERMISSION_PENDING));
    StoredCall seen = store.load("s", "paused").orElseThrow();
    CountDownLatch resume = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<PostgresCallStore.CasResult> stale = pool.submit(() -> {
        resume.await();
        return store.compareAndSet(seen, seen.next(ToolCallState.PERMISSION_APPROVED, doc("stale", 1)));
      });
      assertThat(store.compareAndSet(seen, seen.next(ToolCallState.PERMISSION_DENIED,
          "{\"outcome\":{\"denied\":\"timeout\"}}")).won()).isTrue();
      resume.countDown();
      PostgresCallStore.CasResult r = stale.get(30, TimeUnit.SECONDS);
      assertThat(r.won()).isFalse();
      assertThat(r.current().state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.load("s", "paused").orElseThrow().document()).contains("timeout");
  }

  /** The connection dies after the server committed: the write is settled as won by reading the row again. */
  @Test
  void aWriteWhoseConnectionDiedAfterCommitIsSettledByARead() {
    store.insert(call("after-commit", ToolCallState.RUNNING));
    PostgresCallStore faulty = PostgresCallStore.create(PostgresHardeningTest.losingTheCommitsAnswer(db, true,
        () -> { }));
    StoredCall cur = store.load("s", "after-commit").orElseThrow();
    PostgresCallStore.CasResult r = faulty.compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("me", 1)));
    assertThat(r.won()).isTrue();
    assertThat(store.load("s", "after-commit").orElseThrow().version()).isEqualTo(1);
  }

  /** The connection dies before the write reached the server: a clear error, and the row is as it was. */
  @Test
  void aWriteWhoseConnectionDiedBeforeCommitFailsAndChangesNothing() {
    store.insert(call("before-commit", ToolCallState.RUNNING));
    PostgresCallStore faulty = PostgresCallStore.create(failing(db, (ps, update) -> {
      throw new SQLException("Connection refused.", "08001");
    }));
    StoredCall cur = store.load("s", "before-commit").orElseThrow();
    assertThatThrownBy(() -> faulty.compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("me", 1))))
        .isInstanceOfSatisfying(StoreException.class, e -> {
          assertThat(e.getMessage()).contains("row s/before-commit", "changed nothing");
          assertThat(e.outcomeUnknown()).isFalse();
        });
    assertThat(store.load("s", "before-commit").orElseThrow().version()).isZero();
  }

  /**
   * A write blocked on a row lock is ended by the statement timeout, and another by {@code pg_terminate_backend}:
   * each a clear store error, and the row is as the lock holder left it.
   */
  @Test
  void aTimedOutOrTerminatedWriteFailsAndChangesNothing() throws Exception {
    store.insert(call("locked", ToolCallState.RUNNING));
    StoredCall cur = store.load("s", "locked").orElseThrow();
    PostgresCallStore impatient = PostgresCallStore.create(db, Duration.ofSeconds(1));
    try (Connection holder = db.getConnection()) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        s.execute("SELECT * FROM toolcall_call WHERE session_id = 's' AND call_id = 'locked' FOR UPDATE");
      }
      assertThatThrownBy(() -> impatient.compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("late", 1))))
          .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.getMessage())
              .contains("row s/locked", "changed nothing"));
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<PostgresCallStore.CasResult> blocked = pool.submit(() -> PostgresCallStore.create(
            named(db, "toolcall-victim")).compareAndSet(cur, cur.next(ToolCallState.RUNNING, doc("victim", 1))));
        try (Connection admin = db.getConnection(); Statement s = admin.createStatement()) {
          int killed = 0;
          for (int i = 0; i < 200 && killed == 0; i++) { // waits for the victim to be blocked on the lock
            try (ResultSet rs = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                + " WHERE application_name = 'toolcall-victim' AND wait_event_type = 'Lock'")) {
              rs.next();
              killed = rs.getInt(1);
            }
            if (killed == 0) {
              Thread.onSpinWait();
            }
          }
          assertThat(killed).isEqualTo(1);
        }
        assertThatThrownBy(() -> blocked.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreException.class)
            .cause().hasMessageContaining("changed nothing");
      } finally {
        pool.shutdownNow();
      }
      holder.rollback();
    }
    assertThat(store.load("s", "locked").orElseThrow().version()).isZero();
  }

  /** Rows this version cannot read are named and left as they are; the other rows are unaffected. */
  @Test
  void aRowTheLibraryCannotReadIsNamedAndLeftAlone() throws Exception {
    DataSource rows = PgCluster.database("toolcall_store_test_rows");
    PostgresCallStore own = PostgresCallStore.create(rows);
    own.applySchema();
    own.insert(call("fine", ToolCallState.PENDING));
    try (Connection c = rows.getConnection(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO toolcall_call (session_id, call_id, tool_name, state, version, document) VALUES"
          + " ('s', 'future', 'shell', 'paused', 3, '{}'),"
          + " ('s', 'no-outcome', 'shell', 'completed', 4, '{\"outcome\": null}'),"
          + " ('s', 'last', 'shell', 'running', 2147483647, '{}')");
    }
    assertThatThrownBy(() -> own.load("s", "future")).isInstanceOf(StoreException.class)
        .hasMessageContaining("row s/future").hasMessageContaining("'paused' is unknown");
    assertThatThrownBy(() -> own.load("s", "no-outcome")).isInstanceOf(StoreException.class)
        .hasMessageContaining("row s/no-outcome").hasMessageContaining("no outcome");
    assertThatThrownBy(() -> own.load("s", "last")).isInstanceOf(StoreException.class)
        .hasMessageContaining("row s/last").hasMessageContaining("last one");
    List<StoreException> bad = new ArrayList<>();
    assertThat(own.active(bad::add)).extracting(StoredCall::callId).containsExactly("fine");
    assertThat(bad).extracting(Throwable::getMessage).anyMatch(m -> m.contains("row s/future"))
        .anyMatch(m -> m.contains("row s/last"));
    assertThat(own.load("s", "fine")).isPresent();
  }

  /** {@code ds} with its connections' application name set to {@code name} (so a test can find the backend). */
  static DataSource named(DataSource ds, String name) {
    org.postgresql.ds.PGSimpleDataSource n = new org.postgresql.ds.PGSimpleDataSource();
    n.setURL(PgCluster.url());
    n.setDatabaseName(((org.postgresql.ds.PGSimpleDataSource) ds).getDatabaseName());
    n.setApplicationName(name);
    return n;
  }

  /** A statement step that may run the real update ({@code update.get()}) and then fail. */
  interface Fault {
    int apply(PreparedStatement ps, SqlCall update) throws SQLException;
  }

  interface SqlCall {
    int get() throws SQLException;
  }

  /** {@code ds} whose UPDATE statements go through {@code fault} (a fault injected in the driver's place). */
  static DataSource failing(DataSource ds, Fault fault) {
    InvocationHandler dsh = (p, m, args) -> {
      Object r = invoke(ds, m, args);
      if (r instanceof Connection c) {
        return proxy(Connection.class, (cp, cm, cargs) -> {
          Object cr = invoke(c, cm, cargs);
          if (cr instanceof PreparedStatement ps && cargs != null && String.valueOf(cargs[0]).startsWith("UPDATE")) {
            return proxy(PreparedStatement.class, (pp, pm, pargs) -> pm.getName().equals("executeUpdate")
                ? Integer.valueOf(fault.apply(ps, ps::executeUpdate)) : invoke(ps, pm, pargs));
          }
          return cr;
        });
      }
      return r;
    };
    return proxy(DataSource.class, dsh);
  }

  @SuppressWarnings("unchecked")
  static <T> T proxy(Class<T> type, InvocationHandler h) {
    return (T) Proxy.newProxyInstance(PostgresCallStoreTest.class.getClassLoader(), new Class<?>[] {type}, h);
  }

  static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
