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
}
