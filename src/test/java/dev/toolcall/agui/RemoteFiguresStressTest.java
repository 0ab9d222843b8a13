package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.Heap;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import dev.toolcall.wire.SessionTokens;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The figures of issue 29 (docs/performance.md, "Remote approvals"): 100 SSE clients of the approval page's stream on
 * one embedded server, 1,000 open requests (10 sessions of 100, 10 clients per session), and beside them 100
 * in-process subscribers (an executor each, as a UI adapter) measured the same way. Half the requests are decided
 * in process ({@code decide}), half by HTTP POST. Reported: frames (events) per second delivered, the lag from a
 * decision to the last client's frame showing the call past its request (p50, p99), from a decision to the tool
 * starting (p50, p99), and the heap per open stream. A measurement, not an assertion on time:
 * {@code mvn test -DexcludedGroups= -Dgroups=stress -Dtest=RemoteFiguresStressTest}.
 */
@Tag("stress")
class RemoteFiguresStressTest {
  static final int SESSIONS = 10;
  static final int PER_SESSION = 100;
  static final int CLIENTS_PER_SESSION = 10;
  static final Pattern CALL = Pattern.compile("\"callId\":\"([^\"]+)\".*?\"state\":\"([a-z_]+)\"");

  final Map<String, Long> decidedAt = new ConcurrentHashMap<>();
  final Map<String, Long> toolStartedAt = new ConcurrentHashMap<>();
  // callId -> arrival nanos of the first frame past permission_pending, per client
  final Map<String, List<Long>> sseSeen = new ConcurrentHashMap<>();
  final Map<String, List<Long>> inProcessSeen = new ConcurrentHashMap<>();
  final AtomicLong sseFrames = new AtomicLong();
  final AtomicLong inProcessEvents = new AtomicLong();

