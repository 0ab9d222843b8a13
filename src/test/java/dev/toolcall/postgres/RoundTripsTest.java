package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: the round trips and commits a runtime with the PostgreSQL store makes per call, counted exactly at the JDBC
 * boundary (a counting {@link DataSource}), so that a change that adds one fails here. Each counted write is a state a
 * restart or another runtime's sweep needs (docs/durability.md).
 */
class RoundTripsTest {
  static DataSource db;

  @BeforeAll
  static void database() {
    db = PgCluster.database("toolcall_round_trips");
    PostgresCallStore.create(db).applySchema();
  }

  /** What a store sent to the database: each statement's first word, and each COMMIT and ROLLBACK sent. */
  static final class Wire {
    final List<String> sent = java.util.Collections.synchronizedList(new ArrayList<>());

    List<String> take() {
      synchronized (sent) {
        List<String> out = new ArrayList<>(sent);
        sent.clear();
        return out;
      }
    }

    DataSource over(DataSource ds) {
      return PostgresCallStoreTest.proxy(DataSource.class, (p, m, args) -> {
        Object r = PostgresCallStoreTest.invoke(ds, m, args);
        return m.getName().equals("getConnection") ? connection((Connection) r) : r;
      });
    }

    private Connection connection(Connection real) {
      boolean[] open = {false}; // a transaction is open on the server (a statement ran with autocommit off)
      return PostgresCallStoreTest.proxy(Connection.class, (p, m, args) -> {
        switch (m.getName()) {
          case "commit", "rollback" -> {
            if (open[0]) {
              sent.add(m.getName().toUpperCase(java.util.Locale.ROOT));
              open[0] = false;
            }
          }
          case "setAutoCommit" -> {
            if ((Boolean) args[0] && open[0]) {
              sent.add("COMMIT");
              open[0] = false;
            }
          }
          default -> { }
        }
        Object r = PostgresCallStoreTest.invoke(real, m, args);
        if (r instanceof PreparedStatement ps) {
          String sql = (String) args[0];
          return PostgresCallStoreTest.proxy(PreparedStatement.class, (sp, sm, sargs) -> {
            if (sm.getName().startsWith("execute")) {
              note(real, open, sql);
            }
            return PostgresCallStoreTest.invoke(ps, sm, sargs);
          });
        }
        if (r instanceof Statement st) {
          return PostgresCallStoreTest.proxy(Statement.class, (sp, sm, sargs) -> {
            if (sm.getName().startsWith("execute")) {
              note(real, open, (String) sargs[0]);
            }
            return PostgresCallStoreTest.invoke(st, sm, sargs);
          });
        }
        return r;
      });
    }

    private void note(Connection real, boolean[] open, String sql) throws java.sql.SQLException {
      String word = sql.strip().split("\\s+", 2)[0].toUpperCase(java.util.Locale.ROOT);
      if (word.equals("LISTEN")) {
        return; // a shared store's change feed, once when it starts: not a call's
      }
      if (real.getAutoCommit()) {
        sent.add(word.equals("SELECT") ? word : "+" + word);
      } else {
        open[0] = true;
        sent.add(word);
      }
    }
  }

