package dev.toolcall;

import dev.toolcall.runtime.RuntimeSnapshot;
import dev.toolcall.runtime.ToolCallRuntime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 26, defect 10: a restore keeps what the queue and the batches were. Before, a call found {@code pending} at
 * restore asked again ahead of the requests restored from before the crash, and separately scheduled calls of one
 * session that sat next to each other in the document became one batch, so an approved call waited behind its
 * neighbour's whole permission timeout.
 */
class RestoreOrderTest {
  static final Instant T0 = Instant.parse("2026-11-26T09:00:00Z");

  static ToolCallRuntime runtime(Instant now) {
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ran " + inv.arguments().raw()));
    return ToolCallRuntime.builder().tools(shell).clock(Clock.fixed(now, ZoneOffset.UTC)).build();
  }

  static CallRecord.Step step(ToolCallState s, int v) {
    return new CallRecord.Step(s, v, T0);
  }

  /** A request restored from before the crash stays ahead of the request a restored pending call opens. */
  @Test
  void aRestoredRequestStaysAheadOfOneAskedAtRestore() {
    CallRecord pending = new CallRecord("s", "new-ask", "shell", null, ToolCallOrigin.MODEL, T0,
        ToolCallState.PENDING, 0, "{\"command\":\"ls\"}", 0, 0, List.of(step(ToolCallState.PENDING, 0)), null);
    CallRecord waiting = new CallRecord("s", "old-ask", "shell", null, ToolCallOrigin.MODEL, T0,
        ToolCallState.PERMISSION_PENDING, 1, "{\"command\":\"make\"}", 0, 0,
        List.of(step(ToolCallState.PENDING, 0), step(ToolCallState.PERMISSION_PENDING, 1)),
        new CallRecord.PermissionWait("perm-old", T0, T0.plus(Duration.ofHours(1))));
    RuntimeSnapshot doc = new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, T0, List.of(pending, waiting),
        List.of("perm-old"), List.of(), List.of(List.of(0), List.of(1)));
    try (ToolCallRuntime r = runtime(T0.plus(Duration.ofMinutes(10)))) {
      r.restore(RuntimeSnapshot.fromJson(doc.toJson()));
      assertThat(r.permissions().pending()).extracting(PermissionRequest::callId)
          .containsExactly("old-ask", "new-ask");
      assertThat(r.permissions().nextRequest().toCompletableFuture().join().callId()).isEqualTo("old-ask");
    }
  }

  /**
   * Two calls of one session scheduled in two batches come back as two batches: approving the second runs it at
   * once, while the first still waits for its person.
   */
  @Test
  void eachCallComesBackInTheBatchItWasScheduledIn() throws Exception {
    RuntimeSnapshot snapshot;
    try (ToolCallRuntime first = runtime(T0)) {
      first.schedule("s", List.of(CallRequest.of("c1", "shell", "{\"command\":\"make\"}")));
      first.schedule("s", List.of(CallRequest.of("c2", "shell", "{\"command\":\"ls\"}")));
      assertThat(first.permissions().awaitNext(Duration.ofSeconds(10))).isPresent();
      while (first.permissions().pending().size() < 2) {
        Thread.onSpinWait();
      }
      snapshot = RuntimeSnapshot.fromJson(first.snapshot().toJson());
    }
    assertThat(snapshot.batches()).containsExactly(List.of(0), List.of(1));
    try (ToolCallRuntime second = runtime(T0.plus(Duration.ofMinutes(1)))) {
      List<Batch> owed = second.restore(snapshot);
      assertThat(owed).hasSize(2);
      PermissionRequest c2 = second.permissions().pending().stream().filter(p -> p.callId().equals("c2"))
          .findFirst().orElseThrow();
      second.permissions().decide(c2.requestId(), Decision.approveOnce(c2));
      List<CallResult> results = owed.get(1).whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(results).extracting(res -> res.snapshot().state()).containsExactly(ToolCallState.COMPLETED);
      assertThat(second.permissions().pending()).extracting(PermissionRequest::callId).containsExactly("c1");
    }
  }

  /** A document whose batches do not cover every call once, or mix sessions, is refused naming the batches. */
  @Test
  void badBatchesAreRefused() {
    CallRecord a = new CallRecord("s", "a", "shell", null, ToolCallOrigin.MODEL, T0,
        ToolCallState.PENDING, 0, "{}", 0, 0, List.of(step(ToolCallState.PENDING, 0)), null);
    CallRecord b = new CallRecord("t", "b", "shell", null, ToolCallOrigin.MODEL, T0,
        ToolCallState.PENDING, 0, "{}", 0, 0, List.of(step(ToolCallState.PENDING, 0)), null);
    for (List<List<Integer>> bad : List.of(List.of(List.of(0)), List.of(List.of(0, 1)), List.of(List.of(0),
        List.of(0), List.of(1)), List.of(List.of(1), List.<Integer>of(), List.of(0)), List.of(List.of(0),
        List.of(2)))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION,
          T0, List.of(a, b), List.of(), List.of(), bad)).as("%s", bad)
          .isInstanceOfSatisfying(CorruptSnapshotException.class, e -> assertThat(e.entry()).startsWith("batches"));
    }
  }
}
