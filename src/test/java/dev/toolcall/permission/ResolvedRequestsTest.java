package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventBus;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, defect 8: the service remembers what resolved each request (for a late decision) without keeping the
 * call's snapshots. Calls with 100 KB arguments, once resolved and let go by the caller, are collected, and a late
 * decision still learns the winner's state and reason.
 */
class ResolvedRequestsTest {

  @Test
  void aResolvedRequestKeepsTheWinnerNotTheSnapshots() throws Exception {
    ToolDefinition def = ToolDefinition.builder("shell").build();
    String big = "a".repeat(100_000);
    try (PermissionService permissions = PermissionService.builder().defaultTimeout(Duration.ofHours(1)).build()) {
      List<WeakReference<ToolCallSnapshot>> refs = new ArrayList<>();
      List<Decision> late = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        ToolCall c = ToolCall.builder("c" + i, "shell").arguments(ToolArguments.ofText(big + i))
            .eventBus(EventBus.create()).build();
        permissions.authorize(c, def);
        PermissionRequest r = permissions.pending().get(0);
        DecisionResult won = i % 2 == 0 ? permissions.decide(r.requestId(), Decision.approveOnce(r))
            : permissions.decide(r.requestId(), Decision.deny(r, "no"));
        assertThat(won.won()).isTrue();
        refs.add(new WeakReference<>(c.snapshot()));
        late.add(Decision.approveOnce(r));
      }
      for (int i = 0; i < 50 && refs.stream().anyMatch(r -> r.get() != null); i++) {
        System.gc();
        Thread.sleep(10); // lets the collector clear references; a measurement, not a race
      }
      assertThat(refs).as("no resolved call's snapshot is kept by the service").allMatch(r -> r.get() == null);
      for (int i = 0; i < late.size(); i++) {
        Decision d = late.get(i);
        DecisionResult r = permissions.decide(d.requestId(), d);
        assertThat(r).isInstanceOf(DecisionResult.Lost.class);
        DecisionResult.Lost lost = (DecisionResult.Lost) r;
        assertThat(lost.winnerState()).isEqualTo(i % 2 == 0 ? ToolCallState.PERMISSION_APPROVED
            : ToolCallState.PERMISSION_DENIED);
      }
    }
  }
}
