package dev.toolcall.runtime;

import dev.toolcall.ToolCall;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.ArgumentPattern;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * Issue 16, part 6: runtimes made by random chains of actions (schedule a call in one of two sessions, approve once,
 * approve for the session with any arguments or a prefix, deny, cancel). Invariant: the runtime's snapshot survives
 * JSON unchanged, and restoring it into a fresh runtime and taking that runtime's snapshot gives the same document:
 * ids, versions, arguments versions, paths, request ids and their queue order, absolute deadlines and session grants.
 */
class RuntimeSnapshotProperties {
  static final Instant T0 = Instant.parse("2026-11-25T09:00:00Z");

  static ToolCallRuntime runtime() {
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ran " + inv.arguments().raw()));
    Tool deploy = Tool.of(ToolDefinition.builder("deploy").permissionTimeout(Duration.ofMinutes(30)).build(),
        inv -> ToolResult.of("deployed"));
    return ToolCallRuntime.builder().tools(shell, deploy).clock(Clock.fixed(T0, ZoneOffset.UTC))
        .scheduler(s -> s.executor(Runnable::run)).build(); // a decided call runs (and ends) inside decide()
  }

  @Property(tries = 60)
  void snapshotRestoreSnapshotGivesTheSameDocument(
      @ForAll @Size(max = 30) List<@IntRange(min = 0, max = 999) Integer> actions) {
    RuntimeSnapshot first;
    try (ToolCallRuntime a = runtime()) {
      List<ToolCall> calls = new ArrayList<>();
      int n = 0;
      for (int x : actions) {
        List<PermissionRequest> pending = a.permissions().pending();
        PermissionRequest some = pending.isEmpty() ? null : pending.get((x / 7) % pending.size());
        switch (x % 7) {
          case 0, 1, 2 -> {
            String session = x % 2 == 0 ? "s1" : "s2";
            String tool = (x / 3) % 3 == 0 ? "deploy" : "shell";
            String args = tool.equals("shell") ? "{\"command\":\"" + (x % 5 == 0 ? "git push" : "ls -l") + "\"}"
                : "{}";
            Batch b = a.schedule(session, List.of(CallRequest.of("c" + n++, tool, args)));
            calls.addAll(b.calls());
          }
          case 3 -> {
            if (some != null) {
              a.permissions().decide(some.requestId(), Decision.approveOnce(some));
            }
          }
          case 4 -> {
            if (some != null) {
              ArgumentPattern p = x % 2 == 0 ? ArgumentPattern.ANY : ArgumentPattern.prefix("git");
              a.permissions().decide(some.requestId(), Decision.approveForSession(some, p));
            }
          }
          case 5 -> {
            if (some != null) {
              a.permissions().decide(some.requestId(), Decision.deny(some, "no"));
            }
          }
          default -> {
            if (!calls.isEmpty()) {
              calls.get((x / 7) % calls.size()).cancel("changed my mind");
            }
          }
        }
      }
      first = a.snapshot();
    }
    assertThat(RuntimeSnapshot.fromJson(first.toJson())).isEqualTo(first);
    try (ToolCallRuntime b = runtime()) {
      b.restore(first);
      assertThat(b.snapshot()).isEqualTo(first);
    }
  }

  /**
   * Invariant at the edge of how far apart a call's moments may be: anything {@code restore} accepts can be
   * snapshotted again, at any later time, and that document restores to the same calls. A waiting call whose
   * {@code createdAt} lies near the bound from the document's {@code takenAt} (a hundred years, and a tick's range of
   * about 292 years, either way, to the second) is restored, the runtime's clock moves on (up to two years), and its
   * snapshot is taken and restored into a fresh runtime.
   */
  @Property(tries = 300)
  void anythingRestoreAcceptsCanBeSnapshottedAgainAndRestored(
      @ForAll("farApart") Duration fromTakenAt,
      @ForAll @LongRange(min = -120, max = 120) long secondsOff,
      @ForAll @LongRange(min = 0, max = 2 * 365 * 24 * 60) long minutesLater) {
    Instant createdAt;
    try {
      createdAt = T0.plus(fromTakenAt).plusSeconds(secondsOff);
    } catch (java.time.DateTimeException | ArithmeticException e) {
      return; // not an instant at all
    }
    RuntimeSnapshot doc;
    try {
      doc = RuntimeSnapshot.ofCalls(T0, List.of(new dev.toolcall.CallRecord("s", "far", "shell", null,
          dev.toolcall.ToolCallOrigin.MODEL, createdAt, dev.toolcall.ToolCallState.PERMISSION_PENDING, 1, "{}", 0,
          0, List.of(new dev.toolcall.CallRecord.Step(dev.toolcall.ToolCallState.PENDING, 0, createdAt),
              new dev.toolcall.CallRecord.Step(dev.toolcall.ToolCallState.PERMISSION_PENDING, 1, createdAt)),
          new dev.toolcall.CallRecord.PermissionWait("perm-far", createdAt, T0.plus(Duration.ofDays(3650))))));
    } catch (dev.toolcall.CorruptSnapshotException e) {
      return; // refused: nothing was accepted, nothing to snapshot
    }
    java.util.concurrent.atomic.AtomicReference<Instant> now = new java.util.concurrent.atomic.AtomicReference<>(T0);
    Clock moving = new Clock() {
      @Override
      public java.time.ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return now.get();
      }
    };
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ran"));
    RuntimeSnapshot again;
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell).clock(moving).build()) {
      a.restore(doc);
      now.set(T0.plus(Duration.ofMinutes(minutesLater)));
      again = a.snapshot(); // never refused for a call the runtime holds
    }
    assertThat(again.calls()).as("the same call, as restored").isEqualTo(doc.calls());
    RuntimeSnapshot read = RuntimeSnapshot.fromJson(again.toJson());
    try (ToolCallRuntime b = ToolCallRuntime.builder().tools(shell).clock(moving).build()) {
      b.restore(read);
      assertThat(b.snapshot().calls()).isEqualTo(doc.calls());
    }
  }

  /** Offsets of a call's createdAt from takenAt at the bounds that matter: a hundred years, and a tick's range. */
  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<Duration> farApart() {
    return net.jqwik.api.Arbitraries.of(Duration.ofDays(100 * 365L), Duration.ofDays(-100 * 365L),
        Duration.ofNanos(Long.MAX_VALUE), Duration.ofNanos(Long.MAX_VALUE).negated(), Duration.ZERO);
  }
}
