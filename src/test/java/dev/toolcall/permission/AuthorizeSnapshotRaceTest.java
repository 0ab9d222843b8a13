package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.tool.ToolDefinition;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The authorize stage completes with the snapshot with which the call left PERMISSION_PENDING, also when a cancel
 * lands right after the approval (real threads, a start latch per round). Before the fix, the call's terminal hook
 * could resolve the request first, with the CANCELLED snapshot, although the approval had resolved it.
 */
class AuthorizeSnapshotRaceTest {
  static final ToolDefinition SHELL = ToolDefinition.builder("shell").build();

  @Test
  void theStageReportsTheVersionThatLeftPermissionPending() throws Exception {
    PermissionTestSupport t = new PermissionTestSupport();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    int approvedThenCancelled = 0;
    try (PermissionService svc = t.service().build()) {
      for (int round = 0; round < 2_000; round++) {
        ToolCall call = t.call("shell", "ls");
        CompletableFuture<ToolCallSnapshot> stage = svc.authorize(call, SHELL).toCompletableFuture();
        PermissionRequest r = svc.pending().get(0);
        CountDownLatch start = new CountDownLatch(1);
        Future<?> approve = pool.submit(() -> {
          start.await();
          return svc.decide(r.requestId(), Decision.approveOnce(r));
        });
        Future<?> cancel = pool.submit(() -> {
          start.await();
          return call.cancel("user pressed Esc");
        });
        start.countDown();
        approve.get(10, TimeUnit.SECONDS);
        cancel.get(10, TimeUnit.SECONDS);
        ToolCallSnapshot reported = stage.get(10, TimeUnit.SECONDS);
        ToolCallSnapshot left = firstAfterPermissionPending(call.snapshot());
        assertThat(reported.version()).as("round %s: the version that left PERMISSION_PENDING", round)
            .isEqualTo(left.version());
        assertThat(reported.state()).isEqualTo(left.state());
        if (left.state() == ToolCallState.PERMISSION_APPROVED) {
          approvedThenCancelled++;
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(approvedThenCancelled).as("rounds where the approval won and the cancel came after").isPositive();
  }

  /**
   * The same race made certain: a listener cancels the call the moment it sees the approval, on the deciding thread,
   * so the cancel's terminal hook runs before {@code decide} returns. The stage still reports the approval.
   */
  @Test
  void aCancelInsideTheApprovalsDeliveryDoesNotChangeWhatTheStageReports() throws Exception {
    PermissionTestSupport t = new PermissionTestSupport();
    dev.toolcall.event.EventBus bus = dev.toolcall.event.EventBus.create();
    ToolCall call = ToolCall.builder("c1", "shell").eventBus(bus).ticker(t.ticker)
        .arguments(dev.toolcall.ToolArguments.ofText("ls")).build();
    bus.subscribe(new dev.toolcall.event.EventListener() {
      @Override
      public void onStateChanged(dev.toolcall.event.ToolCallEvent.StateChanged e) {
        if (e.to() == ToolCallState.PERMISSION_APPROVED) {
          call.cancel("cancelled right after the approval");
        }
      }
    });
    try (PermissionService svc = t.service().build()) {
      CompletableFuture<ToolCallSnapshot> stage = svc.authorize(call, SHELL).toCompletableFuture();
      PermissionRequest r = svc.pending().get(0);
      assertThat(svc.decide(r.requestId(), Decision.approveOnce(r)).won()).isTrue();
      assertThat(call.snapshot().state()).isEqualTo(ToolCallState.CANCELLED);
      assertThat(stage.get(10, TimeUnit.SECONDS).state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
    }
  }

  private static ToolCallSnapshot firstAfterPermissionPending(ToolCallSnapshot end) {
    ToolCallSnapshot found = null;
    for (ToolCallSnapshot v = end; v.previous() != null; v = v.previous()) {
      if (v.previous().state() == ToolCallState.PERMISSION_PENDING) {
        found = v;
      }
    }
    return found;
  }
}