  @Test
  void figures() throws Exception {
    Tool slowToAsk = Tool.of(ToolDefinition.builder("shell").requiresApproval(true)
        .permissionTimeout(Duration.ofHours(1)).build(), inv -> {
          toolStartedAt.putIfAbsent(inv.callId(), System.nanoTime());
          return ToolResult.of("ok");
        });
    SessionTokens tokens = SessionTokens.create();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(slowToAsk).build();
        ApprovalServer server = ApprovalServer.builder(runtime).access(tokens).maxStreams(300).start()) {
      for (int s = 0; s < SESSIONS; s++) {
        List<CallRequest> calls = new ArrayList<>();
        for (int i = 0; i < PER_SESSION; i++) {
          calls.add(CallRequest.of("s" + s + "-c" + i, "shell", "{\"n\":" + i + "}"));
        }
        runtime.schedule("s" + s, calls);
        tokens.issue("s" + s);
      }
      while (runtime.permissions().pending().size() < SESSIONS * PER_SESSION) {
        runtime.permissions().awaitNext(Duration.ofMillis(50));
      }
      long heapBefore = Heap.usedAfterGc();

      HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(4)).build();
      ExecutorService readers = Executors.newCachedThreadPool();
      List<InputStream> streams = new ArrayList<>();
      CountDownLatch snapshots = new CountDownLatch(SESSIONS * CLIENTS_PER_SESSION);
      for (int s = 0; s < SESSIONS; s++) {
        for (int c = 0; c < CLIENTS_PER_SESSION; c++) {
          // A plain socket per client, so the heap measured is the server's (client and server share this JVM).
          java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port());
          socket.getOutputStream().write(("GET /api/sessions/s" + s + "/stream?token="
              + tokens.token("s" + s).orElseThrow() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          InputStream body = socket.getInputStream();
          streams.add(body);
          readers.execute(() -> read(body, snapshots));
        }
      }
      assertThat(snapshots.await(60, TimeUnit.SECONDS)).isTrue();
      long heapStreams = Heap.usedAfterGc();

      List<Subscription> subs = new ArrayList<>();
      List<ExecutorService> uiExecutors = new ArrayList<>();
      for (int i = 0; i < SESSIONS * CLIENTS_PER_SESSION; i++) {
        ExecutorService ui = Executors.newSingleThreadExecutor();
        uiExecutors.add(ui);
        subs.add(runtime.events().subscribe(new EventListener() {
          @Override
          public void onEvent(Event event) {
            if (event instanceof ToolCallEvent e) {
              inProcessEvents.incrementAndGet();
              if (e.snapshot().state() != ToolCallState.PERMISSION_PENDING
                  && e.snapshot().previousState() == ToolCallState.PERMISSION_PENDING) {
                inProcessSeen.computeIfAbsent(e.snapshot().callId(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(System.nanoTime());
              }
            }
          }
        }, ui));
      }

      List<PermissionRequest> pending = runtime.permissions().pending();
      long start = System.nanoTime();
      List<String> byPost = new ArrayList<>();
      for (int i = 0; i < pending.size(); i++) {
        PermissionRequest r = pending.get(i);
        if (i % 2 == 0) {
          decidedAt.put(r.callId(), System.nanoTime());
          runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
        } else {
          byPost.add(r.callId());
          decidedAt.put(r.callId(), System.nanoTime());
          HttpResponse<String> answer = http.send(HttpRequest.newBuilder(server.baseUri().resolve(
                  "/api/sessions/" + r.sessionId() + "/decisions"))
              .header("Content-Type", "application/json")
              .header("X-Toolcall-Token", tokens.token(r.sessionId()).orElseThrow())
              .POST(HttpRequest.BodyPublishers.ofString("{\"requestId\":\"" + r.requestId()
                  + "\",\"decision\":\"approve_once\"}")).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(answer.statusCode()).isEqualTo(200);
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while ((sseSeen.values().stream().filter(l -> l.size() >= CLIENTS_PER_SESSION).count() < pending.size()
          || inProcessSeen.values().stream().filter(l -> l.size() >= SESSIONS * CLIENTS_PER_SESSION).count()
              < pending.size()) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      long last = java.util.stream.Stream.concat(sseSeen.values().stream(), inProcessSeen.values().stream())
          .flatMap(List::stream).mapToLong(Long::longValue).max().orElse(System.nanoTime());
      long seconds = last - start;

      double[] sseLag = lags(sseSeen, CLIENTS_PER_SESSION);
      double[] inLag = lags(inProcessSeen, SESSIONS * CLIENTS_PER_SESSION);
      double[] startInProcess = startLags(pending.stream().map(PermissionRequest::callId)
          .filter(id -> !byPost.contains(id)).toList());
      double[] startPost = startLags(byPost);
      System.out.printf("JDK %s, %d cores%n", Runtime.version(), Runtime.getRuntime().availableProcessors());
      System.out.printf("open requests %d, SSE clients %d, in-process subscribers %d%n", pending.size(),
          streams.size(), subs.size());
      System.out.printf("decisions to last delivery %.2f s; SSE frames %d (%.0f/s); in-process events %d (%.0f/s)%n",
          seconds / 1e9, sseFrames.get(), sseFrames.get() / (seconds / 1e9), inProcessEvents.get(),
          inProcessEvents.get() / (seconds / 1e9));
      System.out.printf("decision -> last SSE client's frame: p50 %.2f ms, p99 %.2f ms (n=%d)%n",
          pct(sseLag, 50), pct(sseLag, 99), sseLag.length);
      System.out.printf("decision -> last in-process subscriber: p50 %.2f ms, p99 %.2f ms (n=%d)%n",
          pct(inLag, 50), pct(inLag, 99), inLag.length);
      System.out.printf("decide() -> tool start: p50 %.2f ms, p99 %.2f ms (n=%d)%n",
          pct(startInProcess, 50), pct(startInProcess, 99), startInProcess.length);
      System.out.printf("POST decision -> tool start: p50 %.2f ms, p99 %.2f ms (n=%d)%n",
          pct(startPost, 50), pct(startPost, 99), startPost.length);
      System.out.printf("heap per open stream: %.1f KiB (%d streams; used after GC %d -> %d bytes)%n",
          (heapStreams - heapBefore) / 1024.0 / streams.size(), streams.size(), heapBefore, heapStreams);

      assertThat(sseLag.length).isEqualTo(pending.size());
      assertThat(startPost.length).isEqualTo(byPost.size());
      subs.forEach(Subscription::close);
      uiExecutors.forEach(ExecutorService::shutdownNow);
      for (InputStream in : streams) {
        in.close();
      }
      readers.shutdownNow();
    }
  }

  void read(InputStream body, CountDownLatch snapshots) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8), 1024)) {
      String line;
      String event = null;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("data: ")) {
          if ("snapshot".equals(event)) {
            snapshots.countDown();
          } else if ("call".equals(event)) {
            long now = System.nanoTime();
            sseFrames.incrementAndGet();
            Matcher m = CALL.matcher(line);
            if (m.find() && !m.group(2).equals("permission_pending")) {
              // the first frame of this call past its request, for this client (a client sees each call once here)
              sseSeen.computeIfAbsent(m.group(1), k -> new java.util.concurrent.CopyOnWriteArrayList<>());
              List<Long> l = sseSeen.get(m.group(1));
              synchronized (l) {
                if (!seenBy(m.group(1))) {
                  l.add(now);
                }
              }
            }
          }
        } else if (line.isEmpty()) {
          event = null;
        }
      }
    } catch (Exception e) {
      // the stream was closed at the end
    }
  }

  // Each reader thread marks the calls it has counted.
  private final ThreadLocal<java.util.Set<String>> counted = ThreadLocal.withInitial(java.util.HashSet::new);

  private boolean seenBy(String callId) {
    return !counted.get().add(callId);
  }

  double[] lags(Map<String, List<Long>> seen, int clients) {
    List<Double> out = new ArrayList<>();
    for (Map.Entry<String, List<Long>> e : seen.entrySet()) {
      Long t0 = decidedAt.get(e.getKey());
      if (t0 != null && e.getValue().size() >= clients) {
        out.add((e.getValue().stream().mapToLong(Long::longValue).max().orElseThrow() - t0) / 1e6);
      }
    }
    return out.stream().mapToDouble(Double::doubleValue).sorted().toArray();
  }

  double[] startLags(List<String> ids) {
    return ids.stream().filter(toolStartedAt::containsKey)
        .mapToDouble(id -> (toolStartedAt.get(id) - decidedAt.get(id)) / 1e6).sorted().toArray();
  }

  static double pct(double[] sorted, int p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }

  static String fmt(double[] a) {
    return Arrays.toString(a);
  }
}
