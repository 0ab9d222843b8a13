package dev.toolcall.postgres;

import dev.toolcall.ToolResult;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.wire.SessionAccess;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One instance of the multi-instance tests, as a process of its own: a runtime on the shared PostgreSQL store, an
 * {@link AgentDirectory} of {@link ClusterModel} agents, and the embedded {@link ApprovalServer} (page, page
 * decisions, AG-UI) on a loopback port. Its {@code shell} tool records each run in the table {@code cluster_run}
 * (call id as primary key, so a second run of one call fails the insert and is counted in {@code cluster_twice}); every
 * call event its listeners see is appended to a file as {@code session call version state}, for the test to check
 * against the store's audit of stored versions.
 *
 * <p>Arguments: port, JDBC URL, owner name, events file, permission timeout in milliseconds. Prints {@code READY} and
 * the port once it serves.
 */
final class ClusterInstance {
  /** The credential every session accepts in these tests. */
  static final String TOKEN = "cluster-token";

  private ClusterInstance() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    PGSimpleDataSource pg = new PGSimpleDataSource();
    pg.setURL(args[1]);
    pg.setConnectTimeout(2);
    pg.setSocketTimeout(10);
    DataSource db = Pool.of(pg, 8);
    String owner = args[2];
    Path events = Path.of(args[3]);
    Duration timeout = Duration.ofMillis(Long.parseLong(args[4]));
    PostgresCallStore store = PostgresCallStore.create(db);
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(timeout).build(), inv -> {
      String command = inv.arguments().asJson().path("command").asText();
      try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
          "INSERT INTO cluster_run (session_id, call_id, command, owner) VALUES (?, ?, ?, ?)"
              + " ON CONFLICT (session_id, call_id) DO UPDATE SET twice = cluster_run.twice + 1")) {
        ps.setString(1, inv.sessionId());
        ps.setString(2, inv.callId());
        ps.setString(3, command);
        ps.setString(4, owner);
        ps.executeUpdate();
      }
      return ToolResult.of("ran " + command);
    });
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell)
        .sharedStore(store.shared(owner, Duration.ofSeconds(3))).build();
    PrintStream log = new PrintStream(Files.newOutputStream(events, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND), true, StandardCharsets.UTF_8);
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
    AgentDirectory directory = AgentDirectory.builder(runtime, store.conversations(),
        id -> Agent.builder(new ClusterModel(), runtime)).owner(owner).lease(Duration.ofSeconds(3)).build();
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
    Thread logs = new Thread(() -> { // the library's WARN and ERROR records, into this process's log file
      long next = 0;
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
}
