package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCall;
import dev.toolcall.event.EventBus;
import dev.toolcall.testing.Heap;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Memory held per pending permission request, measured as the retained heap of 20,000 open requests (each with its
 * call, its snapshots, its queue entry and its armed deadline), after full GCs. Tagged stress: it measures, it does
 * not belong in the unit run. Run: {@code mvn verify -DexcludedGroups= -Dgroups=stress -Dtest=PermissionMemoryTest}.
 */
@Tag("stress")
class PermissionMemoryTest {

  static long usedAfterGc() throws InterruptedException {
    return Heap.usedAfterGc();
  }

  @Test
  void memoryPerPendingRequest() throws Exception {
    int n = 20_000;
    EventBus bus = EventBus.create();
    ToolDefinition def = ToolDefinition.builder("shell").build();
    try (PermissionService permissions = PermissionService.builder().defaultTimeout(Duration.ofHours(1)).build()) {
      List<ToolCall> calls = new ArrayList<>(n);
      // warm up the classes and the deadline thread
      permissions.authorize(ToolCall.builder("warm", "shell").eventBus(bus).build(), def);
      long before = usedAfterGc();
      for (int i = 0; i < n; i++) {
        ToolCall c = ToolCall.builder("c" + i, "shell").sessionId("s").eventBus(bus).build();
        permissions.authorize(c, def);
        calls.add(c);
      }
      long after = usedAfterGc();
      assertThat(permissions.pending()).hasSize(n + 1);
      long perRequestWithCall = (after - before) / n;
      System.out.println("retained per pending request (including its ToolCall): " + perRequestWithCall + " B");
      // the same calls without the service: PENDING -> PERMISSION_PENDING by hand
      List<ToolCall> bare = new ArrayList<>(n);
      long b2 = usedAfterGc();
      for (int i = 0; i < n; i++) {
        ToolCall c = ToolCall.builder("d" + i, "shell").sessionId("s").eventBus(bus).build();
        c.transition(dev.toolcall.ToolCallState.PENDING, dev.toolcall.ToolCallState.PERMISSION_PENDING,
            dev.toolcall.Reason.PERMISSION_REQUIRED);
        bare.add(c);
      }
      long a2 = usedAfterGc();
      long perCall = (a2 - b2) / n;
      System.out.println("retained per bare call in PERMISSION_PENDING: " + perCall + " B; so per request: "
          + (perRequestWithCall - perCall) + " B");
      assertThat(bare).hasSize(n);
      assertThat(calls).hasSize(n);
      assertThat(perRequestWithCall).isPositive();
    }
  }
}
