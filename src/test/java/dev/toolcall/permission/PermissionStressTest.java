package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real clock, real deadline thread: 20,000 requests with deadlines spread uniformly over 50 ms to 5 s, while two
 * threads approve a fifth of them within 2 ms before their deadline (racing the timeout). Proves that each request
 * resolves exactly once, that none times out early (on the monotonic ticker), that the queue empties; prints the
 * lateness of the timeouts (p50/p99/max). Excluded from the default run; run with
 * {@code mvn -B verify -DexcludedGroups= -Dgroups=stress -Dtest=PermissionStressTest}.
 */
@Tag("stress")
class PermissionStressTest {

  private static final int N = 20_000;

  @Test
  void twentyThousandDeadlinesResolveOnceAndNeverEarly() throws Exception {
    SplittableRandom rnd = new SplittableRandom(42);
    ScheduledExecutorService approvers = Executors.newScheduledThreadPool(2);
    List<ToolCall> calls = new ArrayList<>(N);
    List<CompletableFuture<ToolCallSnapshot>> stages = new ArrayList<>(N);
    long[] deadlines = new long[N];
    AtomicInteger approvalsWon = new AtomicInteger();
    AtomicInteger approvalsLost = new AtomicInteger();
    try (PermissionService svc = PermissionService.builder().build()) {
      for (int i = 0; i < N; i++) {
        long ms = 50 + rnd.nextLong(4951);
        ToolDefinition def = ToolDefinition.builder("shell").permissionTimeout(Duration.ofMillis(ms)).build();
        ToolCall call = ToolCall.builder("c" + i, "shell").arguments(ToolArguments.ofText("ls")).build();
        calls.add(call);
        stages.add(svc.authorize(call, def).toCompletableFuture());
        PermissionRequest r = PermissionRequest.of(call.snapshot()).orElseThrow();
        deadlines[i] = r.deadlineTick();
        if (rnd.nextInt(5) == 0) {
          long early = ms * 1_000_000L - rnd.nextLong(2_000_000L);
          approvers.schedule(() -> {
            if (svc.decide(r.requestId(), Decision.approveOnce(r)).won()) {
              approvalsWon.incrementAndGet();
            } else {
              approvalsLost.incrementAndGet();
            }
          }, Math.max(0, early - (System.nanoTime() - (r.deadlineTick() - ms * 1_000_000L))),
              TimeUnit.NANOSECONDS);
        }
      }
      CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      approvers.shutdown();
      assertThat(approvers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      assertThat(svc.pending()).isEmpty();
    }

    long[] lateness = new long[N];
    int timedOut = 0;
    int approved = 0;
    for (int i = 0; i < N; i++) {
      ToolCallSnapshot s = calls.get(i).snapshot();
      long leaves = s.versions().stream().filter(v -> v.previousState() == ToolCallState.PERMISSION_PENDING
          && v.state() != ToolCallState.PERMISSION_PENDING).count();
      assertThat(leaves).as("resolved exactly once").isEqualTo(1);
      assertThat(stages.get(i).join().state()).isEqualTo(s.state());
      if (s.state() == ToolCallState.PERMISSION_DENIED) {
        assertThat(((Outcome.Denied) s.outcome()).source()).isEqualTo(DenialSource.TIMEOUT);
        long late = s.tick() - deadlines[i];
        assertThat(late).as("never early").isGreaterThanOrEqualTo(0);
        lateness[timedOut++] = late;
      } else {
        assertThat(s.state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
        approved++;
      }
    }
    assertThat(approved).isEqualTo(approvalsWon.get());
    long[] l = Arrays.copyOf(lateness, timedOut);
    Arrays.sort(l);
    System.out.printf("permission stress: %d requests, %d timed out, %d approved near the deadline (%d approvals"
        + " lost to the timeout); timeout lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms%n", N, timedOut, approved,
        approvalsLost.get(), l[l.length / 2] / 1e6, l[(int) (l.length * 0.99)] / 1e6, l[l.length - 1] / 1e6);
  }
}
