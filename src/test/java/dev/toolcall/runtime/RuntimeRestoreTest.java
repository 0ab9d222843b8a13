package dev.toolcall.runtime;

import dev.toolcall.CallRecord;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCallState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, part 2: a runtime's state survives a restart through a snapshot file. Runtime A leaves calls in every
 * non-terminal state; its snapshot is written atomically and read by runtime B, started ten minutes later, which
 * keeps ids, request ids, versions and absolute deadlines, and settles each call by the rules of
 * {@link ToolCallRuntime#restore}.
 */
class RuntimeRestoreTest {
  static final Instant T0 = Instant.parse("2026-11-25T09:00:00Z");

  @TempDir
  Path dir;

  /** The tools of both processes; {@code blocking} makes the two that run hang (process A), or return (B). */
  static final class Tools {
    final AtomicInteger shellRuns = new AtomicInteger();
    final AtomicInteger slowRuns = new AtomicInteger();
    final AtomicInteger fetchRuns = new AtomicInteger();
    final CountDownLatch running = new CountDownLatch(2);
    final CountDownLatch release = new CountDownLatch(1);
    final boolean blocking;

    Tools(boolean blocking) {
      this.blocking = blocking;
    }

    List<Tool> all() {
      return List.of(
          Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
            shellRuns.incrementAndGet();
            return ToolResult.of("ran " + inv.arguments().raw());
          }),
          Tool.of(ToolDefinition.builder("deploy").permissionTimeout(Duration.ofMinutes(5)).build(),
              inv -> ToolResult.of("deployed")),
          Tool.of(ToolDefinition.builder("slow").requiresApproval(false).build(), inv -> {
            slowRuns.incrementAndGet();
            hang();
            return ToolResult.of("slow done");
          }),
          Tool.of(ToolDefinition.builder("fetch").requiresApproval(false).readOnly(true).idempotent(true).build(),
              inv -> {
                fetchRuns.incrementAndGet();
                hang();
                return ToolResult.of("fetched");
              }));
    }

    private void hang() throws InterruptedException {
      if (blocking) {
        running.countDown();
        release.await();
      }
    }
  }

  static ToolCallRuntime runtime(Tools tools, Instant now) {
    return ToolCallRuntime.builder().tools(tools.all()).clock(Clock.fixed(now, ZoneOffset.UTC))
        .closeGrace(Duration.ofSeconds(5)).build();
  }

  @Test
  void aRestartKeepsWaitingRequestsRunsApprovedCallsAndSettlesRunningOnes() throws Exception {
    Tools a = new Tools(true);
    Path file = dir.resolve("runtime.json");
    String shellRequest;
    int shellVersion;
    try (ToolCallRuntime ra = runtime(a, T0)) {
      // s1: slow runs; shell-b, not read-only, waits for it: approved, it is PERMISSION_APPROVED at the restart
      ra.schedule("s1", List.of(CallRequest.of("slow-1", "slow", "{}"),
          CallRequest.of("shell-b", "shell", "{\"command\":\"make\"}")));
      Batch s2 = ra.schedule("s2", List.of(CallRequest.of("shell-1", "shell", "{\"command\":\"git status\"}"),
          CallRequest.of("deploy-1", "deploy", "{}")));
      ra.schedule("s3", List.of(CallRequest.of("fetch-1", "fetch", "{}")));
      assertThat(a.running.await(10, TimeUnit.SECONDS)).as("fetch and slow are running").isTrue();
      PermissionRequest b = await(ra, "shell-b");
      assertThat(ra.permissions().decide(b.requestId(), Decision.approveOnce(b)).won()).isTrue();
      ra.permissions().decide(await(ra, "shell-1").requestId(), Decision.approveForSession(await(ra, "shell-1"),
          dev.toolcall.permission.ArgumentPattern.prefix("git")));
      s2.calls().get(0).whenTerminal().toCompletableFuture().get(10, TimeUnit.SECONDS); // shell-1 ran (git:*)
      ra.schedule("s2", List.of(CallRequest.of("shell-2", "shell", "{\"command\":\"rm -rf build\"}")));
      PermissionRequest waiting = await(ra, "shell-2");
      await(ra, "deploy-1");
      shellRequest = waiting.requestId();
      RuntimeSnapshot snap = ra.snapshot();
      shellVersion = snap.calls().stream().filter(c -> c.callId().equals("shell-2")).findFirst().orElseThrow()
          .version();
      snap.writeTo(file);
      assertThat(snap.calls()).extracting(CallRecord::callId)
          .containsExactlyInAnyOrder("fetch-1", "slow-1", "shell-b", "deploy-1", "shell-2");
      assertThat(snap.calls()).filteredOn(c -> c.callId().equals("shell-b"))
          .extracting(CallRecord::state).containsExactly(ToolCallState.PERMISSION_APPROVED);
      assertThat(snap.sessionGrants()).extracting(RuntimeSnapshot.SessionGrant::arguments)
          .containsExactly(dev.toolcall.permission.ArgumentPattern.prefix("git"));
      a.release.countDown();
    }
    assertThat(Files.readString(file)).contains("\"schemaVersion\" : 2", "\"permission_pending\"");

    Tools b = new Tools(false);
    try (ToolCallRuntime rb = runtime(b, T0.plus(Duration.ofMinutes(10)))) {
      RecordingListener events = new RecordingListener(false);
      rb.events().subscribe(events);
      List<Batch> batches = rb.restore(RuntimeSnapshot.readFrom(file));
      assertThat(batches).extracting(bt -> bt.calls().get(0).sessionId()).containsExactly("s1", "s2", "s3", "s2");

      // the request keeps its id and waits again; its deadline is still an hour after it was asked
      assertThat(rb.permissions().pending()).extracting(PermissionRequest::requestId).containsExactly(shellRequest);
      PermissionRequest again = rb.permissions().pending().get(0);
      assertThat(again.createdAt()).isEqualTo(T0);
      assertThat(again.deadline()).isEqualTo(T0.plus(Duration.ofHours(1)));
      assertThat(rb.permissions().sessionGrants("s2")).extracting(g -> g.arguments().form()).containsExactly("git:*");
      assertThat(rb.permissions().decide(shellRequest, Decision.approveOnce(again)).won()).isTrue();

      Map<String, CallResult> results = batches.stream()
          .flatMap(bt -> bt.whenDone().toCompletableFuture().join().stream())
          .collect(Collectors.toMap(CallResult::callId, r -> r));
      assertThat(results.get("shell-2").outcome()).isEqualTo(new Outcome.Completed("ran {\"command\":\"rm -rf build\"}"));
      assertThat(results.get("shell-b").outcome()).as("approved before the restart: runs once, after it")
          .isEqualTo(new Outcome.Completed("ran {\"command\":\"make\"}"));
      assertThat(b.shellRuns).hasValue(2);
      assertThat(results.get("deploy-1").outcome()).isInstanceOfSatisfying(Outcome.Denied.class,
          d -> assertThat(d.reason()).contains("deadline passed while the process was down"));
      assertThat(results.get("slow-1").outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
        assertThat(f.kind()).isEqualTo(FailureKind.OUTCOME_UNKNOWN);
        assertThat(f.message()).contains("may have partly run");
      });
      assertThat(b.slowRuns).as("a running tool that is not idempotent is never run again").hasValue(0);
      assertThat(results.get("fetch-1").outcome()).isEqualTo(new Outcome.Completed("fetched"));
      assertThat(results.get("fetch-1").snapshot().attempt()).as("the idempotent tool ran again").isEqualTo(2);
      assertThat(b.fetchRuns).hasValue(1);

      List<Long> shellVersions = events.eventsOf("shell-2").stream().map(e -> e.version()).toList();
      assertThat(shellVersions.get(0)).as("events continue after the restored version").isEqualTo(shellVersion + 1);
      assertThat(rb.snapshot().calls()).as("everything settled").isEmpty();
    }
  }

  @Test
  void aDocumentRoundTripsThroughJsonAndAFreshRuntimeGivesItBack() throws Exception {
    Tools a = new Tools(false);
    RuntimeSnapshot before;
    try (ToolCallRuntime ra = runtime(a, T0)) {
      ra.schedule("s", List.of(CallRequest.of("c1", "shell", "{\"command\":\"ls\"}"),
          CallRequest.of("c2", "deploy", "{}")));
      await(ra, "c1");
      await(ra, "c2");
      before = ra.snapshot();
    }
    assertThat(RuntimeSnapshot.fromJson(before.toJson())).isEqualTo(before);
    try (ToolCallRuntime rb = runtime(new Tools(false), T0)) {
      rb.restore(before);
      RuntimeSnapshot after = rb.snapshot();
      assertThat(after.calls()).isEqualTo(before.calls());
      assertThat(rb.permissions().pending()).extracting(PermissionRequest::callId).containsExactly("c1", "c2");
    }
  }

  /**
   * A call so close to the last version an {@code int} holds (2,147,483,647) that it could never end by its own path
   * (waiting for permission at 2,147,483,646: approved, running and an end need three more) is ended at the restore,
   * before anyone can approve it, with a reason the model reads: never approved into a version it cannot leave. One
   * with room enough restores as any other.
   */
  @Test
  void aCallTooCloseToTheLastVersionToEverEndIsEndedAtRestoreNotApproved() throws Exception {
    Tools tools = new Tools(false);
    try (ToolCallRuntime rb = runtime(tools, T0)) {
      RecordingListener events = new RecordingListener(false);
      rb.events().subscribe(events);
      List<Batch> batches = rb.restore(RuntimeSnapshot.ofCalls(T0, List.of(
          waitingAt("last", Integer.MAX_VALUE - 1, "perm-last"),
          waitingAt("room", Integer.MAX_VALUE - 4, "perm-room"))));
      assertThat(rb.permissions().pending()).as("only the call that can end waits").extracting(
          PermissionRequest::requestId).containsExactly("perm-room");
      assertThat(rb.permissions().decide("perm-last", new Decision.ApproveOnce("perm-last", 0)))
          .as("never approved into a version it cannot leave").isNotInstanceOf(
              dev.toolcall.permission.DecisionResult.Won.class);
      PermissionRequest room = rb.permissions().pending().get(0);
      assertThat(rb.permissions().decide("perm-room", Decision.approveOnce(room)).won()).isTrue();
      Map<String, CallResult> results = new java.util.HashMap<>();
      for (Batch bt : batches) {
        bt.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS).forEach(r -> results.put(r.callId(), r));
      }
      assertThat(results.get("last").snapshot().state()).isEqualTo(ToolCallState.CANCELLED);
      assertThat(results.get("last").snapshot().version()).isEqualTo(Integer.MAX_VALUE);
      assertThat(results.get("last").outcome().messageForModel()).contains("last version").contains("not run");
      assertThat(results.get("room").outcome()).isEqualTo(new Outcome.Completed("ran {}"));
      assertThat(results.get("room").snapshot().version()).isEqualTo(Integer.MAX_VALUE - 1);
      assertThat(tools.shellRuns).hasValue(1);
      assertThat(events.eventsOf("last")).extracting(e -> e.version()).containsExactly((long) Integer.MAX_VALUE);
    }
  }

  /** A call of tool shell waiting on {@code requestId} at {@code version}, asked at T0, for an hour. */
  static CallRecord waitingAt(String callId, int version, String requestId) {
    return new CallRecord("s", callId, "shell", null, dev.toolcall.ToolCallOrigin.MODEL, T0,
        ToolCallState.PERMISSION_PENDING, version, "{}", 0, 0,
        List.of(new CallRecord.Step(ToolCallState.PENDING, 0, T0),
            new CallRecord.Step(ToolCallState.PERMISSION_PENDING, version, T0)),
        new CallRecord.PermissionWait(requestId, T0, T0.plus(Duration.ofHours(1))));
  }

  /** Waits (on the service's own await, no sleep) for the request of {@code callId}. */
  static PermissionRequest await(ToolCallRuntime r, String callId) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      for (PermissionRequest p : r.permissions().pending()) {
        if (p.callId().equals(callId)) {
          return p;
        }
      }
      r.permissions().awaitNext(Duration.ofMillis(50));
    }
    throw new AssertionError("no request for " + callId);
  }
}
