package dev.toolcall.runtime;

import dev.toolcall.ToolCall;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: snapshots taken while three threads schedule, approve, deny and cancel calls (start latch, real threads)
 * are always valid documents: each survives JSON unchanged, and a fresh runtime restores it without error, each of its
 * waiting calls waiting again on its request. Invariant: reading each call once makes every snapshot consistent per
 * call, whatever the other calls do meanwhile.
 */
class RuntimeSnapshotRaceTest {

  static ToolCallRuntime runtime() {
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ran " + inv.arguments().raw()));
    Tool read = Tool.of(ToolDefinition.builder("read").readOnly(true).requiresApproval(false).build(),
        inv -> ToolResult.of("read"));
    return ToolCallRuntime.builder().tools(shell, read).build();
  }

  @Test
  void snapshotsOfABusyRuntimeAreAlwaysRestorable() throws Exception {
    try (ToolCallRuntime busy = runtime()) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger ids = new AtomicInteger();
      List<ToolCall> calls = new CopyOnWriteArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        workers.add(pool.submit(() -> {
          start.await();
          ThreadLocalRandom r = ThreadLocalRandom.current();
          while (!stop.get()) {
            int x = r.nextInt(10);
            if (x < 4) {
              String tool = x == 0 ? "read" : "shell";
              calls.addAll(busy.schedule("s" + r.nextInt(3), List.of(CallRequest.of("c" + ids.incrementAndGet(),
                  tool, "{\"command\":\"make " + x + "\"}"))).calls());
            } else if (x < 8) {
              List<PermissionRequest> pending = busy.permissions().pending();
              if (!pending.isEmpty()) {
                PermissionRequest p = pending.get(r.nextInt(pending.size()));
                busy.permissions().decide(p.requestId(), x < 6 ? Decision.approveOnce(p) : Decision.deny(p, "no"));
              }
            } else if (!calls.isEmpty()) {
              calls.get(r.nextInt(calls.size())).cancel("changed my mind");
            }
          }
          return null;
        }));
      }
      start.countDown();
      int restored = 0;
      for (int i = 0; i < 40; i++) {
        RuntimeSnapshot snap = busy.snapshot();
        assertThat(RuntimeSnapshot.fromJson(snap.toJson())).isEqualTo(snap);
        if (i % 4 == 0) {
          try (ToolCallRuntime fresh = runtime()) {
            fresh.restore(snap);
            assertThat(fresh.permissions().pending()).extracting(PermissionRequest::requestId)
                .as("each waiting call waits again on its request").containsAll(snap.requestOrder());
            restored++;
          }
        }
      }
      stop.set(true);
      for (Future<?> f : workers) {
        f.get(30, TimeUnit.SECONDS);
      }
      pool.shutdownNow();
      assertThat(restored).isEqualTo(10);
      assertThat(ids.get()).as("the workers made calls meanwhile").isPositive();
    }
  }
}