  static List<Tool> tools() {
    return List.of(
        Tool.of(ToolDefinition.builder("echo").requiresApproval(false).build(), inv -> ToolResult.of("ok")),
        Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
            inv -> ToolResult.of("ran")));
  }

  /** What each shape of call sends, for one store: the statements and transaction ends, in order. */
  record Sent(List<String> noApproval, List<String> asked, List<String> approved, List<String> batchOfFour) {
    List<String> approvedOnce() {
      List<String> all = new ArrayList<>(asked);
      all.addAll(approved);
      return all;
    }
  }

  /** Runs one call needing no approval, one approved once, and a batch of four, counting what each sent. */
  static Sent measure(Wire wire, ToolCallRuntime rt, String session) throws Exception {
    wire.take();
    Batch one = rt.schedule(session, List.of(CallRequest.of("e1", "echo", "{}")));
    one.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(one.calls().get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    List<String> noApproval = wire.take();
    Batch asked = rt.schedule(session, List.of(CallRequest.of("a1", "shell", "{}")));
    PermissionRequest r = rt.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    List<String> ask = wire.take();
    rt.permissions().decide(r.requestId(), Decision.approveOnce(r));
    asked.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(asked.calls().get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    List<String> approved = wire.take();
    List<CallRequest> four = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      four.add(CallRequest.of("b" + i, "echo", "{}"));
    }
    Batch batch = rt.schedule(session, four);
    batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(batch.calls()).allSatisfy(c -> assertThat(c.snapshot().state()).isEqualTo(ToolCallState.COMPLETED));
    return new Sent(noApproval, ask, approved, wire.take());
  }

  static List<String> times(int n, String... each) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.addAll(List.of(each));
    }
    return out;
  }

  static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** Commits: each COMMIT sent, and each write statement run in autocommit mode ("+" marks one). */
  static long commits(List<String> sent) {
    return sent.stream().filter(s -> s.equals("COMMIT") || s.startsWith("+")).count();
  }

  /**
   * One runtime on {@code calls()}: a call that needs no approval is stored with its start (its pending version rides
   * in the insert of its running one) and its end: two commits; one approved once is stored with its question, then
   * permission_approved, running and completed: four; a batch of several is stored whole at admission (one insert),
   * then each call's versions. Each write is its statement and its COMMIT.
   */
  @Test
  void oneRuntime() throws Exception {
    Wire wire = new Wire();
    PostgresCallStore store = PostgresCallStore.create(wire.over(db));
    Sent sent;
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(tools()).callStore(store.calls()).build()) {
      sent = measure(wire, rt, "one");
    }
    assertCounts(sent);
  }

  /** The same on a shared store (lease and writer token ride on the same statements: nothing more per call). */
  @Test
  void sharedStore() throws Exception {
    Wire wire = new Wire();
    PostgresCallStore store = PostgresCallStore.create(wire.over(db));
    Sent sent;
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(tools())
        .sharedStore(store.shared("round-trips", Duration.ofHours(1))).build()) {
      sent = measure(wire, rt, "shared");
    }
    assertCounts(sent);
  }

  /**
   * A shared store leaves its own versions out of its watch, but not a version another writer won while its own write
   * of that version was under way: B's claim of version 1 is queued on the row's lock ahead of A's, B wins, and A's
   * watch is told of version 1 although A was writing version 1 when B's notification came.
   */
  @Test
  void aVersionAnotherWriterWonIsStillTold() throws Exception {
    dev.toolcall.SharedCallStore a = PostgresCallStore.create(PostgresCallStoreTest.named(db, "race-a"))
        .shared("race-a", Duration.ofHours(1));
    dev.toolcall.SharedCallStore b = PostgresCallStore.create(PostgresCallStoreTest.named(db, "race-b"))
        .shared("race-b", Duration.ofHours(1));
    dev.toolcall.ToolCallSnapshot v0 = dev.toolcall.ToolCallSnapshot.initial(new dev.toolcall.ToolCallIdentity("c",
        "shell", "race", null, java.time.Instant.now(), 0L, dev.toolcall.ToolCallOrigin.MODEL, "c"),
        dev.toolcall.ToolArguments.ofText("{}"));
    dev.toolcall.ToolCallSnapshot v1 = v0.next(ToolCallState.RUNNING, dev.toolcall.Reason.CHANGED_ELSEWHERE, null,
        1L);
    assertThat(a.create(v0)).isTrue();
    java.util.concurrent.BlockingQueue<Integer> told = new java.util.concurrent.LinkedBlockingQueue<>();
    try (AutoCloseable w = a.watch((session, call, version) -> told.add(version));
         Connection lock = db.getConnection(); Statement st = lock.createStatement();
         Connection watcher = db.getConnection(); Statement poll = watcher.createStatement()) {
      ChangeFeedTest.awaitListening(db, "race-a");
      lock.setAutoCommit(false);
      st.execute("SELECT 1 FROM toolcall_call WHERE session_id = 'race' AND call_id = 'c' FOR UPDATE");
      java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
      try {
        java.util.concurrent.Future<Boolean> bWrote = pool.submit(() -> b.compareAndSet(v0, v1));
        awaitLockWait(poll, "race-b");
        java.util.concurrent.Future<Boolean> aWrote = pool.submit(() -> a.compareAndSet(v0, v1));
        awaitLockWait(poll, "race-a");
        lock.rollback(); // B, queued first, takes the row
        assertThat(bWrote.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(aWrote.get(10, TimeUnit.SECONDS)).as("A's write of version 1 lost to B's").isFalse();
      } finally {
        pool.shutdownNow();
      }
      assertThat(told.poll(10, TimeUnit.SECONDS)).as("A's watch is told of B's version 1").isEqualTo(1);
    }
  }

  /**
   * A batch one of whose ids the database holds already (a call stored before a restart): its one {@code INSERT …
   * ON CONFLICT DO NOTHING RETURNING} stores the others and tells exactly which id was used before; that call alone
   * fails {@code duplicate_call} for the model, the stored row is left alone, and the others run.
   */
  @Test
  void aBatchWithAnIdStoredAlreadyRefusesThatCallAlone() throws Exception {
    Wire wire = new Wire();
    PostgresCallStore store = PostgresCallStore.create(wire.over(db));
    try (ToolCallRuntime before = ToolCallRuntime.builder().tools(tools()).callStore(store.calls()).build()) {
      before.schedule("dup", List.of(CallRequest.of("d2", "echo", "{}"))).whenDone().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    }
    StoredCall stored = store.load("dup", "d2").orElseThrow();
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(tools())
        .sharedStore(store.shared("dup-ids", Duration.ofHours(1))).build()) {
      wire.take();
      Batch batch = rt.schedule("dup", List.of(CallRequest.of("d1", "echo", "{}"), CallRequest.of("d2", "echo", "{}"),
          CallRequest.of("d3", "echo", "{}")));
      List<dev.toolcall.execution.CallResult> results = batch.whenDone().toCompletableFuture().get(10,
          TimeUnit.SECONDS);
      assertThat(results).extracting(r -> r.snapshot().state())
          .containsExactly(ToolCallState.COMPLETED, ToolCallState.FAILED, ToolCallState.COMPLETED);
      dev.toolcall.Outcome.Failed dup = (dev.toolcall.Outcome.Failed) results.get(1).snapshot().outcome();
      assertThat(dup.kind()).isEqualTo(dev.toolcall.FailureKind.DUPLICATE_CALL);
      assertThat(dup.message()).contains("stored before");
      assertThat(wire.take()).as("one INSERT for the batch, then each new call's two updates")
          .containsExactlyElementsOf(concat(List.of("INSERT", "COMMIT"), times(4, "UPDATE", "COMMIT")));
    }
    assertThat(store.load("dup", "d2").orElseThrow()).as("the stored call is left alone").isEqualTo(stored);
    assertThat(store.load("dup", "d1").orElseThrow().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(store.load("dup", "d3").orElseThrow().state()).isEqualTo(ToolCallState.COMPLETED);
  }

  /**
   * The database refuses the batch's insert (a trigger of the test's own raises for one of its rows): schedule()
   * throws the store's error, no row of the batch is stored, no event of it is published, and its ids are free.
   */
  @Test
  void aBatchWhoseInsertFailsIsRefusedWholeAndPublishesNothing() throws Exception {
    try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE OR REPLACE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
          + " IF NEW.call_id = 'boom' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$");
      st.execute("DROP TRIGGER IF EXISTS refuse_boom ON toolcall_call");
      st.execute("CREATE TRIGGER refuse_boom BEFORE INSERT ON toolcall_call FOR EACH ROW"
          + " EXECUTE FUNCTION refuse_boom()");
    }
    Wire wire = new Wire();
    PostgresCallStore store = PostgresCallStore.create(wire.over(db));
    List<dev.toolcall.event.Event> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(tools()).callStore(store.calls()).build()) {
      rt.events().subscribe(new dev.toolcall.event.EventListener() {
        @Override
        public void onEvent(dev.toolcall.event.Event e) {
          events.add(e);
        }
      });
      wire.take();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> rt.schedule("boom", List.of(
          CallRequest.of("ok1", "echo", "{}"), CallRequest.of("boom", "echo", "{}"),
          CallRequest.of("ok2", "echo", "{}")))).isInstanceOf(StoreException.class)
          .hasMessageContaining("refused by the test");
      assertThat(wire.take()).as("one INSERT, rolled back").containsExactly("INSERT", "ROLLBACK");
      assertThat(events).as("nothing published").isEmpty();
      assertThat(store.load("boom", "ok1")).as("nothing stored").isEmpty();
      assertThat(rt.scheduler().activeCalls()).isEmpty();
      Batch again = rt.schedule("boom", List.of(CallRequest.of("ok1", "echo", "{}"),
          CallRequest.of("ok2", "echo", "{}")));
      assertThat(again.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS))
          .as("the ids were let go: scheduled again, they run")
          .allSatisfy(r -> assertThat(r.snapshot().state()).isEqualTo(ToolCallState.COMPLETED));
    } finally {
      try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
        st.execute("DROP TRIGGER IF EXISTS refuse_boom ON toolcall_call");
      }
    }
  }

  /** Waits until the statement of the connection named {@code name} waits on a lock. */
  private static void awaitLockWait(Statement st, String name) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try (java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
          + name + "' AND wait_event_type = 'Lock'")) {
        rs.next();
        if (rs.getInt(1) == 1) {
          return;
        }
      }
    }
    throw new AssertionError(name + " never waited on the row's lock");
  }

  private static void assertCounts(Sent sent) {
    assertThat(sent.noApproval().size()).as("round trips, no approval: %s", sent.noApproval()).isEqualTo(4);
    assertThat(commits(sent.noApproval())).as("commits, no approval").isEqualTo(2);
    assertThat(sent.approvedOnce().size()).as("round trips, approved once: %s then %s", sent.asked(), sent.approved())
        .isEqualTo(8);
    assertThat(commits(sent.approvedOnce())).as("commits, approved once").isEqualTo(4);
    assertThat(sent.batchOfFour().size()).as("round trips, batch of four").isEqualTo(18);
    assertThat(commits(sent.batchOfFour())).as("commits, batch of four").isEqualTo(9);
    assertThat(sent.noApproval()).as("stored with its start (pending and running in one insert), then its end")
        .containsExactly("INSERT", "COMMIT", "UPDATE", "COMMIT");
    assertThat(sent.asked()).as("stored with its question").containsExactly("INSERT", "COMMIT");
    assertThat(sent.approved()).containsExactlyElementsOf(times(3, "UPDATE", "COMMIT"));
    assertThat(sent.batchOfFour()).as("the batch's four first versions: one INSERT, one COMMIT")
        .containsExactlyElementsOf(concat(List.of("INSERT", "COMMIT"), times(8, "UPDATE", "COMMIT")));
  }

  /**
   * The round trips of a conversation's steps through an {@code AgentDirectory} on the shared store: a turn that
   * suspends on one approval (the take, the call's versions, the write-back, the hand-over of the waiting call), then
   * its resume (the take, the reads that load the turn, the decision, the tool's versions, the write-back).
   */
  @Test
  void aDirectorysStepsCountTheirRoundTrips() throws Exception {
    Wire wire = new Wire();
    PostgresCallStore store = PostgresCallStore.create(wire.over(db));
    List<String> suspend;
    List<String> resume;
    dev.toolcall.testing.ScriptedModel model = new dev.toolcall.testing.ScriptedModel()
        .thenCalls(dev.toolcall.testing.ScriptedModel.call("d1", "shell", "{}")).thenText("done");
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(tools())
        .sharedStore(store.shared("round-trips-dir", Duration.ofHours(1))).build();
        dev.toolcall.conversation.AgentDirectory dir = dev.toolcall.conversation.AgentDirectory.builder(rt,
            store.conversations(), id -> dev.toolcall.conversation.Agent.builder(model, rt)).build()) {
      wire.take();
      dev.toolcall.conversation.TurnResult asked = dir.send("dir-rt", "go").toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      suspend = wire.take();
      dev.toolcall.conversation.Interrupt i = asked.interrupts().get(0);
      dev.toolcall.conversation.TurnResult done = dir.resumeWith("dir-rt", List.of(new Decision.ApproveOnce(
          i.requestId(), i.argumentsVersion()))).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(done.ending()).isEqualTo(dev.toolcall.conversation.TurnResult.Ending.ANSWERED);
      resume = wire.take();
    }
    if (Boolean.getBoolean("toolcall.roundtrips.print")) {
      System.out.println("suspend " + suspend.size() + "/" + commits(suspend) + " " + suspend);
      System.out.println("resume " + resume.size() + "/" + commits(resume) + " " + resume);
    }
    // take; the call stored with its question (pending, its arguments and permission_pending in one insert); the
    // write-back; the hand-over
    assertThat(suspend).as("a step that suspends on one approval")
        .containsExactly("+INSERT", "INSERT", "COMMIT", "+UPDATE", "+UPDATE");
    assertThat(commits(suspend)).isEqualTo(4);
    // take; the turn's call read by label (brought in as read: nothing written); approved, running, completed; the
    // write-back
    assertThat(resume).as("the step that resumes it").containsExactly("+INSERT", "SELECT",
        "UPDATE", "COMMIT", "UPDATE", "COMMIT", "UPDATE", "COMMIT", "+UPDATE");
    assertThat(commits(resume)).isEqualTo(5);
  }
}
