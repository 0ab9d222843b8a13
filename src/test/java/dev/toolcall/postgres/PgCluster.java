package dev.toolcall.postgres;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL server of the tests: the one {@code TOOLCALL_PG_URL} names (a JDBC URL), else a throwaway cluster
 * in a temporary folder, made with {@code initdb} and started with {@code pg_ctl} on a free loopback port (as the
 * {@code postgres} user when the tests run as root, since both refuse root), once per JVM and stopped when it exits.
 * Never a mock, and never a silent skip: without a URL and without PostgreSQL's programs the tests fail, saying what
 * to install ({@code .ci/run} installs Debian's {@code postgresql} package when they are missing).
 */
final class PgCluster {
  private static String url;

  private PgCluster() {}

  /** The JDBC URL of the server, starting the throwaway cluster on first use. */
  static synchronized String url() {
    if (url == null) {
      String given = System.getenv("TOOLCALL_PG_URL");
      url = given != null && !given.isBlank() ? given : start();
    }
    return url;
  }

  /** A data source on the server, in a database of its own (so that tests do not see each other's rows). */
  static DataSource database(String name) {
    PGSimpleDataSource admin = new PGSimpleDataSource();
    admin.setURL(url());
    try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name + " on " + url() + ": " + e.getMessage(), e);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url());
    ds.setDatabaseName(name);
    return ds;
  }

  private static String start() {
    Path bin = binaries();
    try {
      Path dir = Files.createTempDirectory("toolcall-pg");
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
      Path data = dir.resolve("data");
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      run(bin.resolve("initdb") + " -D " + data + " -U toolcall --auth=trust -E UTF8 --locale=C", dir);
      run(bin.resolve("pg_ctl") + " -D " + data + " -l " + dir.resolve("server.log") + " -w -t 60 -o \"-c"
          + " listen_addresses=127.0.0.1 -p " + port + " -k " + dir + " -c max_connections=200\" start", dir);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          run(bin.resolve("pg_ctl") + " -D " + data + " -m immediate -w stop", dir);
        } catch (RuntimeException e) {
          System.err.println("could not stop the test PostgreSQL: " + e.getMessage());
        }
        try (Stream<Path> all = Files.walk(dir)) {
          all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
          // a temporary folder: left for the OS
        }
      }, "toolcall-pg-stop"));
      return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=toolcall";
    } catch (IOException e) {
      throw new IllegalStateException("cannot start a throwaway PostgreSQL: " + e.getMessage(), e);
    }
  }

  /** The folder of initdb and pg_ctl ({@link dev.toolcall.testing.TestPrograms#postgresBin()}). */
  static Path binaries() {
    return dev.toolcall.testing.TestPrograms.postgresBin();
  }

  /** Runs {@code command} with sh, as the postgres user when this JVM runs as root; fails with its output. */
  static String run(String command, Path dir) {
    boolean root = "root".equals(System.getProperty("user.name"));
    List<String> argv = root ? List.of("su", "postgres", "-s", "/bin/sh", "-c", "cd " + dir + " && " + command)
        : List.of("/bin/sh", "-c", "cd " + dir + " && " + command);
    try {
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("'" + command + "' failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run '" + command + "': " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running '" + command + "'", e);
    }
  }

  /**
   * Creates the table {@code audit} and its trigger on {@code toolcall_call}: one row per version each write stores.
   * A write of version n over version m (or an insert of version n) stores every version above m up to n: a call's
   * changes that ride in its next write (its pending version in the insert of the version it starts or asks with)
   * are in that write's history. Each gets the state of the last step of the stored path at or before it.
   */
  static void installAudit(java.sql.Statement s) throws java.sql.SQLException {
    installAudit(s, false);
  }

  /**
   * {@link #installAudit(java.sql.Statement)}; {@code withLease} adds each row's lease holder and the instant it was
   * written ({@code lease_owner}, {@code at}), and a row for each change of the lease's holder alone.
   */
  static void installAudit(java.sql.Statement s, boolean withLease) throws java.sql.SQLException {
    s.execute("CREATE TABLE audit (session_id text, call_id text, version integer, state text"
        + (withLease ? ", lease_owner text, at timestamptz NOT NULL DEFAULT clock_timestamp())" : ")"));
    s.execute("CREATE FUNCTION audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit"
        + " (session_id, call_id, version, state" + (withLease ? ", lease_owner)" : ")")
        + " SELECT NEW.session_id, NEW.call_id, v, CASE WHEN v = NEW.version THEN NEW.state ELSE (SELECT st->>'state'"
        + " FROM jsonb_array_elements(NEW.document->'path') st WHERE (st->>'version')::int <= v"
        + " ORDER BY (st->>'version')::int DESC LIMIT 1) END" + (withLease ? ", NEW.lease_owner" : "")
        + " FROM generate_series(CASE WHEN TG_OP = 'INSERT' THEN 0 WHEN OLD.version = NEW.version THEN NEW.version"
        + " ELSE OLD.version + 1 END, NEW.version) v;"
        + " RETURN NEW; END $$");
    s.execute("CREATE TRIGGER audit AFTER INSERT OR UPDATE OF version" + (withLease ? ", lease_owner" : "")
        + " ON toolcall_call FOR EACH ROW EXECUTE FUNCTION audit()");
  }

}
