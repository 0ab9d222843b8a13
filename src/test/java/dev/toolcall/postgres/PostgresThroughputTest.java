package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallState;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, part 7, a figure: compare-and-set transitions per second on PostgreSQL over loopback with 1, 4 and 16
 * threads (each thread advancing rows of its own, one connection per thread), against pgbench's simple-update run
 * ({@code pgbench -N}) on the same server as the limit; and the delay from a write to its notification on another
 * connection's {@link ChangeFeed}. A stress harness: it measures and prints. Run:
 * {@code mvn test -DexcludedGroups= -Dgroups=stress -Dtest=PostgresThroughputTest}.
 */
@Tag("stress")
class PostgresThroughputTest {
  static final long SECONDS = 5;

  @Test
  void transitionsPerSecondAgainstPgbench() throws Exception {
    DataSource db = PgCluster.database("toolcall_throughput");
    PostgresCallStore.create(db).applySchema();
    for (int threads : new int[] {1, 4, 16}) {
      PostgresCallStore store = PostgresCallStore.create(perThread(db));
      for (int t = 0; t < threads; t++) {
        for (int r = 0; r < 10; r++) {
          store.insert(new StoredCall("t" + threads, "c" + t + "-" + r, "shell", ToolCallState.RUNNING, 0, "{}"));
        }
      }
      long done = run(store, threads);
      System.out.printf("store compareAndSet, %2d threads: %,d transitions/s%n", threads, done / SECONDS);
      assertThat(done).isPositive();
    }
    pgbench("toolcall_throughput");
  }

  /** {@code pgbench -N} (simple update) at 1, 4 and 16 clients on the cluster's database {@code database}. */
  private static void pgbench(String database) throws Exception {
    String url = PgCluster.url();
    Matcher m = Pattern.compile("//127.0.0.1:(\\d+)/").matcher(url);
    assertThat(m.find()).isTrue();
    String port = m.group(1);
    Path dir = Files.createTempDirectory("pgbench");
    Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    Path bin = PgCluster.binaries();
    PgCluster.run(bin.resolve("pgbench") + " -h 127.0.0.1 -p " + port + " -U toolcall -i -s 4 -q " + database, dir);
    for (int clients : new int[] {1, 4, 16}) {
      String out = PgCluster.run(bin.resolve("pgbench") + " -h 127.0.0.1 -p " + port + " -U toolcall -N -c "
          + clients + " -j " + Math.min(clients, 2) + " -T " + SECONDS + " " + database, dir);
      Matcher tps = Pattern.compile("tps = ([0-9.]+)").matcher(out);
      System.out.printf("pgbench -N (simple update), %2d clients: %s tps%n", clients,
          tps.find() ? tps.group(1) : "? (" + out + ")");
    }
  }

  /**
   * Issue 30: whole calls (a tool that needs no approval, run on the caller's thread, and on a shared store also on
   * the scheduler's default executor) through a runtime on {@code calls()} and on {@code shared(...)}, at 1, 4 and 16
   * threads, each with the round trips and commits per call
   * it sent (counted at the JDBC boundary, as {@link RoundTripsTest} does), then {@code pgbench -N} on the same server.
   */
  @Test
  void wholeCallsPerSecondAgainstPgbench() throws Exception {
    DataSource db = PgCluster.database("toolcall_calls_pgbench");
    PostgresCallStore.create(db).applySchema();
    dev.toolcall.tool.Tool echo = dev.toolcall.tool.Tool.of(dev.toolcall.tool.ToolDefinition.builder("echo")
        .requiresApproval(false).build(), inv -> dev.toolcall.ToolResult.of("ok"));
    for (String mode : List.of("calls()", "shared(...)", "shared(...), tools on the default executor")) {
      boolean shared = mode.startsWith("shared");
      for (int threads : new int[] {1, 4, 16}) {
        RoundTripsTest.Wire wire = new RoundTripsTest.Wire();
        PostgresCallStore store = PostgresCallStore.create(wire.over(perThread(db)));
        dev.toolcall.runtime.ToolCallRuntime.Builder b = dev.toolcall.runtime.ToolCallRuntime.builder().tools(echo);
        if (!mode.contains("default")) {
          b.scheduler(sc -> sc.executor(Runnable::run));
        }
        if (shared) {
          b.sharedStore(store.shared("bench-" + mode.replaceAll("[^a-z]", "") + threads, Duration.ofMinutes(5)));
        } else {
          b.callStore(store.calls());
        }
        try (dev.toolcall.runtime.ToolCallRuntime runtime = b.build()) {
          java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();
          String session = mode.replaceAll("[^a-z]", "") + threads;
          wire.take();
          long total = window(threads, (t, start, stop) -> {
            start.await();
            long n = 0;
            while (!stop.get()) {
              runtime.schedule(session, List.of(dev.toolcall.execution.CallRequest.of("c" + ids.incrementAndGet(),
                  "echo", "{}"))).join();
              n++;
            }
            return n;
          });
          List<String> sent = wire.take();
          long selects = sent.stream().filter("SELECT"::equals).count();
          System.out.printf("runtime on %s, %2d threads: %,d calls/s; per call %.3f round trips (%.3f reads),"
              + " %.3f commits%n", mode, threads, total / SECONDS,
              sent.size() / (double) total, selects / (double) total, RoundTripsTest.commits(sent) / (double) total);
          assertThat(total).isPositive();
        }
      }
    }
    pgbench("toolcall_calls_pgbench");
  }

