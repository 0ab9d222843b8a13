package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.CallRecord;
import dev.toolcall.SharedCallStore;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolResult;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.wire.SessionTokens;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The approval page's live stream on instance B follows what instance A does in the same session, without
 * reconnecting: two runtimes on one PostgreSQL ({@link PgCluster}), each with its own directory; one page stream open
 * on B's server from before anything happens.
 *
 * <ol>
 *   <li>a turn that suspends on A: B's page gets the open request (with the model's text and working buttons: the
 *       decision it posts to B is accepted, and the turn goes on on B, to its answer);</li>
 *   <li>a second turn that suspends on A and is approved and resumed on A: B's page gets the request, then the call
 *       approved, run (on A) and completed, and the conversation idle, all from the store's change feed;</li>
 *   <li>a turn of another session driven on A meanwhile costs B's page nothing: B's store reads none of its calls.</li>
 * </ol>
 * Throughout: one snapshot (no reconnect), a call's frames never go back in version, no call frame is sent twice and
 * no turn frame twice in a row.
 */
class PageFeedTwoInstancesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DB = "toolcall_page_feed";

  @Test
  void aPageOnInstanceBFollowsTurnsDrivenOnInstanceA() throws Exception {
    PostgresCallStore.create(PgCluster.database(DB)).applySchema();
    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    List<String> ranOn = new CopyOnWriteArrayList<>();
    CountingStore countedB = new CountingStore(storeB.shared("b", Duration.ofSeconds(3)));
    byte[] key = new byte[32];
    java.util.Arrays.fill(key, (byte) 9);
    SessionTokens tokens = SessionTokens.signed(key);
    String token = tokens.issue("feed-1");
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell("a", ranOn))
            .sharedStore(storeA.shared("a", Duration.ofSeconds(3))).build();
        ToolCallRuntime b = ToolCallRuntime.builder().tools(shell("b", ranOn)).sharedStore(countedB).build();
        AgentDirectory dirA = AgentDirectory.builder(a, storeA.conversations(),
            id -> Agent.builder(new ClusterModel(), a)).build();
        AgentDirectory dirB = AgentDirectory.builder(b, storeB.conversations(),
            id -> Agent.builder(new ClusterModel(), b)).build();
        ApprovalServer server = ApprovalServer.builder(b).directory(dirB).access(tokens).start();
        Sse page = Sse.open(server.baseUri().resolve("/api/sessions/feed-1/stream?token=" + token))) {
      JsonNode snapshot = page.next(f -> f.event().equals("snapshot")).data();
      assertThat(snapshot.path("calls")).isEmpty();

      // 1. A turn suspends on A; the page on B learns of its request without reconnecting.
      TurnResult asked = dirA.send("feed-1", "deploy web").toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(asked.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      Interrupt first = asked.interrupts().get(0);
      JsonNode request = page.next(f -> f.isCall(first.callId()) && f.data().has("request")
          && f.data().path("assistantText").asText().equals("Deploying, with your approval.")).data();
      assertThat(request.path("state").asText()).isEqualTo("permission_pending");
      assertThat(request.path("request").path("requestId").asText()).isEqualTo(first.requestId());
      assertThat(request.path("request").path("deadline").asText()).isEqualTo(first.deadline().toString());
      assertThat(request.path("toolName").asText()).isEqualTo("shell");
      assertThat(request.path("countdown").path("deadline").asText()).isEqualTo(first.deadline().toString());
      page.next(f -> f.event().equals("turn") && f.data().path("state").asText().equals("awaiting_tool_approval")
          && f.data().path("active").asBoolean());

      // The page's Approve on B: the decision is taken, the turn goes on (on B), the page sees it end.
      HttpResponse<String> won = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              server.baseUri().resolve("/api/sessions/feed-1/decisions"))
          .header("Content-Type", "application/json").header("X-Toolcall-Token", token)
          .POST(HttpRequest.BodyPublishers.ofString("{\"requestId\":\"" + first.requestId()
              + "\",\"decision\":\"approve_once\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(won.statusCode()).as(won.body()).isEqualTo(200);
      JsonNode done = page.next(f -> f.isCall(first.callId()) && f.data().path("state").asText().equals("completed"))
          .data();
      assertThat(done.path("result").asText()).isEqualTo("ran deploy web on b");
      page.next(f -> f.event().equals("turn") && f.data().path("state").asText().equals("idle")
          && !f.data().path("active").asBoolean());

      // 3 (first half). A turn of another session on A, which no page on B watches.
      TurnResult other = dirA.send("other", "deploy db").toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(other.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      Interrupt o = other.interrupts().get(0);
      assertThat(dirA.resumeWith("other", List.of(new Decision.ApproveOnce(o.requestId(), o.argumentsVersion())))
          .toCompletableFuture().get(20, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ANSWERED);

      // 2. A second turn suspends on A and is approved and resumed on A: the page on B sees it all from the store.
      TurnResult again = dirA.send("feed-1", "deploy api").toCompletableFuture().get(20, TimeUnit.SECONDS);
      Interrupt second = again.interrupts().get(0);
      page.next(f -> f.isCall(second.callId()) && f.data().path("request").path("requestId").asText()
          .equals(second.requestId()));
      // The change feed tells changes in commit order and the page reads them in order: "other"'s were told first.
      assertThat(countedB.reads("other")).as("reads of a session no page watches").isZero();
      TurnResult resumed = dirA.resumeWith("feed-1", List.of(new Decision.ApproveOnce(second.requestId(),
          second.argumentsVersion()))).toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(resumed.text()).isEqualTo("done: [ran deploy api on a]");
      JsonNode ranOnA = page.next(f -> f.isCall(second.callId()) && f.data().path("state").asText()
          .equals("completed")).data();
      assertThat(ranOnA.path("result").asText()).isEqualTo("ran deploy api on a");
      assertThat(ranOnA.has("request")).isFalse();
      page.next(f -> f.event().equals("turn") && f.data().path("state").asText().equals("idle")
          && !f.data().path("active").asBoolean() && f.data().path("turn").asInt() == 2);
      assertThat(ranOn).containsExactly("b", "a", "a");

      // Throughout: one stream, versions forward only, nothing sent twice.
      List<Sse.Frame> frames = page.seen();
      assertThat(frames.stream().filter(f -> f.event().equals("snapshot"))).hasSize(1);
      Map<String, Integer> versions = new HashMap<>();
      Set<String> texts = new HashSet<>();
      String lastTurn = null;
      List<String> secondStates = new ArrayList<>();
      for (Sse.Frame f : frames) {
        ObjectNode d = f.data().deepCopy();
        d.remove("serverTime");
        d.remove("elapsedMillis"); // what only the clock changes
        if (d.get("countdown") instanceof ObjectNode c) {
          c.remove("remainingMillis");
        }
        if (f.event().equals("turn")) { // a conversation may come back to a state: never twice in a row
          assertThat(d.toString()).as("turn frame sent twice").isNotEqualTo(lastTurn);
          lastTurn = d.toString();
        }
        if (f.event().equals("call")) {
          assertThat(texts.add(d.toString())).as("call frame sent twice: %s", d).isTrue();
          int v = d.path("version").asInt();
          Integer was = versions.put(d.path("callId").asText(), v);
          assertThat(was == null || was <= v).as("version order of %s", d).isTrue();
          if (f.isCall(second.callId())) {
            secondStates.add(d.path("state").asText());
          }
        }
      }
      assertThat(secondStates).contains("permission_pending");
      assertThat(secondStates.get(secondStates.size() - 1)).isEqualTo("completed");
      assertThat(secondStates).isSortedAccordingTo((x, y) -> Integer.compare(RANK.indexOf(x), RANK.indexOf(y)));
    }
  }

  /**
   * Without directories too: a page on B's server (no directory) shows a call A schedules and holds, as it asks, and
   * after the decision posted to B, as it completes; one snapshot, the call run once.
   */
  @Test
  void aPageOnInstanceBFollowsCallsInstanceAHolds() throws Exception {
    String db = "toolcall_page_feed_calls";
    PostgresCallStore.create(PgCluster.database(db)).applySchema();
    List<String> ranOn = new CopyOnWriteArrayList<>();
    SessionTokens tokens = SessionTokens.create();
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell("a", ranOn)).sharedStore(PostgresCallStore
            .create(Pool.of(TwoRuntimesTest.second(db), 4)).shared("a", Duration.ofSeconds(30))).build();
        ToolCallRuntime b = ToolCallRuntime.builder().tools(shell("b", ranOn)).sharedStore(PostgresCallStore
            .create(Pool.of(TwoRuntimesTest.second(db), 4)).shared("b", Duration.ofSeconds(30))).build();
        ApprovalServer server = ApprovalServer.builder(b).access(tokens).start();
        Sse page = Sse.open(server.baseUri().resolve("/api/sessions/s/stream?token=" + tokens.issue("s")))) {
      page.next(f -> f.event().equals("snapshot"));
      var batch = a.schedule("s", List.of(dev.toolcall.execution.CallRequest.of("c1", "shell",
          "{\"command\":\"make\"}")));
      JsonNode asked = page.next(f -> f.isCall("c1") && f.data().has("request")).data();
      String requestId = asked.path("request").path("requestId").asText();
      assertThat(a.permissions().request(requestId)).as("the request A holds").isPresent();
      HttpResponse<String> won = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              server.baseUri().resolve("/api/sessions/s/decisions"))
          .header("Content-Type", "application/json").header("X-Toolcall-Token", tokens.token("s").orElseThrow())
          .POST(HttpRequest.BodyPublishers.ofString("{\"requestId\":\"" + requestId
              + "\",\"decision\":\"approve_once\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(won.statusCode()).as(won.body()).isEqualTo(200);
      JsonNode done = page.next(f -> f.isCall("c1") && f.data().path("state").asText().equals("completed")).data();
      assertThat(batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS).get(0).snapshot().version())
          .isEqualTo(done.path("version").asInt());
      assertThat(ranOn).hasSize(1);
      assertThat(done.path("result").asText()).isEqualTo("ran make on " + ranOn.get(0));
      assertThat(page.seen().stream().filter(f -> f.event().equals("snapshot"))).hasSize(1);
    }
  }

  private static final List<String> RANK = List.of("pending", "permission_pending", "permission_approved", "running",
      "completed");

  private static Tool shell(String instance, List<String> ranOn) {
    return Tool.of(ToolDefinition.builder("shell").description("Runs a command")
        .permissionTimeout(Duration.ofHours(1)).build(), inv -> {
          ranOn.add(instance);
          return ToolResult.of("ran " + inv.arguments().asJson().path("command").asText() + " on " + instance);
        });
  }

  /** A page's event stream read on a thread of its own; frames awaited with a bound. */
  static final class Sse implements AutoCloseable {
    record Frame(String event, JsonNode data) {
      boolean isCall(String callId) {
        return event.equals("call") && data.path("callId").asText().equals(callId);
      }
    }

    private final LinkedBlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
    private final List<Frame> seen = new ArrayList<>();
    private final InputStream body;
    private final Thread reader;

    private Sse(InputStream body) {
      this.body = body;
      this.reader = new Thread(this::read, "test-sse");
      this.reader.setDaemon(true);
      this.reader.start();
    }

    static Sse open(URI uri) throws Exception {
      HttpResponse<InputStream> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      assertThat(r.statusCode()).isEqualTo(200);
      return new Sse(r.body());
    }

    private void read() {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String event = null;
        for (String line; (line = r.readLine()) != null; ) {
          if (line.startsWith("event: ")) {
            event = line.substring(7);
          } else if (line.startsWith("data: ") && event != null) {
            frames.add(new Frame(event, JSON.readTree(line.substring(6))));
            event = null;
          }
        }
      } catch (Exception e) {
        // closed
      }
    }

    /** The first frame read so far that matches, or the next one to arrive within 20 s; each is kept in {@link #seen}. */
    Frame next(Predicate<Frame> match) throws InterruptedException {
      for (Frame f : seen) {
        if (match.test(f)) {
          return f;
        }
      }
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      for (;;) {
        Frame f = frames.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        assertThat(f).as("a frame that matches, within 20 s; seen: %s", seen).isNotNull();
        seen.add(f);
        if (match.test(f)) {
          return f;
        }
      }
    }

    /** Every frame read so far, in order (those after the last awaited one too). */
    List<Frame> seen() {
      frames.drainTo(seen);
      return seen;
    }

    @Override
    public void close() throws Exception {
      body.close();
    }
  }

  /** B's shared store, counting the calls it reads per session. */
  static final class CountingStore implements SharedCallStore {
    private final SharedCallStore d;
    private final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();

    CountingStore(SharedCallStore d) {
      this.d = d;
    }

    int reads(String session) {
      return reads.getOrDefault(session, new AtomicInteger()).get();
    }

    private void count(String session) {
      reads.computeIfAbsent(session, k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public boolean create(ToolCallSnapshot first) {
      return d.create(first);
    }

    @Override
    public void createAll(List<ToolCallSnapshot> firsts, boolean[] stored) {
      d.createAll(firsts, stored);
    }

    @Override
    public boolean compareAndSet(ToolCallSnapshot expected, ToolCallSnapshot next) {
      return d.compareAndSet(expected, next);
    }

    @Override
    public Optional<CallRecord> read(String sessionId, String callId) {
      count(sessionId);
      return d.read(sessionId, callId);
    }

    @Override
    public List<CallRecord> readByLabels(String sessionId, Collection<String> labels) {
      count(sessionId);
      return d.readByLabels(sessionId, labels);
    }

    @Override
    public boolean retriable(RuntimeException failure) {
      return d.retriable(failure);
    }

    @Override
    public String owner() {
      return d.owner();
    }

    @Override
    public Duration lease() {
      return d.lease();
    }

    @Override
    public Optional<CallRecord> readByRequest(String requestId) {
      return d.readByRequest(requestId);
    }

    @Override
    public int renewLeases() {
      return d.renewLeases();
    }

    @Override
    public int releaseLeases() {
      return d.releaseLeases();
    }

    @Override
    public List<CallRecord> overdue() {
      return d.overdue();
    }

    @Override
    public List<CallRecord> leased() {
      return d.leased();
    }

    @Override
    public boolean handOver(ToolCallSnapshot waiting) {
      return d.handOver(waiting);
    }

    @Override
    public List<CallRecord> handedOverPastDeadline() {
      return d.handedOverPastDeadline();
    }

    @Override
    public AutoCloseable watch(Listener listener) {
      return d.watch(listener);
    }
  }
}
