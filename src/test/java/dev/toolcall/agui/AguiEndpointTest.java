package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.wire.SessionAccess;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The AG-UI endpoint driven directly (no HTTP): a resume is applied whole or not at all, an interrupt lists every
 * open request of the response, an edited approval of a suspended turn goes on with the turn, another thread's
 * request id is answered as a made-up one, and input of the wrong shape is refused before the access check.
 * Threads whose name contains {@code pair} get a response with two calls that need approval ({@link Shell}).
 */
class AguiEndpointTest {
  /** Lets anyone read and decide: the access check is not what these tests are about. */
  static final SessionAccess ANYONE = new SessionAccess() {
    @Override
    public boolean mayRead(String sessionId, String credential) {
      return true;
    }

    @Override
    public boolean mayDecide(String sessionId, String credential) {
      return true;
    }
  };

  Shell shell;
  AguiEndpoint agui;
  final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeEach
  void start() {
    shell = new Shell(Duration.ofMinutes(5));
    agui = AguiEndpoint.builder(shell.runtime, shell::agent).access(ANYONE).build();
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
    agui.close();
    shell.close();
  }

  // ------------------------------------------------------------------------------------------------ helpers

  static ObjectNode input(String thread, String userText) {
    ObjectNode in = Wire.JSON.createObjectNode().put("threadId", thread).put("runId", "run-" + System.nanoTime());
    ArrayNode messages = in.putArray("messages");
    if (userText != null) {
      messages.addObject().put("id", "m-" + userText.hashCode() + "-" + thread).put("role", "user")
          .put("content", userText);
    }
    return in;
  }

  static ObjectNode resume(String thread, ObjectNode... entries) {
    ObjectNode in = input(thread, null);
    ArrayNode r = in.putArray("resume");
    for (ObjectNode e : entries) {
      r.add(e);
    }
    return in;
  }

  static ObjectNode resolved(String requestId, ObjectNode payload) {
    ObjectNode e = Wire.JSON.createObjectNode().put("interruptId", requestId).put("status", "resolved");
    e.set("payload", payload);
    return e;
  }

  static ObjectNode payload(String decision) {
    return Wire.JSON.createObjectNode().put("decision", decision);
  }

  static List<JsonNode> run(AguiEndpoint e, JsonNode in) throws IOException {
    List<JsonNode> frames = Collections.synchronizedList(new ArrayList<>());
    e.run(Wire.text(in), "token", frame -> {
      assertThat(frame).startsWith("data: ").endsWith("\n\n");
      frames.add(Wire.parse(frame.substring(6).strip()));
    });
    return frames;
  }

  List<JsonNode> run(JsonNode in) throws IOException {
    return run(agui, in);
  }

  static JsonNode last(List<JsonNode> frames) {
    assertThat(frames).isNotEmpty();
    return frames.get(frames.size() - 1);
  }

  static List<String> interruptIds(List<JsonNode> frames) {
    JsonNode end = last(frames);
    assertThat(end.path("type").asText()).as("%s", frames).isEqualTo("RUN_FINISHED");
    assertThat(end.path("outcome").path("type").asText()).as("%s", frames).isEqualTo("interrupt");
    List<String> ids = new ArrayList<>();
    end.path("outcome").path("interrupts").forEach(i -> ids.add(i.path("id").asText()));
    return ids;
  }

  static long count(List<JsonNode> frames, String type) {
    return frames.stream().filter(f -> f.path("type").asText().equals(type)).count();
  }

