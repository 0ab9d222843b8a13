package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.testing.TestPrograms;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The multi-instance harness of {@link ClusterTest} and {@link ClusterFiguresStressTest}: instance processes
 * ({@link ClusterInstance}) on one PostgreSQL database, or one instance on its in-memory stores; behind nginx
 * (round-robin, no sticky sessions) or reached directly; driven by the official AG-UI client under Node
 * ({@code src/test/node/cluster-client.cjs}). While the load runs it may kill instances with {@code kill -9} (each
 * when it holds a conversation mid-step, if it does within 3 s; restarted under a new name on the same port when the
 * setup asks, for more samples) and cut the database for 10 s. Then it checks the store and works out the figures.
 *
 * <p>Every process it starts is ended by {@link #close()}.
 */
final class ClusterHarness implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ENDED = "('completed', 'failed', 'cancelled', 'permission_denied')";
  private static final Duration PERMISSION_TIMEOUT = Duration.ofSeconds(3);

  /**
   * What to run: {@code instances} instance processes on PostgreSQL ({@code postgres}) or one on the in-memory stores;
   * behind nginx or not (then the client talks to the only instance); {@code kills} instances killed mid-load
   * ({@code restart}: each started again under a new name on its port); the database cut for 10 s ({@code outage});
   * {@code turns} conversations, {@code concurrency} at a time.
   */
  record Setup(String name, int instances, boolean nginx, boolean postgres, int kills, boolean restart,
      boolean outage, int turns, int concurrency) {
    Setup {
      if (!name.matches("[a-z0-9-]+")) {
        throw new IllegalArgumentException("name: lower-case letters, digits and '-', not '" + name + "'");
      }
      if (instances < 1 || (!postgres && instances != 1) || (!nginx && instances != 1)) {
        throw new IllegalArgumentException("instances: at least 1, and just 1 on the in-memory stores or without"
            + " nginx, not " + instances);
      }
      if (kills < 0 || (kills > 0 && (!postgres || instances < 2))) {
        throw new IllegalArgumentException("kills: 0, or more with two instances or more on PostgreSQL, not " + kills);
      }
      if (outage && !postgres) {
        throw new IllegalArgumentException("outage: only on PostgreSQL");
      }
      if (turns < 5 || concurrency < 1) {
        throw new IllegalArgumentException("turns: at least 5 (one of each scenario), concurrency at least 1, not "
            + turns + " and " + concurrency);
      }
    }

    static Setup of(String name, int instances) {
      return new Setup(name, instances, true, true, 0, false, false, 40, 6);
    }

    Setup direct() {
      return new Setup(name, instances, false, postgres, kills, restart, outage, turns, concurrency);
    }

    Setup inMemory() {
      return new Setup(name, instances, nginx, false, kills, restart, outage, turns, concurrency);
    }

    Setup kills(int n, boolean restartEach) {
      return new Setup(name, instances, nginx, postgres, n, restartEach, outage, turns, concurrency);
    }

    Setup withOutage() {
      return new Setup(name, instances, nginx, postgres, kills, restart, true, turns, concurrency);
    }

    Setup load(int turnCount, int atOnce) {
      return new Setup(name, instances, nginx, postgres, kills, restart, outage, turnCount, atOnce);
    }

    /** Of the five scenarios (approve, deny, edit, approve, timeout), three run the tool. */
    int runs() {
      return turns * 3 / 5;
    }
  }

  /**
   * One kill: the instance, the instant of the signal, the instant its process was gone, and what it held then
   * (conversations mid-step, calls not ended under its lease).
   */
  record Kill(String victim, Instant at, Instant gone, List<String> conversations, List<String> calls) {}

  /** What the client printed: its exit value, its output, and its figures line. */
  record ClientRun(int exitValue, String output, ObjectNode line, String loadBefore, String loadAfter) {
    String tail() {
      return output.length() > 4000 ? output.substring(output.length() - 4000) : output;
    }
  }

  private final Setup setup;
  private final Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final Process[] instances;
  private final String[] names;
  private final int[] ports;
  private final List<String> allNames = new ArrayList<>();
  private final List<Kill> kills = new ArrayList<>();
  private DataSource admin;
  private TcpProxy proxy;
  private String storeArg = "memory";
  private int nginxPort;

  private ClusterHarness(Setup setup) throws IOException {
    this.setup = setup;
    this.dir = Files.createTempDirectory("toolcall-cluster");
    this.instances = new Process[setup.instances()];
    this.names = new String[setup.instances()];
    this.ports = new int[setup.instances()];
  }

  /** Starts the database (if any), the instances and nginx (if any); returns once all serve. */
  static ClusterHarness start(Setup setup) throws Exception {
    ClusterHarness h = new ClusterHarness(setup);
    try {
      h.startAll();
    } catch (Exception | Error e) {
      h.close();
      throw e;
    }
    return h;
  }

  private void startAll() throws Exception {
    if (setup.postgres()) {
      String db = "toolcall_cluster_" + setup.name().replace('-', '_');
      admin = PgCluster.database(db);
      PostgresCallStore.create(admin).applySchema();
      try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE cluster_run (session_id text, call_id text, command text, owner text,"
            + " twice integer NOT NULL DEFAULT 0, PRIMARY KEY (session_id, call_id))");
        // every stored version of a call (and every change of its lease's holder), when, and by whose lease
        PgCluster.installAudit(s, true);
        // every take, write-back and release of a conversation, when, and by whom
        s.execute("CREATE TABLE conversation_audit (conversation_id text, owner text, revision bigint,"
            + " at timestamptz NOT NULL DEFAULT clock_timestamp())");
        s.execute("CREATE FUNCTION conversation_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO"
            + " conversation_audit VALUES (NEW.conversation_id, NEW.owner, NEW.revision); RETURN NEW; END $$");
        s.execute("CREATE TRIGGER conversation_audit AFTER INSERT OR UPDATE ON toolcall_conversation FOR EACH ROW"
            + " EXECUTE FUNCTION conversation_audit()");
      }
      PGSimpleDataSource pg = (PGSimpleDataSource) TwoRuntimesTest.second(db);
      proxy = new TcpProxy(pg.getPortNumbers()[0]);
      storeArg = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + db + "?user=" + pg.getUser();
    }
    for (int i = 0; i < instances.length; i++) {
      ports[i] = freePort();
      names[i] = "instance-" + i;
      instances[i] = instance(names[i], ports[i]);
    }
    for (int i = 0; i < instances.length; i++) {
      awaitReady(instances[i], names[i]);
    }
    if (setup.nginx()) {
      nginxPort = freePort();
      processes.add(nginx(nginxPort, ports));
    }
  }

  /** The AG-UI endpoint's base: nginx, or the only instance. */
  String base() {
    return "http://127.0.0.1:" + (setup.nginx() ? nginxPort : ports[0]);
  }

  /** The database (PostgreSQL setups only). */
  DataSource admin() {
    if (admin == null) {
      throw new IllegalStateException("setup " + setup.name() + " has no database");
    }
    return admin;
  }

  /** Runs the client to its end, killing instances and cutting the database on the way as the setup says. */
  ClientRun runClient() throws Exception {
    Path pause = dir.resolve("pause");
    ProcessBuilder node = new ProcessBuilder(TestPrograms.node().toString(),
        Path.of("src/test/node/cluster-client.cjs").toAbsolutePath().toString());
    node.environment().put("NODE_PATH", TestPrograms.aguiClientDir().resolve("node_modules").toString());
    node.environment().put("CLUSTER_URL", base() + "/agui");
    node.environment().put("CLUSTER_TOKEN", ClusterInstance.TOKEN);
    node.environment().put("CLUSTER_TURNS", Integer.toString(setup.turns()));
    node.environment().put("CLUSTER_CONCURRENCY", Integer.toString(setup.concurrency()));
    node.environment().put("CLUSTER_PAUSE_FILE", pause.toString());
    node.redirectErrorStream(true);
    String loadBefore = loadAverage();
    Process client = node.start();
    processes.add(client);
    StringBuilder out = new StringBuilder();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(client.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (out) {
            out.append(line).append('\n');
          }
        }
      } catch (IOException e) {
        // the process ended
      }
    });
    reader.start();

    int runs = setup.runs();
    for (int k = 0; k < setup.kills(); k++) {
      // the kills fall in the first half of the load: after 1/6 of the tools ran for one kill, spread for more
      awaitRows("SELECT count(*) FROM cluster_run",
          Math.max(2 + k, (long) runs * (2 * k + 1) / (4L * setup.kills() + 2)));
      int victim = (1 + k) % instances.length;
      kills.add(kill(victim));
      if (setup.restart()) {
        names[victim] = "instance-" + victim + "-r" + (k + 1);
        instances[victim] = instance(names[victim], ports[victim]);
        awaitReady(instances[victim], names[victim]);
      }
    }
    if (setup.outage()) {
      awaitRows("SELECT count(*) FROM cluster_run", Math.max(3, runs / 3));
      proxy.down();
      long downSince = System.nanoTime();
      while (System.nanoTime() - downSince < TimeUnit.SECONDS.toNanos(10)) {
        Thread.sleep(50); // a pause of the test's own, not an assertion on timing
      }
      proxy.up();
    }

    boolean finished = client.waitFor(240 + setup.turns(), TimeUnit.SECONDS);
    String loadAfter = loadAverage();
    if (!finished) {
      client.destroyForcibly();
    }
    reader.join(10_000);
    String output;
    synchronized (out) {
      output = out.toString();
    }
    Files.writeString(dir.resolve("client.out"), output);
    if (!finished) {
      String tail = output.length() > 3000 ? output.substring(output.length() - 3000) : output;
      throw new AssertionError("the client did not finish in " + (240 + setup.turns()) + " s (" + dir + "); its output: "
          + tail + (setup.postgres() ? "\ncalls not ended: " + rows("SELECT session_id || '/' || call_id || ' ' || state"
          + " || ' v' || version || ' lease ' || coalesce(lease_owner, '-') FROM toolcall_call WHERE state NOT IN "
          + ENDED) + "\nconversations held: " + rows("SELECT conversation_id || ' ' || owner || ' until '"
          + " || owner_until FROM toolcall_conversation WHERE owner IS NOT NULL") : ""));
    }
    ObjectNode line = null;
    for (String l : output.lines().toList()) {
      if (l.startsWith("{\"turns\"")) {
        line = (ObjectNode) JSON.readTree(l);
      }
    }
    return new ClientRun(client.exitValue(), output, line, loadBefore, loadAfter);
  }

  /**
   * Kills instance {@code i} with {@code kill -9}, as soon as it holds a conversation mid-step (or after 3 s if it
   * holds none by then), and reads what it held when it died: rows a dead process can no longer change.
   */
  private Kill kill(int i) throws Exception {
    String victim = names[i];
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (System.nanoTime() < until && count("SELECT count(*) FROM toolcall_conversation WHERE owner = '" + victim
        + "' AND owner_until > now()") == 0) {
      Thread.sleep(5);
    }
    Instant at = Instant.now();
    instances[i].destroyForcibly(); // SIGKILL
    assertThat(instances[i].waitFor(10, TimeUnit.SECONDS)).as(victim + " died").isTrue();
    Instant gone = Instant.now();
    List<String> conversations = new ArrayList<>();
    List<String> calls = new ArrayList<>();
    try (Connection c = admin.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement("SELECT conversation_id FROM toolcall_conversation"
          + " WHERE owner = ? AND owner_until > ?")) {
        ps.setString(1, victim);
        ps.setTimestamp(2, Timestamp.from(at));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            conversations.add(rs.getString(1));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT session_id, call_id FROM toolcall_call"
          + " WHERE lease_owner = ? AND state NOT IN " + ENDED)) {
        ps.setString(1, victim);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            calls.add(rs.getString(1) + "/" + rs.getString(2));
          }
        }
      }
    }
    return new Kill(victim, at, gone, conversations, calls);
  }

  /**
   * The store's checks, once the load is over: nothing left open 60 s after it (the deadlines of the last requests
   * included); no tool ran twice or after a denial or deadline; no conversation still held; every result the model was
   * told is the stored outcome of its call; at least 80 % of the conversations ended as their scenario says;
   * {@code others} conversations besides the client's; every call event an instance's listeners saw is of a version
   * that was stored. On the in-memory stores: no tool ran twice (from the instance's record of its runs).
   */
  void check(int others) throws Exception {
    if (!setup.postgres()) {
      Map<String, Integer> seen = new HashMap<>();
      for (String[] run : toolRuns()) {
        seen.merge(run[0] + " " + run[1], 1, Integer::sum);
      }
      assertThat(seen.values()).as("tools run twice").allMatch(n -> n == 1);
      assertThat(seen).as("tools run").hasSizeGreaterThanOrEqualTo(setup.runs() * 8 / 10);
      return;
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (count("SELECT count(*) FROM toolcall_call WHERE state NOT IN " + ENDED) > 0) {
      assertThat(System.nanoTime()).as("calls still open 60 s after the load: " + rows(
          "SELECT session_id || '/' || call_id || ' ' || state || ' v' || version || ' lease ' || coalesce(lease_owner,"
          + " '-') || ' deadline ' || coalesce(document #>> '{permission,deadline}', '-') FROM toolcall_call WHERE"
          + " state NOT IN " + ENDED)).isLessThan(until);
      Thread.sleep(200);
    }
    assertThat(count("SELECT count(*) FROM cluster_run WHERE twice > 0")).as("tools run twice").isZero();
    assertThat(count("SELECT count(*) FROM cluster_run r JOIN toolcall_call c USING (session_id, call_id)"
        + " WHERE c.state = 'permission_denied'")).as("tools run after a denial or deadline").isZero();
    assertThat(count("SELECT count(*) FROM toolcall_conversation WHERE owner IS NOT NULL"
        + " AND owner_until > now()")).as("conversations still held").isZero();

    // the model was told the truth: each result message of every conversation is the stored outcome of its call;
    // and most conversations (all but those a decision the outage or a kill cut) ended as their scenario says
    PostgresCallStore store = PostgresCallStore.create(admin);
    int conversations = 0;
    int asScenario = 0;
    List<String> untrue = new ArrayList<>();
    try (Connection c = admin.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT conversation_id, document::text FROM toolcall_conversation")) {
      while (rs.next()) {
        conversations++;
        String id = rs.getString(1);
        if (!id.startsWith("cluster-")) {
          continue; // not the client's
        }
        dev.toolcall.conversation.AgentSnapshot snap = dev.toolcall.conversation.AgentSnapshot.fromJson(rs.getString(2));
        List<dev.toolcall.conversation.Message> messages = snap.messages();
        for (dev.toolcall.conversation.Message m : messages) {
          if (m instanceof dev.toolcall.conversation.ToolResultMessage t) {
            List<dev.toolcall.CallRecord> calls = store.readByLabels(id, List.of(t.callId()));
            String truth = calls.isEmpty() || calls.get(0).outcome() == null ? "<no stored outcome>"
                : calls.get(0).outcome().messageForModel();
            if (!truth.equals(t.content())) {
              untrue.add(id + "/" + t.callId() + ": told '" + t.content() + "', stored '" + truth + "'");
            }
          }
        }
        int n = Integer.parseInt(id.substring("cluster-".length()));
        String answer = messages.get(messages.size() - 1) instanceof dev.toolcall.conversation.AssistantMessage a
            ? a.text() : "";
        String scenario = List.of("approve", "deny", "edit", "approve", "timeout").get(n % 5);
        boolean as = switch (scenario) {
          case "approve" -> answer.equals("done: [ran deploy t" + n + "]");
          case "edit" -> answer.equals("done: [ran deploy t" + n + "-edited]");
          case "deny" -> answer.contains("not t" + n);
          default -> answer.contains("in time");
        };
        if (as) {
          asScenario++;
        }
      }
    }
    assertThat(untrue).as("results the model was told that are not the stored outcomes").isEmpty();
    assertThat(conversations).isEqualTo(setup.turns() + others);
    assertThat(asScenario).as("conversations that ended as their scenario says, of " + setup.turns())
        .isGreaterThanOrEqualTo(setup.turns() * 8 / 10);

    Set<String> stored = new HashSet<>();
    try (Connection c = admin.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT session_id, call_id, version, state FROM audit")) {
      while (rs.next()) {
        stored.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getInt(3) + " " + rs.getString(4));
      }
    }
    List<String> unstored = new ArrayList<>();
    for (String name : allNames) {
      Path events = dir.resolve("events-" + name);
      if (Files.exists(events)) {
        for (String line : Files.readAllLines(events)) {
          if (!line.isBlank() && !stored.contains(line)) {
            unstored.add(name + ": " + line);
          }
        }
      }
    }
    assertThat(unstored).as("events of versions never stored").isEmpty();
    // every conversation and call a killed instance held went on elsewhere (a take or a version by another instance)
    for (Kill k : kills) {
      for (String id : k.conversations()) {
        assertThat(takeover(k, id, null)).as(id + ", held by " + k.victim() + ", went on elsewhere").isNotNull();
      }
      for (String call : k.calls()) {
        assertThat(takeover(k, call.substring(0, call.indexOf('/')), call.substring(call.indexOf('/') + 1)))
            .as(call + ", leased by " + k.victim() + ", went on elsewhere").isNotNull();
      }
    }
  }

  /**
   * The figures of a run: the client's line (turns per second, decision to result, recovery, ...) and, worked out
   * here, the decision's request to its tool's start (the decision on another instance than the one whose run
   * suspended the turn, or on the same), the database's round trips and commits (per conversation and per finished
   * run, the instances' background work included), each kill and how long after it each turn or call the killed
   * instance held went on elsewhere, the setup and the load average before and after.
   */
  ObjectNode figures(ClientRun run) throws Exception {
    ObjectNode f = JSON.createObjectNode();
    ObjectNode s = f.putObject("setup");
    s.put("name", setup.name());
    s.put("instances", setup.instances());
    s.put("nginx", setup.nginx());
    s.put("store", setup.postgres() ? "postgres" : "memory");
    s.put("kills", setup.kills());
    s.put("restart", setup.restart());
    s.put("outage", setup.outage());
    s.put("turns", setup.turns());
    s.put("concurrency", setup.concurrency());
    s.put("leaseMs", ClusterInstance.LEASE.toMillis());
    s.put("permissionTimeoutMs", PERMISSION_TIMEOUT.toMillis());
    s.put("cores", Runtime.getRuntime().availableProcessors());
    s.put("java", System.getProperty("java.version"));
    ObjectNode load = f.putObject("loadAverage");
    load.put("before", run.loadBefore());
    load.put("after", run.loadAfter());
    if (run.line() != null) {
      run.line().fields().forEachRemaining(e -> {
        if (!List.of("answers", "decisions").contains(e.getKey())) {
          f.set(e.getKey(), e.getValue());
        }
      });
    }

    // the decision's request to its tool's start, from the client's clock and the instance's (one machine's)
    Map<String, Long> toolStart = new HashMap<>();
    for (String[] r : toolRuns()) {
      toolStart.merge(r[0], Long.parseLong(r[2]), Math::min);
    }
    List<Double> cross = new ArrayList<>();
    List<Double> same = new ArrayList<>();
    if (run.line() != null && run.line().has("decisions")) {
      for (JsonNode d : run.line().get("decisions")) {
        Long started = toolStart.get(d.get("threadId").asText());
        if (started == null || d.get("postedAt").isNull() || d.get("suspendedOn").isNull()) {
          continue; // denied: no tool ran
        }
        double ms = started / 1000.0 - d.get("postedAt").asDouble();
        (d.get("suspendedOn").asText().equals(d.get("decidedOn").asText()) ? same : cross).add(ms);
      }
    }
    ObjectNode toStart = f.putObject("decisionToToolStartMs");
    toStart.set("crossInstance", percentiles(cross));
    toStart.set("sameInstance", percentiles(same));

    if (setup.postgres()) {
      long roundTrips = 0;
      long commits = 0;
      for (String name : allNames) {
        Path wire = dir.resolve("wire-" + name);
        if (Files.exists(wire)) {
          String[] w = Files.readString(wire).strip().split(" ");
          roundTrips += Long.parseLong(w[0]);
          commits += Long.parseLong(w[1]);
        }
      }
      ObjectNode db = f.putObject("database");
      db.put("roundTrips", roundTrips);
      db.put("commits", commits);
      db.put("roundTripsPerConversation", round(roundTrips / (double) setup.turns()));
      db.put("commitsPerConversation", round(commits / (double) setup.turns()));
      int finished = run.line() == null ? 0 : run.line().path("finishedRuns").asInt();
      if (finished > 0) {
        db.put("roundTripsPerFinishedRun", round(roundTrips / (double) finished));
        db.put("commitsPerFinishedRun", round(commits / (double) finished));
      }
      db.put("note", "counted at each instance's JDBC boundary (the store's statements and transaction ends; the"
          + " tool's own inserts not), background work included (lease renewals, deadline sweeps); a killed"
          + " instance's last half second is missing");
    }

    ArrayNode ks = f.putArray("kills");
    List<Double> takeovers = new ArrayList<>();
    for (Kill k : kills) {
      ObjectNode kn = ks.addObject();
      kn.put("victim", k.victim());
      kn.put("at", k.at().toString());
    kn.put("goneAfterMs", round(ChronoUnit.MICROS.between(k.at(), k.gone()) / 1000.0));
      ArrayNode held = kn.putArray("held");
      for (String id : k.conversations()) {
        addTakeover(held, takeovers, k, "conversation", id, id, null);
      }
      for (String call : k.calls()) {
        int slash = call.indexOf('/');
        addTakeover(held, takeovers, k, "call", call, call.substring(0, slash), call.substring(slash + 1));
      }
    }
    ObjectNode kt = percentiles(takeovers);
    kt.put("leaseMs", ClusterInstance.LEASE.toMillis());
    kt.put("note", "from the kill's instant to the first take, by another instance, of each conversation the killed"
        + " instance held mid-step, and to the first version stored after its death of each call not ended under its"
        + " lease (the store's clock_timestamp(); the client retries a failed run after 200-400 ms)");
    f.set("killToTakeoverMs", kt);
    return f;
  }

  private void addTakeover(ArrayNode held, List<Double> takeovers, Kill k, String kind, String label, String session,
      String call) throws Exception {
    ObjectNode h = held.addObject();
    h.put("kind", kind);
    h.put("id", label);
    Instant after = takeover(k, session, call);
    if (after == null) {
      h.putNull("ms");
    } else {
      double ms = ChronoUnit.MICROS.between(k.at(), after) / 1000.0;
      h.put("ms", round(ms));
      takeovers.add(ms);
    }
  }

  /**
   * When another instance first took the conversation (call null) after the kill, or first stored a version of the
   * call after the killed process was gone (a write of the killed instance's still in flight then would be the
   * database finishing a statement it had already received).
   */
  private Instant takeover(Kill k, String session, String call) throws Exception {
    String sql = call == null
        ? "SELECT min(at) FROM conversation_audit WHERE conversation_id = ? AND at > ? AND owner IS NOT NULL"
            + " AND owner <> ?"
        : "SELECT min(at) FROM audit WHERE session_id = ? AND call_id = ? AND at > ?";
    try (Connection c = admin.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, session);
      if (call == null) {
        ps.setTimestamp(2, Timestamp.from(k.at()));
        ps.setString(3, k.victim());
      } else {
        ps.setString(2, call);
        ps.setTimestamp(3, Timestamp.from(k.gone()));
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Timestamp t = rs.getTimestamp(1);
        return t == null ? null : t.toInstant();
      }
    }
  }

  /** Each start of the tool any instance recorded: session, call, epoch microseconds, owner. */
  private List<String[]> toolRuns() throws IOException {
    List<String[]> out = new ArrayList<>();
    for (String name : allNames) {
      Path runs = dir.resolve("runs-" + name);
      if (Files.exists(runs)) {
        for (String line : Files.readAllLines(runs)) {
          if (!line.isBlank()) {
            out.add(line.split(" "));
          }
        }
      }
    }
    return out;
  }

  private static ObjectNode percentiles(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    ObjectNode p = JSON.createObjectNode();
    p.put("n", sorted.size());
    if (sorted.isEmpty()) {
      p.putNull("p50");
      p.putNull("p99");
      p.putNull("max");
    } else {
      p.put("p50", round(sorted.get(sorted.size() / 2)));
      p.put("p99", round(sorted.get(Math.min(sorted.size() - 1, (int) (0.99 * sorted.size())))));
      p.put("max", round(sorted.get(sorted.size() - 1)));
    }
    return p;
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  static void write(ObjectNode figures, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(figures) + "\n");
  }

  /** The one-, five- and fifteen-minute load averages (Linux), or "unknown". */
  static String loadAverage() {
    try {
      String[] l = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return l[0] + " " + l[1] + " " + l[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private Process instance(String name, int port) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), ClusterInstance.class.getName(),
        Integer.toString(port), storeArg, name, dir.toString(), Long.toString(PERMISSION_TIMEOUT.toMillis()));
    pb.redirectErrorStream(true);
    pb.redirectOutput(dir.resolve(name + ".log").toFile());
    Process p = pb.start();
    processes.add(p);
    allNames.add(name);
    return p;
  }

  private void awaitReady(Process p, String name) throws Exception {
    Path log = dir.resolve(name + ".log");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(log) || !Files.readString(log).contains("READY ")) {
      assertThat(p.isAlive()).as(name + " died: " + (Files.exists(log) ? Files.readString(log) : "")).isTrue();
      assertThat(System.nanoTime()).as(name + " did not start").isLessThan(until);
      Thread.sleep(100);
    }
  }

  private Process nginx(int port, int[] upstreams) throws Exception {
    StringBuilder servers = new StringBuilder();
    for (int p : upstreams) {
      servers.append("    server 127.0.0.1:").append(p).append(" max_fails=1 fail_timeout=5s;\n");
    }
    Path conf = dir.resolve("nginx.conf");
    Files.writeString(conf, "master_process off;\ndaemon off;\npid " + dir.resolve("nginx.pid") + ";\n"
        + "error_log " + dir.resolve("nginx-error.log") + " warn;\nevents { worker_connections 256; }\n"
        + "http {\n  access_log " + dir.resolve("nginx-access.log") + ";\n"
        + "  client_body_temp_path " + dir + "/body;\n  proxy_temp_path " + dir + "/proxy;\n"
        + "  fastcgi_temp_path " + dir + "/fcgi;\n  uwsgi_temp_path " + dir + "/uwsgi;\n  scgi_temp_path " + dir
        + "/scgi;\n  upstream instances {\n" + servers + "  }\n"
        + "  server {\n    listen 127.0.0.1:" + port + ";\n    location / {\n      proxy_pass http://instances;\n"
        + "      proxy_http_version 1.1;\n      proxy_set_header Connection \"\";\n"
        + "      proxy_set_header Host $http_host;\n      proxy_buffering off;\n      proxy_read_timeout 120s;\n"
        + "      proxy_next_upstream error timeout non_idempotent;\n"
        + "      add_header X-Upstream $upstream_addr always;\n    }\n  }\n}\n");
    ProcessBuilder pb = new ProcessBuilder(TestPrograms.nginx().toString(), "-p", dir.toString(), "-c",
        conf.toString());
    pb.redirectErrorStream(true);
    pb.redirectOutput(dir.resolve("nginx.out").toFile());
    Process p = pb.start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try (Socket s = new Socket("127.0.0.1", port)) {
        return p;
      } catch (IOException e) {
        assertThat(p.isAlive()).as("nginx died: " + Files.readString(dir.resolve("nginx.out"))).isTrue();
        assertThat(System.nanoTime()).as("nginx did not start").isLessThan(until);
        Thread.sleep(50);
      }
    }
  }

  private void awaitRows(String sql, long atLeast) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (count(sql) < atLeast) {
      assertThat(System.nanoTime()).as("waiting for " + sql + " >= " + atLeast).isLessThan(until);
      Thread.sleep(100);
    }
  }

  private List<String> rows(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = admin.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  long count(String sql) throws Exception {
    try (Connection c = admin().getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    for (Process p : processes) {
      p.destroyForcibly();
    }
    for (Process p : processes) {
      p.waitFor(10, TimeUnit.SECONDS);
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Override
  public String toString() {
    return "ClusterHarness[" + setup + "]";
  }
}
