package dev.toolcall;

import dev.toolcall.runtime.ToolCallRuntime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.presentation.CallTree;
import dev.toolcall.presentation.Presenter;
import dev.toolcall.presentation.ToolCallView;
import dev.toolcall.testing.PermissionFakes.ManualTicker;
import dev.toolcall.testing.PermissionFakes.ManualTimer;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A monotonic ticker may start anywhere, near {@link Long#MAX_VALUE} included, and wrap past it (as
 * {@link System#nanoTime()} allows). Every deadline of a runtime (permission timeouts with their countdown, tool
 * timeouts) and every order by ticks must still be right: ticks are compared only by their difference. Each test
 * starts the ticker 10 s before {@link Long#MAX_VALUE}, so its deadlines fall after the wrap.
 */
class TickWrapTest {
  final ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - TimeUnit.SECONDS.toNanos(10));
  final ManualTimer timer = new ManualTimer(ticker);

  final Tool shell = Tool.of(ToolDefinition.builder("shell").description("Runs a command")
      .permissionTimeout(Duration.ofSeconds(30)).build(), inv -> ToolResult.of("ran"));
  final CountDownLatch entered = new CountDownLatch(1);
  final Tool hang = Tool.of(ToolDefinition.builder("hang").description("Waits until interrupted").readOnly(true)
      .requiresApproval(false).timeout(Duration.ofSeconds(5)).build(), inv -> {
        entered.countDown();
        Thread.sleep(Long.MAX_VALUE);
        return ToolResult.of("never");
      });
  final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell, hang).ticker(ticker).timer(timer).build();

  @AfterEach
  void close() {
    runtime.close();
  }

  @Test
  void aPermissionRequestCountsDownAndTimesOutAcrossTheWrap() throws Exception {
    Batch batch = runtime.schedule("s", List.of(CallRequest.of("c1", "shell", "{\"command\":\"ls\"}")));
    PermissionRequest request = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(request.remaining(ticker.read())).isEqualTo(Duration.ofSeconds(30));
    Presenter presenter = Presenter.builder().ticker(ticker).build();
    ToolCallView.Countdown countdown =
        presenter.view(batch.calls().get(0).snapshot()).countdown().orElseThrow();
    assertThat(countdown.remaining()).isEqualTo(Duration.ofSeconds(30));
    assertThat(countdown.total()).isEqualTo(Duration.ofSeconds(30));

    timer.advance(Duration.ofSeconds(29));
    assertThat(ticker.read()).as("the ticker wrapped").isNegative();
    assertThat(runtime.permissions().pending()).hasSize(1);
    assertThat(request.remaining(ticker.read())).isEqualTo(Duration.ofSeconds(1));
    assertThat(presenter.view(batch.calls().get(0).snapshot()).countdown().orElseThrow().remaining())
        .isEqualTo(Duration.ofSeconds(1));

    timer.advance(Duration.ofSeconds(1));
    ToolCallSnapshot end = batch.join().get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    assertThat(((Outcome.Denied) end.outcome()).source()).isEqualTo(DenialSource.TIMEOUT);
    assertThat(request.remaining(ticker.read())).isEqualTo(Duration.ZERO);
  }

  @Test
  void aToolTimeoutFiresAtItsDeadlineAcrossTheWrapAndNotBefore() throws Exception {
    Batch batch = runtime.schedule("s", List.of(CallRequest.of("c1", "hang", "{}")));
    assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
    timer.advance(Duration.ofSeconds(4));
    assertThat(batch.calls().get(0).snapshot().state()).isEqualTo(ToolCallState.RUNNING);
    timer.advance(Duration.ofSeconds(1));
    ToolCallSnapshot end = batch.join().get(0).snapshot();
    assertThat(end.state()).isEqualTo(ToolCallState.FAILED);
    assertThat(((Outcome.Failed) end.outcome()).kind()).isEqualTo(FailureKind.TIMEOUT);
  }

  @Test
  void callsCreatedBeforeAndAfterTheWrapKeepTheirOrder() {
    ToolCall before = ToolCall.builder("a", "shell").ticker(ticker).build();
    ticker.advance(Duration.ofSeconds(20));
    ToolCall after = ToolCall.builder("b", "shell").ticker(ticker).build();
    assertThat(after.snapshot().identity().createdTick()).isNegative();
    assertThat(CallTree.of(List.of(after.snapshot(), before.snapshot())).roots())
        .extracting(CallTree.Node::callId).containsExactly("a", "b");
  }
}