  /** The open requests of {@code thread}, in arrival order, once there are {@code n} of them. */
  List<PermissionRequest> open(String thread, int n) throws InterruptedException {
    Semaphore changed = new Semaphore(0);
    try (Subscription s = shell.runtime.events().subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent) {
          changed.release();
        }
      }
    })) {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (true) {
        List<PermissionRequest> open = shell.runtime.permissions().pending().stream()
            .filter(r -> r.sessionId().equals(thread)).toList();
        if (open.size() >= n) {
          return open;
        }
        assertThat(System.nanoTime() - end).as("%d open requests of %s in time", n, thread).isNegative();
        changed.tryAcquire(100, TimeUnit.MILLISECONDS);
      }
    }
  }

  void stillOpen(PermissionRequest... requests) {
    for (PermissionRequest r : requests) {
      PermissionRequest now = shell.runtime.permissions().request(r.requestId()).orElse(null);
      assertThat(now).as("request %s (%s) is still open", r.requestId(), r.arguments().raw()).isNotNull();
      assertThat(now.argumentsVersion()).isEqualTo(r.argumentsVersion());
      assertThat(now.arguments().raw()).isEqualTo(r.arguments().raw());
    }
  }

  // ------------------------------------------------------------------------- a resume is all or nothing

  @Test
  void aResumeWithOneBadEntryDecidesNothingInProcess() throws Exception {
    aResumeWithOneBadEntryDecidesNothing("pair-whole");
  }

  @Test
  void aResumeWithOneBadEntryDecidesNothingForASuspendedTurn() throws Exception {
    aResumeWithOneBadEntryDecidesNothing("suspend-pair-whole");
  }

  private void aResumeWithOneBadEntryDecidesNothing(String thread) throws Exception {
    run(input(thread, "please run echo"));
    List<PermissionRequest> open = open(thread, 2);
    PermissionRequest a = open.get(0);
    PermissionRequest b = open.get(1);
    ObjectNode approveA = resolved(a.requestId(), payload("approve_once"));
    List<ObjectNode> badB = List.of(
        resolved(b.requestId(), payload("deny").put("reason", "x".repeat(2001))),
        resolved(b.requestId(), (ObjectNode) payload("approve_once").put("arguments", 7)),
        resolved(b.requestId(), (ObjectNode) payload("approve_once").set("arguments",
            Wire.JSON.createObjectNode().put("nope", true))),
        resolved(b.requestId(), (ObjectNode) payload("approve_once").put("arguments", "{\"command\": 7}")),
        resolved(b.requestId(), payload("maybe")),
        resolved(b.requestId(), payload("deny").put("reason", 12)),
        resolved(b.requestId(), payload("approve_once").put("argumentsVersion", "one")),
        resolved(b.requestId(), payload("approve_once").put("argumentsVersion", b.argumentsVersion() + 7)),
        resolved(a.requestId(), payload("deny")),
        resolved("perm-aaaaaaaaaaaaaaaaaaaaaaaaaa", payload("deny")),
        (ObjectNode) Wire.JSON.createObjectNode().put("interruptId", b.requestId()).put("status", "later"));
    for (ObjectNode bad : badB) {
      ObjectNode in = resume(thread, approveA.deepCopy(), bad);
      if (bad.path("status").asText().equals("later")) {
        // not the documented shape: refused before the run starts
        assertThatThrownBy(() -> run(in)).isInstanceOfSatisfying(RefusedException.class,
            e -> assertThat(e.status()).isEqualTo(400));
      } else {
        List<JsonNode> frames = run(in);
        JsonNode end = last(frames);
        assertThat(end.path("type").asText()).as("%s then %s: %s", approveA, bad, frames).isEqualTo("RUN_ERROR");
        assertThat(end.path("code").asText()).isIn("bad_request", "stale", "unknown_request");
      }
      stillOpen(a, b);
      assertThat(shell.ran).as("after %s", bad).isEmpty();
    }
    // The thread goes on: both answered properly.
    List<JsonNode> frames = run(resume(thread, approveA, resolved(b.requestId(), payload("deny"))));
    assertThat(last(frames).path("outcome").path("type").asText()).as("%s", frames).isEqualTo("success");
    assertThat(shell.ran).containsExactly("echo 1");
  }

  // ------------------------------------------------------------------ an interrupt lists every open request

  /**
   * One response asks for two calls that need approval: the first run's interrupt lists both, for an in-process
   * agent and a suspending one, started together from a latch, 100 times.
   */
  @Test
  void anInterruptListsEveryRequestOfTheResponse() throws Exception {
    List<String> bad = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<List<JsonNode>>> runs = new ArrayList<>();
      for (String thread : List.of("pair-" + i, "suspend-pair-" + i)) {
        runs.add(pool.submit(() -> {
          go.await();
          return run(input(thread, "please run ls"));
        }));
      }
      go.countDown();
      for (Future<List<JsonNode>> f : runs) {
        List<JsonNode> frames = f.get(30, TimeUnit.SECONDS);
        JsonNode end = last(frames);
        int listed = end.path("outcome").path("interrupts").size();
        long legacy = frames.stream().filter(x -> x.path("name").asText().equals("on_interrupt")).count();
        if (listed != 2 || legacy != 2) {
          bad.add("repetition " + i + ": " + listed + " interrupts, " + legacy + " on_interrupt: " + end);
        }
      }
    }
    assertThat(bad).as("runs whose interrupt listed fewer than both requests").isEmpty();
  }

  // ------------------------------------------------ an edited approval of a suspended turn goes on with the turn

  /**
   * A suspended turn is resumed with edited arguments while the resumed turn's end is held back from the endpoint
   * (so the run cannot finish by it and has only the calls' events to go by), 100 times: the run waits for the
   * turn, the edited command runs once, and the run ends in success with no interrupt.
   */
  @Test
  void anEditedApprovalOfASuspendedTurnGoesOnEvenWhileTheTurnEndIsHeld() throws Exception {
    BlockingQueue<Runnable> held = new LinkedBlockingQueue<>();
    boolean[] hold = {false};
    Consumer<Runnable> deliver = r -> {
      synchronized (hold) {
        if (hold[0]) {
          held.add(r);
          return;
        }
      }
      r.run();
    };
    try (AguiEndpoint e = AguiEndpoint.builder(shell.runtime, shell::agent).access(ANYONE).turnEnds(deliver)
        .build()) {
      List<String> bad = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        String thread = "suspend-edit-" + i;
        synchronized (hold) {
          hold[0] = false;
        }
        List<String> first = interruptIds(run(e, input(thread, "please run echo draft " + i)));
        assertThat(first).hasSize(1);
        PermissionRequest r = shell.runtime.permissions().request(first.get(0)).orElseThrow();
        synchronized (hold) {
          hold[0] = true;
        }
        ObjectNode edit = payload("approve_once").put("argumentsVersion", r.argumentsVersion());
        edit.putObject("arguments").put("command", "echo edited " + i);
        CountDownLatch go = new CountDownLatch(1);
        Future<List<JsonNode>> resumed = pool.submit(() -> {
          go.await();
          return run(e, resume(thread, resolved(r.requestId(), edit)));
        });
        go.countDown();
        Runnable end = held.poll(30, TimeUnit.SECONDS);
        assertThat(end).as("the resumed turn ended").isNotNull();
        end.run();
        List<JsonNode> frames = resumed.get(30, TimeUnit.SECONDS);
        JsonNode last = last(frames);
        if (!last.path("outcome").path("type").asText().equals("success")) {
          bad.add("repetition " + i + ": " + last);
        }
        String edited = "echo edited " + i;
        assertThat(shell.ran.stream().filter(edited::equals).count()).isEqualTo(1);
        assertThat(shell.agent(thread).interrupts()).isEmpty();
      }
      assertThat(bad).as("edited approvals that came back interrupted").isEmpty();
    }
  }

  // ------------------------------------------------------------------ another thread's id is as unknown

  @Test
  void anotherThreadsRequestIdIsAnsweredAsAMadeUpOne() throws Exception {
    List<String> alice = interruptIds(run(input("alice", "please run cat secrets")));
    run(input("bob", "please run ls"));
    String forged = "perm-aaaaaaaaaaaaaaaaaaaaaaaaaa";
    for (String status : List.of("cancelled", "resolved")) {
      ObjectNode foreign = Wire.JSON.createObjectNode().put("interruptId", alice.get(0)).put("status", status);
      ObjectNode madeUp = Wire.JSON.createObjectNode().put("interruptId", forged).put("status", status);
      foreign.set("payload", payload("deny"));
      madeUp.set("payload", payload("deny"));
      JsonNode a = last(run(resume("bob", foreign)));
      JsonNode b = last(run(resume("bob", madeUp)));
      assertThat(a.path("type").asText()).as("%s", a).isEqualTo("RUN_ERROR");
      assertThat(a.path("code").asText()).isEqualTo("unknown_request");
      assertThat(a.path("message").asText().replace(alice.get(0), "ID"))
          .isEqualTo(b.path("message").asText().replace(forged, "ID"));
    }
    assertThat(shell.runtime.permissions().request(alice.get(0))).isPresent();
    assertThat(shell.ran).isEmpty();
  }

  // --------------------------------------------------------------------------- input of the wrong shape

  @Test
  void inputOfTheWrongShapeIsRefusedNamingTheFieldBeforeTheAccessCheck() throws Exception {
    AguiEndpoint nobody = AguiEndpoint.builder(shell.runtime, shell::agent).access(SessionAccess.DENY_ALL).build();
    try {
      String[][] cases = {
          {"{\"threadId\":7,\"runId\":\"r\",\"messages\":[]}", "threadId"},
          {"{\"threadId\":\"t\",\"runId\":[],\"messages\":[]}", "runId"},
          {"{\"threadId\":\" \",\"runId\":\"r\",\"messages\":[]}", "threadId"},
          {"{\"runId\":\"r\",\"messages\":[]}", "threadId"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":{},\"resume\":{}}", "messages"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"resume\":{}}", "resume"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"resume\":[7]}", "resume[0]"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"resume\":[{\"interruptId\":3,\"status\":\"cancelled\"}]}",
              "resume[0].interruptId"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"forwardedProps\":[]}", "forwardedProps"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"forwardedProps\":{\"command\":7}}",
              "forwardedProps.command"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[\"hi\"]}", "messages[0]"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":\"m\",\"role\":7,\"content\":\"x\"}]}",
              "messages[0].role"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":\"m\",\"role\":\"user\",\"content\":5}]}",
              "messages[0].content"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":[],\"role\":\"user\",\"content\":\"x\"}]}",
              "messages[0].id"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"tools\":{}}", "tools"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"context\":\"x\"}", "context"},
          {"{\"threadId\":\"t\",\"threadId\":\"u\",\"runId\":\"r\",\"messages\":[]}", "threadId"},
          {"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":\"m\",\"role\":\"user\",\"role\":\"system\"}]}",
              "role"},
      };
      for (String[] c : cases) {
        assertThatThrownBy(() -> nobody.run(c[0], "token", frame -> { }))
            .as(c[0]).isInstanceOfSatisfying(RefusedException.class, e -> {
              assertThat(e.status()).as(c[0]).isEqualTo(400);
              assertThat(e.code()).isEqualTo("bad_request");
              assertThat(e.getMessage()).as(c[0]).contains(c[1]);
            });
      }
      // The documented shape, with nulls where a client leaves a field out, reaches the access check.
      assertThatThrownBy(() -> nobody.run("{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"tools\":[],"
          + "\"context\":[],\"state\":null,\"forwardedProps\":{},\"parentRunId\":null}", "token", frame -> { }))
          .isInstanceOfSatisfying(RefusedException.class, e -> assertThat(e.status()).isEqualTo(403));
    } finally {
      nobody.close();
    }
  }
}
