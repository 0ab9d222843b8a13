package dev.toolcall;

import dev.toolcall.runtime.RuntimeSnapshot;
import dev.toolcall.runtime.ToolCallRuntime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.CallRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, part 7, the figure: how long a fresh runtime takes to restore 10,000 calls waiting for approval (read the
 * JSON, rebuild, re-open each request with its deadline), five rounds, median. A stress harness: it measures and
 * prints, it asserts only what was restored. Run: {@code mvn test -DexcludedGroups= -Dgroups=stress
 * -Dtest=RestoreScaleTest}.
 */
@Tag("stress")
class RestoreScaleTest {

  static ToolCallRuntime runtime() {
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ran"));
    return ToolCallRuntime.builder().tools(shell).build();
  }

  @Test
  void restoreTenThousandPendingApprovals() {
    int n = 10_000;
    String json;
    try (ToolCallRuntime a = runtime()) {
      List<CallRequest> reqs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        reqs.add(CallRequest.of("c" + i, "shell", "{\"command\":\"make target" + i + "\"}"));
      }
      for (int i = 0; i < n; i += 100) {
        a.schedule("s" + (i / 100), reqs.subList(i, i + 100));
      }
      assertThat(a.permissions().pending()).hasSize(n);
      long t0 = System.nanoTime();
      json = a.snapshot().toJson();
      System.out.printf("snapshot of %,d waiting calls: %d ms, %,d bytes of JSON%n", n,
          (System.nanoTime() - t0) / 1_000_000, json.length());
    }
    long[] ms = new long[5];
    for (int round = 0; round < ms.length; round++) {
      try (ToolCallRuntime b = runtime()) {
        long t0 = System.nanoTime();
        b.restore(RuntimeSnapshot.fromJson(json));
        ms[round] = (System.nanoTime() - t0) / 1_000_000;
        assertThat(b.permissions().pending()).hasSize(n);
      }
    }
    Arrays.sort(ms);
    System.out.printf("restore of %,d pending approvals from JSON: median %d ms (rounds, sorted: %s)%n", n, ms[2],
        Arrays.toString(ms));
  }
}
