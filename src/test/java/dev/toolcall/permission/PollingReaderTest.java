package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallState;
import dev.toolcall.ToolResult;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.Logs;
import dev.toolcall.testing.PermissionFakes.ManualTicker;
import dev.toolcall.testing.PermissionFakes.ManualTimer;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A web page that polls {@code pending()} (the README's Spring controller) is a reader, even when its first poll
 * comes a few seconds after the first request opened: it is not told that nothing reads the requests. A runtime that
 * nobody reads is still told, once. Time is the runtime's manual timer; nothing sleeps.
 */
class PollingReaderTest {

  private final ManualTicker ticker = new ManualTicker();
  private final ManualTimer timer = new ManualTimer(ticker);

  private ToolCallRuntime runtime() {
    return ToolCallRuntime.builder().ticker(ticker).timer(timer)
        .tools(Tool.of(ToolDefinition.builder("deploy").build(), inv -> ToolResult.of("ok"))).build();
  }

  private static CountDownLatch waitingFor(ToolCallRuntime runtime) {
    CountDownLatch latch = new CountDownLatch(1);
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ToolCallEvent.StateChanged s && s.to() == ToolCallState.PERMISSION_PENDING) {
        latch.countDown();
      }
    }));
    return latch;
  }

  /** A page polling every five seconds, whose first poll comes five seconds after the request opened. */
  @Test
  void aPageThatPollsPendingEveryFewSecondsIsNotWarnedAbout() throws Exception {
    try (ToolCallRuntime runtime = runtime()) {
      CountDownLatch waiting = waitingFor(runtime);
      runtime.schedule("chat-1", List.of(CallRequest.of("c1", "deploy", "{}")));
      assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
      for (int poll = 0; poll < 6; poll++) {
        timer.advance(Duration.ofSeconds(5));
        assertThat(runtime.permissions().pending()).hasSize(1);
      }
      assertThat(Logs.of(PermissionService.class)).isEmpty();
    }
  }

  /** Nothing reads: the one WARN comes, after the grace a polling page is given. */
  @Test
  void aRuntimeThatNothingReadsIsStillWarnedAboutOnce() throws Exception {
    try (ToolCallRuntime runtime = runtime()) {
      CountDownLatch waiting = waitingFor(runtime);
      runtime.schedule("chat-1", List.of(CallRequest.of("c1", "deploy", "{}")));
      assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
      timer.advance(UnreadRequestWarning.GRACE.minusMillis(1));
      assertThat(Logs.of(PermissionService.class)).isEmpty();
      timer.advance(Duration.ofMinutes(1));
      assertThat(Logs.of(PermissionService.class)).singleElement()
          .satisfies(e -> assertThat(e.message()).contains("nothing reads this runtime's permission requests"));
    }
  }
}
