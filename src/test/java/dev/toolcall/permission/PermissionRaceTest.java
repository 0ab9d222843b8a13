package dev.toolcall.permission;

import static dev.toolcall.permission.PermissionTestSupport.SHELL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolArguments;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two real threads, released together by a start latch, race for one request; repeated many times. Each test proves
 * that exactly one side wins, that the loser changed nothing and learned what won, that the authorize stage
 * completed once with the winner's snapshot, and that the queue is empty afterwards (unless the winner keeps the
 * request waiting). Bounded waits only; no sleeps.
 */
class PermissionRaceTest {

  private static final int ROUNDS = 300;
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private record Round(PermissionTestSupport t, PermissionService svc, ToolCall call,
      CompletableFuture<ToolCallSnapshot> stage, PermissionRequest request) {}

  private Round open() {
    PermissionTestSupport t = new PermissionTestSupport();
    PermissionService svc = t.service().build();
    ToolCall call = t.call("shell", "ls");
    CompletableFuture<ToolCallSnapshot> stage = svc.authorize(call, SHELL).toCompletableFuture();
    return new Round(t, svc, call, stage, svc.pending().get(0));
  }

  private <A, B> void race(Round r, Function<Round, A> a, Function<Round, B> b, Check<A, B> check) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    Future<A> fa = pool.submit(() -> {
      start.await();
      return a.apply(r);
    });
    Future<B> fb = pool.submit(() -> {
      start.await();
      return b.apply(r);
    });
    start.countDown();
    check.check(fa.get(10, TimeUnit.SECONDS), fb.get(10, TimeUnit.SECONDS));
  }

  @FunctionalInterface
  private interface Check<A, B> {
    void check(A a, B b) throws Exception;
  }

  private static DecisionResult approve(Round r) {
    return r.svc.decide(r.request.requestId(), Decision.approveOnce(r.request));
  }

  @Test
  void approveVersusTimeout() throws Exception {
    int[] wins = new int[2];
    for (int i = 0; i < ROUNDS; i++) {
      Round r = open();
      race(r, PermissionRaceTest::approve, x -> {
        x.t.deadlines.advance(Duration.ofSeconds(30));
        return null;
      }, (d, ignored) -> {
        ToolCallSnapshot s = r.stage.get(10, TimeUnit.SECONDS);
        if (d.won()) {
          wins[0]++;
          assertThat(s.state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
        } else {
          wins[1]++;
          assertThat(((DecisionResult.Lost) d).winnerState()).isEqualTo(ToolCallState.PERMISSION_DENIED);
          assertThat(((Outcome.Denied) s.outcome()).source()).isEqualTo(DenialSource.TIMEOUT);
        }
        assertThat(r.call.snapshot().versions()).filteredOn(v -> v.previousState() == ToolCallState.PERMISSION_PENDING
            && v.state() != ToolCallState.PERMISSION_PENDING).hasSize(1);
        assertThat(r.svc.pending()).isEmpty();
      });
      r.svc.close();
    }
    assertThat(wins[0] + wins[1]).isEqualTo(ROUNDS);
  }

  @Test
  void approveVersusCancel() throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      Round r = open();
      race(r, PermissionRaceTest::approve, x -> x.call.cancel("user pressed Esc"), (d, c) -> {
        ToolCallSnapshot s = r.stage.get(10, TimeUnit.SECONDS);
        if (d.won()) {
          // approval first; the cancel then wins from PERMISSION_APPROVED: the call never runs either way
          assertThat(s.state()).isIn(ToolCallState.PERMISSION_APPROVED, ToolCallState.CANCELLED);
          assertThat(c.won()).isTrue();
          assertThat(r.call.snapshot().versions().get(2).state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
        } else {
          assertThat(c.won()).isTrue();
          assertThat(((DecisionResult.Lost) d).winnerState()).isEqualTo(ToolCallState.CANCELLED);
          assertThat(s.state()).isEqualTo(ToolCallState.CANCELLED);
          assertThat(r.call.snapshot().versions()).noneMatch(v -> v.state() == ToolCallState.PERMISSION_APPROVED);
        }
        assertThat(r.call.state()).isEqualTo(ToolCallState.CANCELLED);
        assertThat(r.svc.pending()).isEmpty();
      });
      r.svc.close();
    }
  }

  @Test
  void approveVersusDeny() throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      Round r = open();
      race(r, PermissionRaceTest::approve,
          x -> x.svc.decide(x.request.requestId(), Decision.deny(x.request, "no")), (a, d) -> {
            assertThat(a.won() ^ d.won()).as("exactly one winner").isTrue();
            ToolCallSnapshot s = r.stage.get(10, TimeUnit.SECONDS);
            assertThat(s.state()).isEqualTo(a.won() ? ToolCallState.PERMISSION_APPROVED
                : ToolCallState.PERMISSION_DENIED);
            DecisionResult.Lost lost = (DecisionResult.Lost) (a.won() ? d : a);
            assertThat(lost.winnerState()).isEqualTo(s.state());
            assertThat(r.svc.pending()).isEmpty();
          });
      r.svc.close();
    }
  }

  @Test
  void modifyVersusApprove() throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      Round r = open();
      race(r, PermissionRaceTest::approve, x -> x.svc.decide(x.request.requestId(),
          Decision.modifyAndAsk(x.request, ToolArguments.ofText("ls -la"))), (a, m) -> {
            assertThat(a.won() ^ m.won()).as("exactly one winner").isTrue();
            if (a.won()) {
              ToolCallSnapshot s = r.stage.get(10, TimeUnit.SECONDS);
              assertThat(s.arguments().raw()).as("approved what was shown").isEqualTo("ls");
              assertThat(m).isInstanceOf(DecisionResult.Lost.class);
              assertThat(r.svc.pending()).isEmpty();
            } else {
              assertThat(a).isInstanceOf(DecisionResult.Stale.class);
              assertThat(r.call.state()).isEqualTo(ToolCallState.PERMISSION_PENDING);
              assertThat(r.svc.pending()).singleElement().extracting(PermissionRequest::argumentsVersion)
                  .isEqualTo(2);
              assertThat(r.stage).isNotDone();
            }
          });
      r.svc.close();
    }
  }
}
