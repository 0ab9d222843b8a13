package dev.toolcall.permission;

import static dev.toolcall.permission.PermissionTestSupport.SHELL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCall;
import dev.toolcall.event.Subscription;
import dev.toolcall.testing.Logs;
import dev.toolcall.ToolArguments;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PermissionService#onRequest}: every request, waiting at subscription or opened later, reaches the listener
 * once, while it waits, one at a time, oldest first.
 */
class RequestListenerTest {
  private final PermissionTestSupport t = new PermissionTestSupport();
  private final ExecutorService ui = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    ui.shutdownNow();
  }

  private ToolCall asking(PermissionService svc, String id) {
    ToolCall call = ToolCall.builder(id, "shell").ticker(t.ticker).clock(t.clock)
        .arguments(ToolArguments.ofText("echo " + id)).build();
    svc.authorize(call, SHELL);
    return call;
  }

  @Test
  void waitingAndLaterRequestsEachArriveOnceInOrderAndResolvedOnesAreSkipped() throws Exception {
    try (PermissionService svc = t.service().build()) {
      asking(svc, "c1");
      ToolCall c2 = asking(svc, "c2");
      List<PermissionRequest> got = new CopyOnWriteArrayList<>();
      CountDownLatch three = new CountDownLatch(3);
      CountDownLatch gate = new CountDownLatch(1);
      Subscription sub = svc.onRequest(r -> {
        try {
          gate.await(10, TimeUnit.SECONDS); // hold the first delivery until the test has moved on
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        got.add(r);
        three.countDown();
      }, ui);
      c2.cancel("the user moved on"); // resolved before its delivery: skipped
      asking(svc, "c3");
      asking(svc, "c4");
      gate.countDown();
      assertThat(three.await(10, TimeUnit.SECONDS)).isTrue();
      sub.close();
      asking(svc, "c5"); // after close: not delivered
      ui.submit(() -> {}).get(10, TimeUnit.SECONDS); // anything queued has run by now
      assertThat(got).extracting(PermissionRequest::callId).containsExactly("c1", "c3", "c4");
      assertThat(sub.isClosed()).isTrue();
    }
  }

  @Test
  void aListenerThatThrowsKeepsItsSubscriptionAndTheRequestKeepsWaiting() throws Exception {
    try (PermissionService svc = t.service().build()) {
      CountDownLatch two = new CountDownLatch(2);
      Subscription sub = svc.onRequest(r -> {
        two.countDown();
        throw new IllegalStateException("ui bug");
      }, ui);
      asking(svc, "c1");
      asking(svc, "c2");
      assertThat(two.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(sub.isClosed()).isFalse();
      assertThat(svc.pending()).hasSize(2);
      ui.submit(() -> {}).get(10, TimeUnit.SECONDS);
      assertThat(Logs.of(PermissionService.class)).hasSize(2);
    }
  }

  /**
   * Subscribing races with requests opening on four threads: the listener gets every request that opened, each
   * exactly once (none lost between the snapshot of waiting requests and the first opened one, none twice).
   */
  @Test
  void subscribingWhileRequestsOpenOnOtherThreadsDeliversEachExactlyOnce() throws Exception {
    for (int round = 0; round < 20; round++) {
      try (PermissionService svc = t.service().build()) {
        int threads = 4;
        int perThread = 50;
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        List<String> got = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          int n = i;
          done.add(pool.submit(() -> {
            start.await(10, TimeUnit.SECONDS);
            for (int j = 0; j < perThread; j++) {
              asking(svc, "t" + n + "-" + j);
            }
            return null;
          }));
        }
        start.await(10, TimeUnit.SECONDS);
        svc.onRequest(r -> got.add(r.callId()), ui);
        for (java.util.concurrent.Future<?> f : done) {
          f.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();
        ui.submit(() -> {}).get(10, TimeUnit.SECONDS);
        Set<String> unique = new HashSet<>(got);
        assertThat(got).hasSize(unique.size());
        assertThat(unique).hasSize(threads * perThread);
      }
    }
  }
}
