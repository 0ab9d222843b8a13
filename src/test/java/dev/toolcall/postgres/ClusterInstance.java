package dev.toolcall.postgres;

import dev.toolcall.ToolResult;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.wire.SessionAccess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One instance of the multi-instance tests, as a process of its own: a runtime on the shared PostgreSQL store (or, with
 * {@code memory} for the store, on its own in-memory stores: today's single-process path), an {@link AgentDirectory}
 * of {@link ClusterModel} agents, and the embedded {@link ApprovalServer} (page, page decisions, AG-UI) on a loopback
 * port. Files it writes in its folder, each named after the instance ({@code <kind>-<owner>}):
 * <ul>
 *   <li>{@code events}: every call event its listeners see, as {@code session call version state}, for the test to
 *       check against the store's audit of stored versions;</li>
 *   <li>{@code runs}: each start of its {@code shell} tool, as {@code session call epoch-microseconds owner} (the
 *       decision-to-tool-start figure); on PostgreSQL the tool also records the run in the table {@code cluster_run}
 *       (call id as primary key, so a second run of one call is counted in its column {@code twice});</li>
 *   <li>{@code wire}: on PostgreSQL, the statements and transaction ends the store sent so far and how many were
 *       commits ({@code round-trips commits}, rewritten every half second; {@link RoundTripsTest.Wire} counts them at
 *       the JDBC boundary; the tool's own inserts are not counted).</li>
 * </ul>
 *
 * <p>Arguments: port, JDBC URL or {@code memory}, owner name, folder, permission timeout in milliseconds. Prints
 * {@code READY} and the port once it serves.
 */
final class ClusterInstance {
  /** The credential every session accepts in these tests. */
  static final String TOKEN = "cluster-token";
  /** How long an instance holds a conversation for a step and a running call, unless it renews: what bounds a takeover. */
  static final Duration LEASE = Duration.ofSeconds(3);

  private ClusterInstance() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    boolean memory = args[1].equals("memory");
    String owner = args[2];
    Path dir = Path.of(args[3]);
    Duration timeout = Duration.ofMillis(Long.parseLong(args[4]));
    DataSource db = null;
    RoundTripsTest.Wire wire = new RoundTripsTest.Wire();
    PostgresCallStore store = null;
    if (!memory) {
      PGSimpleDataSource pg = new PGSimpleDataSource();
      pg.setURL(args[1]);
      pg.setConnectTimeout(2);
      pg.setSocketTimeout(10);
      db = Pool.of(pg, 8);
      store = PostgresCallStore.create(wire.over(db));
    }
    PrintStream runs = append(dir.resolve("runs-" + owner));
    DataSource toolDb = db;
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(timeout).build(), inv -> {
      Instant started = Instant.now();
      String command = inv.arguments().asJson().path("command").asText();
      synchronized (runs) {
        runs.println(inv.sessionId() + " " + inv.callId() + " " + ChronoUnit.MICROS.between(Instant.EPOCH, started)
            + " " + owner);
      }
      if (toolDb != null) {
        try (Connection c = toolDb.getConnection(); PreparedStatement ps = c.prepareStatement(
            "INSERT INTO cluster_run (session_id, call_id, command, owner) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (session_id, call_id) DO UPDATE SET twice = cluster_run.twice + 1")) {
          ps.setString(1, inv.sessionId());
          ps.setString(2, inv.callId());
          ps.setString(3, command);
          ps.setString(4, owner);
          ps.executeUpdate();
        }
      }
      return ToolResult.of("ran " + command);
    });
    ToolCallRuntime.Builder rt = ToolCallRuntime.builder().tools(shell);
    ToolCallRuntime runtime = memory ? rt.build() : rt.sharedStore(store.shared(owner, LEASE)).build();
    PrintStream log = append(dir.resolve("events-" + owner));
    runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(dev.toolcall.event.Event event) {
        if (event instanceof ToolCallEvent e) {
          synchronized (log) {
            log.println(e.snapshot().identity().sessionId() + " " + e.snapshot().callId() + " "
                + e.snapshot().version() + " " + e.snapshot().state().wireName());
          }
        }
      }
    });
    AgentDirectory directory = AgentDirectory.builder(runtime,
        memory ? ConversationStore.inMemory() : store.conversations(),
        id -> Agent.builder(new ClusterModel(), runtime)).owner(owner).lease(LEASE).build();
    SessionAccess access = new SessionAccess() {
      @Override
      public boolean mayRead(String sessionId, String credential) {
        return TOKEN.equals(credential);
      }

      @Override
      public boolean mayDecide(String sessionId, String credential) {
        return TOKEN.equals(credential);
      }
    };
    ApprovalServer server = ApprovalServer.builder(runtime).directory(directory).access(access).port(port).start();
    System.out.println("READY " + server.port());
    System.out.flush();
    Path wireFile = dir.resolve("wire-" + owner);
    Thread logs = new Thread(() -> { // the library's WARN and ERROR records into this process's log; the wire counts
      long next = 0;
      long roundTrips = 0;
      long commits = 0;
      while (true) {
        for (dev.toolcall.testing.Logs.Entry e : dev.toolcall.testing.Logs.all()) {
          if (e.seq() >= next) {
            System.out.println(e.line());
            if (e.error() != null) {
              e.error().printStackTrace(System.out);
            }
            next = e.seq() + 1;
          }
        }
        System.out.flush();
        if (!memory) {
          List<String> sent = wire.take();
          roundTrips += sent.size();
          commits += RoundTripsTest.commits(sent);
          try {
            Path tmp = dir.resolve("wire-" + owner + ".tmp");
            Files.writeString(tmp, roundTrips + " " + commits + "\n");
            Files.move(tmp, wireFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
          } catch (IOException x) {
            System.out.println("cannot write " + wireFile + ": " + x);
          }
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException x) {
          return;
        }
      }
    }, "cluster-logs");
    logs.setDaemon(true);
    logs.start();
    Thread.currentThread().join(); // until killed
  }

  private static PrintStream append(Path file) throws IOException {
    return new PrintStream(Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND), true,
        StandardCharsets.UTF_8);
  }
}
