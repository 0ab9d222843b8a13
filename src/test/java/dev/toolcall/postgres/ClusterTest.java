package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.testing.TestPrograms;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Three instance processes ({@link ClusterInstance}) on one PostgreSQL database, behind nginx (round-robin, no sticky
 * sessions), driven only through nginx by the official AG-UI client under Node ({@code src/test/node/cluster-client.cjs}):
 * conversations with approvals, denials, edits and deadlines whose runs land on whichever instance nginx picks. While
 * the load runs, one instance is killed with {@code kill -9} and, later, the database is unreachable for 10 seconds
 * (its connections cut and refused by a proxy between the instances and the server). Checks, from the store: every
 * conversation ends with the answer its scenario calls for (what the model was told is the truth); no tool ran twice,
 * or after a denial or a deadline; nothing is left open; every call event any instance's listeners saw is of a version
 * that was stored.
 */
class ClusterTest {
  private static final String DB = "toolcall_cluster";

  private final List<Process> processes = new ArrayList<>();
  private TcpProxy proxy;
  private Path dir;

  @AfterEach
  void stop() throws Exception {
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

  @Test
  void threeInstancesBehindNginxLoseNothingWhenOneIsKilledAndTheDatabaseStops() throws Exception {
    dir = Files.createTempDirectory("toolcall-cluster");
    DataSource admin = PgCluster.database(DB);
    PostgresCallStore.create(admin).applySchema();
    try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE cluster_run (session_id text, call_id text, command text, owner text,"
          + " twice integer NOT NULL DEFAULT 0, PRIMARY KEY (session_id, call_id))");
      PgCluster.installAudit(s);
    }
    PGSimpleDataSource pg = (PGSimpleDataSource) TwoRuntimesTest.second(DB);
    int pgPort = pg.getPortNumbers()[0];
    proxy = new TcpProxy(pgPort);
    String proxied = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + DB + "?user=" + pg.getUser();

    int[] ports = new int[3];
    for (int i = 0; i < 3; i++) {
      ports[i] = freePort();
      processes.add(instance(i, ports[i], proxied));
    }
    for (int i = 0; i < 3; i++) {
      awaitReady(processes.get(i), "instance-" + i);
    }
    int nginxPort = freePort();
    Process nginx = nginx(nginxPort, ports);
    processes.add(nginx);

    Path pause = dir.resolve("pause");
    ProcessBuilder node = new ProcessBuilder(TestPrograms.node().toString(),
        Path.of("src/test/node/cluster-client.cjs").toAbsolutePath().toString());
    node.environment().put("NODE_PATH", TestPrograms.aguiClientDir().resolve("node_modules").toString());
    node.environment().put("CLUSTER_URL", "http://127.0.0.1:" + nginxPort + "/agui");
    node.environment().put("CLUSTER_TOKEN", ClusterInstance.TOKEN);
    int turns = Integer.getInteger("toolcall.cluster.turns", 40);
    int runs = turns * 3 / 5; // approve, deny, edit, approve, timeout: three of five run the tool
    node.environment().put("CLUSTER_TURNS", Integer.toString(turns));
    node.environment().put("CLUSTER_CONCURRENCY", "6");
    node.environment().put("CLUSTER_PAUSE_FILE", pause.toString());
    node.redirectErrorStream(true);
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

    // mid-load: kill one instance; later cut the database for 10 s
    awaitRows(admin, "SELECT count(*) FROM cluster_run", Math.max(2, runs / 6));
    processes.get(1).destroyForcibly(); // SIGKILL
    awaitRows(admin, "SELECT count(*) FROM cluster_run", Math.max(3, runs / 3));
    proxy.down();
    long downSince = System.nanoTime();
    while (System.nanoTime() - downSince < TimeUnit.SECONDS.toNanos(10)) {
      Thread.onSpinWait();
      Thread.sleep(50); // a pause of the test's own, not an assertion on timing
    }
    proxy.up();

    assertThat(client.waitFor(240, TimeUnit.SECONDS)).as("the client finished").isTrue();
    reader.join(10_000);
    String output;
    synchronized (out) {
      output = out.toString();
    }
    String tail = output.length() > 4000 ? output.substring(output.length() - 4000) : output;
    assertThat(client.exitValue()).as(tail).isZero();
    assertThat(output).contains(" passed, 0 failed");
    // the figures of the run (turns per second, decision to result), for docs/performance.md
    output.lines().filter(l -> l.startsWith("{\"turns\"")).findFirst().ifPresent(l -> {
      try {
        Files.writeString(Path.of("target/cluster-figures.json"), l + "\n");
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });

    // a person on the approval page, through nginx: a turn that AG-UI suspended (on whichever instance) is listed by
    // the page served by whichever instance, and Approve makes it go on
    String page = "page-0";
    HttpClient http = HttpClient.newHttpClient();
    String run = "{\"threadId\":\"" + page + "\",\"runId\":\"r1\",\"messages\":[{\"id\":\"m1\",\"role\":\"user\","
        + "\"content\":\"deploy page\"}],\"tools\":[],\"context\":[],\"state\":{},\"forwardedProps\":{}}";
    HttpResponse<String> first = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nginxPort + "/agui"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + ClusterInstance.TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString(run)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(first.body()).as(first.body()).contains("\"type\":\"interrupt\"");
    String callId = first.body().replaceAll("(?s).*\"toolCallId\":\"([^\"]+)\".*", "$1");
    try (dev.toolcall.agui.Browser browser = dev.toolcall.agui.Browser.open()) {
      browser.go(URI.create("http://127.0.0.1:" + nginxPort + "/approvals/#session=" + page + "&token="
          + ClusterInstance.TOKEN));
      browser.click(callId, "approve_once");
      long pageUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (count(admin, "SELECT count(*) FROM toolcall_conversation WHERE conversation_id = '" + page + "'"
          + " AND document::text LIKE '%done: [ran deploy page]%' AND owner IS NULL") == 0) {
        assertThat(System.nanoTime()).as("the page's approval made the turn go on").isLessThan(pageUntil);
        Thread.sleep(100);
      }
    }

    // nothing left open once the load is over (the deadlines of the last requests included)
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (count(admin, "SELECT count(*) FROM toolcall_call WHERE state NOT IN"
        + " ('completed', 'failed', 'cancelled', 'permission_denied')") > 0) {
      assertThat(System.nanoTime()).as("calls still open 60 s after the load: " + rows(admin,
          "SELECT session_id || '/' || call_id || ' ' || state || ' v' || version || ' lease ' || coalesce(lease_owner,"
          + " '-') || ' deadline ' || coalesce(document #>> '{permission,deadline}', '-') FROM toolcall_call WHERE"
          + " state NOT IN ('completed', 'failed', 'cancelled', 'permission_denied')")).isLessThan(until);
      Thread.sleep(200);
    }
    assertThat(count(admin, "SELECT count(*) FROM cluster_run WHERE twice > 0")).as("tools run twice").isZero();
    assertThat(count(admin, "SELECT count(*) FROM cluster_run r JOIN toolcall_call c USING (session_id, call_id)"
        + " WHERE c.state = 'permission_denied'")).as("tools run after a denial or deadline").isZero();
    assertThat(count(admin, "SELECT count(*) FROM toolcall_conversation WHERE owner IS NOT NULL"
        + " AND owner_until > now()")).as("conversations still held").isZero();

    // the model was told the truth: each result message of every conversation is the stored outcome of its call;
    // and most conversations (all but those a decision the outage cut) ended as their scenario says
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
          continue; // the page's conversation, checked above
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
    assertThat(conversations).isEqualTo(turns + 1); // and the page's
    assertThat(asScenario).as("conversations that ended as their scenario says, of " + turns)
        .isGreaterThanOrEqualTo(turns * 8 / 10);

    Set<String> stored = new HashSet<>();
    try (Connection c = admin.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT session_id, call_id, version, state FROM audit")) {
      while (rs.next()) {
        stored.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getInt(3) + " " + rs.getString(4));
      }
    }
    List<String> unstored = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Path events = dir.resolve("events-" + i);
      if (Files.exists(events)) {
        for (String line : Files.readAllLines(events)) {
          if (!line.isBlank() && !stored.contains(line)) {
            unstored.add("instance-" + i + ": " + line);
          }
        }
      }
    }
    assertThat(unstored).as("events of versions never stored").isEmpty();
  }

  private Process instance(int i, int port, String jdbcUrl) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), ClusterInstance.class.getName(),
        Integer.toString(port), jdbcUrl, "instance-" + i, dir.resolve("events-" + i).toString(), "3000");
    pb.redirectErrorStream(true);
    pb.redirectOutput(dir.resolve("instance-" + i + ".log").toFile());
    return pb.start();
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
        + "      proxy_next_upstream error timeout non_idempotent;\n    }\n  }\n}\n");
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

  private static void awaitRows(DataSource db, String sql, long atLeast) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (count(db, sql) < atLeast) {
      assertThat(System.nanoTime()).as("waiting for " + sql + " >= " + atLeast).isLessThan(until);
      Thread.sleep(100);
    }
  }

  private static List<String> rows(DataSource db, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static long count(DataSource db, String sql) throws Exception {
    try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
