package dev.toolcall.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.testing.Logs;
import dev.toolcall.testing.PermissionFakes.ManualTicker;
import dev.toolcall.testing.PermissionFakes.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A permission request that nobody can answer says so, once, soon after it opens (ten seconds later on the runtime's
 * timer, here a manual one). With {@code LangChain4jTools.tools(bean)}
 * every tool asks for approval (LangChain4j says nothing about read-only tools); before, with nothing subscribed to
 * the requests, a turn waited for the 5-minute default deadline and nothing was logged.
 */
class NobodyAnswersTest {

  /** Waits until {@code n} calls of {@code runtime} wait for a decision (events, no sleeps). */
  private static CountDownLatch waitingFor(ToolCallRuntime runtime, int n) {
    CountDownLatch latch = new CountDownLatch(n);
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ToolCallEvent.StateChanged s && s.to() == ToolCallState.PERMISSION_PENDING) {
        latch.countDown();
      }
    }));
    return latch;
  }

  private final ManualTicker ticker = new ManualTicker();
  private final ManualTimer timer = new ManualTimer(ticker);

  private ToolCallRuntime runtime() {
    return ToolCallRuntime.builder().ticker(ticker).timer(timer)
        .tools(LangChain4jTools.tools(new LangChain4jExample.Weather())).build();
  }

  @Test
  void aRequestThatNothingReadsIsLoggedOnceSoonAfterItOpens() throws Exception {
    try (ToolCallRuntime runtime = runtime()) {
      CountDownLatch waiting = waitingFor(runtime, 2);
      runtime.schedule("s", List.of(CallRequest.of("c1", "temperature", "{\"city\":\"Oslo\"}"),
          CallRequest.of("c2", "book", "{\"city\":\"Oslo\"}")));
      assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(Logs.of(PermissionService.class)).as("not before its grace").isEmpty();

      timer.advance(Duration.ofSeconds(1));
      timer.advance(Duration.ofMinutes(1));
      assertThat(Logs.of(PermissionService.class)).singleElement().satisfies(e -> {
        assertThat(e.level()).isEqualTo(org.slf4j.event.Level.WARN);
        assertThat(e.message()).contains("tool 'temperature'", "nothing reads this runtime's permission requests",
            "PT5M", "onRequest", "requiresApproval(false)");
      });
    }
  }

  /** An application that reads right after scheduling (or polls, or listens) is not warned about. */
  @Test
  void aRuntimeWhoseRequestsAreReadLogsNothing() throws Exception {
    try (ToolCallRuntime runtime = runtime()) {
      CountDownLatch waiting = waitingFor(runtime, 1);
      runtime.schedule("s", List.of(CallRequest.of("c1", "book", "{\"city\":\"Oslo\"}")));
      assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(runtime.permissions().pending()).hasSize(1); // a UI that polls the queue
      timer.advance(Duration.ofMinutes(1));
      assertThat(Logs.of(PermissionService.class)).isEmpty();
    }
  }

  /** The README's way out: tools marked read-only and free of approval never open a request. */
  @Test
  void toolsMarkedReadOnlyAndFreeOfApprovalRunWithoutAsking() throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
        .tools(LangChain4jTools.tools(new LangChain4jExample.Weather(),
            (name, tool) -> tool.readOnly(name.equals("temperature")).requiresApproval(!name.equals("temperature"))))
        .build()) {
      var results = runtime.schedule("s", List.of(CallRequest.of("c1", "temperature", "{\"city\":\"Oslo\"}")))
          .whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(results).singleElement().satisfies(r -> assertThat(r.messageForModel()).isEqualTo("-3.5"));
      assertThat(Logs.of(PermissionService.class)).isEmpty();
    }
    String shown = "LangChain4jTools.tools(bean, (name, tool) -> tool.readOnly(name.equals(\"temperature\"))"
        + ".requiresApproval(!name.equals(\"temperature\")))";
    for (String doc : List.of("README.md", "docs/integrations.md")) {
      assertThat(java.nio.file.Files.readString(java.nio.file.Path.of(doc))).as("%s shows this way", doc)
          .contains(shown);
    }
  }
}