  /**
   * The delay from a write on one connection to its notification on another's {@link ChangeFeed}: 500 writes one at
   * a time, each timed from before the write and from the write's return; p50 and p99.
   */
  @SuppressWarnings("try") // the resource is held by the try, not used in it
  @Test
  void crossRuntimeNotificationDelay() throws Exception {
    DataSource db = PgCluster.database("toolcall_delay");
    PostgresCallStore writer = PostgresCallStore.create(perThread(db));
    writer.applySchema();
    java.util.concurrent.BlockingQueue<Long> heard = new java.util.concurrent.LinkedBlockingQueue<>();
    try (ChangeFeed feed = ChangeFeed.start(PostgresCallStoreTest.named(db, "delay-feed"),
        c -> heard.add(System.nanoTime()), Duration.ofMillis(500))) {
      ChangeFeedTest.awaitListening(db, "delay-feed");
      StoredCall c = new StoredCall("s", "c", "shell", ToolCallState.RUNNING, 0, "{}");
      writer.insert(c);
      assertThat(heard.poll(20, TimeUnit.SECONDS)).as("the feed heard the insert").isNotNull();
      int n = 500;
      long[] fromStart = new long[n];
      long[] fromReturn = new long[n];
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        c = writer.compareAndSet(c, c.next(ToolCallState.RUNNING, "{\"n\":" + (i + 1) + "}")).current();
        long t1 = System.nanoTime();
        Long at = heard.poll(20, TimeUnit.SECONDS);
        assertThat(at).isNotNull();
        fromStart[i] = at - t0;
        fromReturn[i] = Math.max(0, at - t1);
      }
      java.util.Arrays.sort(fromStart);
      java.util.Arrays.sort(fromReturn);
      System.out.printf("notification delay over %d writes: from before the write p50 %.0f us, p99 %.0f us;"
          + " from the write's return p50 %.0f us, p99 %.0f us%n", n, fromStart[n / 2] / 1e3,
          fromStart[n * 99 / 100] / 1e3, fromReturn[n / 2] / 1e3, fromReturn[n * 99 / 100] / 1e3);
    }
  }

  /**
   * The delay across two runtimes, through the runtimes: a request A opened is decided on B (which loads the call
   * from the store, decides through it and returns), and A's listener sees the call leave permission_pending (A
   * adopts the version its change feed tells of). 200 calls one at a time; p50 and p99 of B's decide and of the time
   * from its return to A's event.
   */
  @Test
  void decisionOnAnotherRuntimeReachesTheAsker() throws Exception {
    DataSource raw = PgCluster.database("toolcall_two_delay");
    PostgresCallStore.create(raw).applySchema();
    dev.toolcall.tool.Tool shell = dev.toolcall.tool.Tool.of(dev.toolcall.tool.ToolDefinition.builder("shell")
        .permissionTimeout(Duration.ofHours(1)).build(), inv -> dev.toolcall.ToolResult.of("ok"));
    java.util.concurrent.BlockingQueue<Long> left = new java.util.concurrent.LinkedBlockingQueue<>();
    try (dev.toolcall.runtime.ToolCallRuntime a = dev.toolcall.runtime.ToolCallRuntime.builder().tools(shell)
            .sharedStore(PostgresCallStore.create(Pool.of(raw, 8)).shared("a", Duration.ofSeconds(30))).build();
         dev.toolcall.runtime.ToolCallRuntime b = dev.toolcall.runtime.ToolCallRuntime.builder().tools(shell)
            .sharedStore(PostgresCallStore.create(Pool.of(raw, 8)).shared("b", Duration.ofSeconds(30))).build()) {
      a.events().subscribe(new dev.toolcall.event.EventListener() {
        @Override
        public void onStateChanged(dev.toolcall.event.ToolCallEvent.StateChanged e) {
          if (e.snapshot().state() == ToolCallState.PERMISSION_APPROVED) {
            left.add(System.nanoTime());
          }
        }
      });
      int n = 200;
      long[] decide = new long[n];
      long[] reach = new long[n];
      for (int i = 0; i < n; i++) {
        dev.toolcall.execution.Batch batch = a.schedule("s", List.of(dev.toolcall.execution.CallRequest.of("c" + i,
            "shell", "{}")));
        dev.toolcall.permission.PermissionRequest r = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
        long t0 = System.nanoTime();
        assertThat(b.permissions().decide(r.requestId(), dev.toolcall.permission.Decision.approveOnce(r)))
            .isInstanceOf(dev.toolcall.permission.DecisionResult.Won.class);
        long t1 = System.nanoTime();
        Long at = left.poll(20, TimeUnit.SECONDS);
        assertThat(at).as("A heard the approval").isNotNull();
        decide[i] = t1 - t0;
        reach[i] = Math.max(0, at - t1);
        batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
      }
      java.util.Arrays.sort(decide);
      java.util.Arrays.sort(reach);
      System.out.printf("decision on B for A's request, %d calls: B's decide p50 %.2f ms, p99 %.2f ms; from its"
          + " return to A's event p50 %.2f ms, p99 %.2f ms%n", n, decide[n / 2] / 1e6, decide[n * 99 / 100] / 1e6,
          reach[n / 2] / 1e6, reach[n * 99 / 100] / 1e6);
    }
  }

  /**
   * Whole calls through a runtime whose calls are stored in PostgreSQL (a tool that needs no approval and prints
   * nothing, the scheduler on the caller's thread: three writes per call, the insert of the created call and the
   * updates to running and to completed), against the same runtime without a store, one thread then four, five
   * seconds each.
   */
  @Test
  void wholeCallsPerSecondWithAndWithoutTheStore() throws Exception {
    DataSource db = PgCluster.database("toolcall_runtime_throughput");
    PostgresCallStore store = PostgresCallStore.create(perThread(db));
    store.applySchema();
    dev.toolcall.tool.Tool echo = dev.toolcall.tool.Tool.of(dev.toolcall.tool.ToolDefinition.builder("echo")
        .requiresApproval(false).build(), inv -> dev.toolcall.ToolResult.of("ok"));
    for (boolean stored : new boolean[] {false, true}) {
      dev.toolcall.runtime.ToolCallRuntime.Builder b = dev.toolcall.runtime.ToolCallRuntime.builder().tools(echo)
          .scheduler(sc -> sc.executor(Runnable::run));
      if (stored) {
        b.callStore(store.calls());
      }
      try (dev.toolcall.runtime.ToolCallRuntime runtime = b.build()) {
        for (int threads : new int[] {1, 4}) {
          java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();
          String session = "s" + stored + threads;
          long total = window(threads, (t, start, stop) -> {
            start.await();
            long n = 0;
            while (!stop.get()) {
              runtime.schedule(session, List.of(dev.toolcall.execution.CallRequest.of("c" + ids.incrementAndGet(),
                  "echo", "{}"))).join();
              n++;
            }
            return n;
          });
          System.out.printf("runtime %s store, %d threads: %,d calls/s%n", stored ? "with the PostgreSQL" : "without a",
              threads, total / SECONDS);
          assertThat(total).isPositive();
        }
      }
    }
  }

  private static long run(PostgresCallStore store, int threads) throws Exception {
    return window(threads, (me, start, stop) -> {
      List<StoredCall> mine = new ArrayList<>();
      for (int r = 0; r < 10; r++) {
        mine.add(store.load("t" + threads, "c" + me + "-" + r).orElseThrow());
      }
      start.await();
      long n = 0;
      for (int i = 0; !stop.get(); i = (i + 1) % mine.size()) {
        StoredCall cur = mine.get(i);
        PostgresCallStore.CasResult r = store.compareAndSet(cur, cur.next(ToolCallState.RUNNING,
            "{\"n\":" + (cur.version() + 1) + "}"));
        mine.set(i, r.current());
        if (r.won()) {
          n++;
        }
      }
      return n;
    });
  }

  /** One worker of a measuring window: sets up, awaits {@code start}, counts what it did until {@code stop}. */
  @FunctionalInterface
  interface Worker {
    long work(int index, CountDownLatch start, AtomicBoolean stop) throws Exception;
  }

  /** Runs {@code threads} workers for {@link #SECONDS} after one start latch; returns their summed counts. */
  private static long window(int threads, Worker worker) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Long>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        fs.add(pool.submit(() -> worker.work(me, start, stop)));
      }
      start.countDown();
      TimeUnit.SECONDS.sleep(SECONDS); // the measuring window of a throughput harness, not a wait for a race
      stop.set(true);
      long total = 0;
      for (Future<Long> f : fs) {
        total += f.get(60, TimeUnit.SECONDS);
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }

  /** {@code ds} with one open connection per thread (closing it does nothing): what a pool gives a busy thread. */
  static DataSource perThread(DataSource ds) {
    ThreadLocal<Connection> mine = new ThreadLocal<>();
    return PostgresCallStoreTest.proxy(DataSource.class, (p, m, args) -> {
      if (!m.getName().equals("getConnection")) {
        return PostgresCallStoreTest.invoke(ds, m, args);
      }
      Connection c = mine.get();
      if (c == null) {
        c = ds.getConnection();
        mine.set(c);
      }
      Connection real = c;
      return Proxy.newProxyInstance(PostgresThroughputTest.class.getClassLoader(), new Class<?>[] {Connection.class},
          (cp, cm, cargs) -> cm.getName().equals("close") ? null : PostgresCallStoreTest.invoke(real, cm, cargs));
    });
  }
}
