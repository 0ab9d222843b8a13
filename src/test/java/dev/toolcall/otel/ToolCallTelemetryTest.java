package dev.toolcall.otel;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolException;
import dev.toolcall.tool.ToolResult;
import dev.toolcall.tool.TransientToolException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.slf4j.MDC;

/**
 * {@link ToolCallTelemetry} through a real runtime and the OpenTelemetry SDK's in-memory exporter and reader: the
 * span tree of a turn like the demo's, metric values after a scripted batch, the call's span as the tool's context
 * (pool and virtual threads), the scheduling thread's context as the parent, and no span left open after close.
 */
class ToolCallTelemetryTest {
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
      .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build()).build();
  private final AtomicInteger flaky = new AtomicInteger();
  private final AtomicReference<ToolCallRuntime> rt = new AtomicReference<>();

  @AfterEach
  void close() {
    otel.close();
  }

  private Tool echo(String name) {
    return Tool.of(ToolDefinition.builder(name).description("reads " + name).readOnly(true).requiresApproval(false)
        .build(), inv -> ToolResult.of(name + " ok"));
  }

  private List<Tool> demoTools() {
    return List.of(echo("read_file"), echo("list_dir"),
        Tool.of(ToolDefinition.builder("fetch_url").description("fetches").readOnly(true).requiresApproval(false)
            .retryPolicy(new RetryPolicy(3, Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0)).build(), inv -> {
              if (flaky.incrementAndGet() == 1) {
                throw new TransientToolException("connection reset");
              }
              return ToolResult.of("build #142 failed");
            }),
        Tool.of(ToolDefinition.builder("shell").description("runs a command").build(), inv -> ToolResult.of("ran")),
        Tool.of(ToolDefinition.builder("deploy").description("deploys").permissionTimeout(Duration.ofMillis(50))
            .build(), inv -> ToolResult.of("deployed")),
        Tool.of(ToolDefinition.builder("sub_agent").description("delegates").readOnly(true).requiresApproval(false)
            .build(), inv -> {
              ScriptedModel m = new ScriptedModel().thenCalls(call(inv.callId() + ".1", "read_file", "{}"))
                  .thenText("sub done");
              Agent sub = Agent.builder(m, rt.get()).conversationId("sub-" + inv.callId()).parent(inv).build();
              return ToolResult.of(sub.send("look").toCompletableFuture().get(10, TimeUnit.SECONDS).text());
            }));
  }

  private static String attr(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.stringKey(key));
  }

  private static SpanData named(List<SpanData> all, String name) {
    return all.stream().filter(s -> s.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + all.stream().map(SpanData::getName)
            .toList()));
  }

  private static List<String> eventNames(SpanData s) {
    return s.getEvents().stream().map(EventData::getName).toList();
  }

  @Test
  void aDemoLikeTurnMakesTheExpectedSpanTree() throws Exception {
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(demoTools())
        .instrumentation(ToolCallTelemetry.create(otel)).build();
    rt.set(runtime);
    ExecutorService person = Executors.newSingleThreadExecutor();
    runtime.permissions().onRequest(r -> {
      if (r.toolName().equals("shell")) {
        runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
      } // deploy: nobody answers; it times out
    }, person);
    try (runtime) {
      ScriptedModel model = new ScriptedModel()
          .thenCalls(call("c1", "read_file", "{}"), call("c2", "list_dir", "{}"), call("c3", "fetch_url", "{}"),
              call("c4", "reed_file", "{}"))
          .thenCalls(call("c5", "shell", "{}"))
          .thenCalls(call("c6", "deploy", "{}"))
          .thenCalls(call("c7", "sub_agent", "{}"))
          .thenText("done");
      TurnResult r = Agent.builder(model, runtime).conversationId("conversation-1").build().send("go")
          .toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    } finally {
      person.shutdownNow();
    }
    List<SpanData> all = spans.getFinishedSpanItems();
    SpanData turn = all.stream().filter(s -> s.getName().equals("invoke_agent")
        && "conversation-1".equals(attr(s, "gen_ai.conversation.id"))).findFirst().orElseThrow();
    assertThat(turn.getParentSpanContext().isValid()).as("the turn is a root").isFalse();
    Map<String, SpanData> byCall = all.stream().filter(s -> s.getName().startsWith("execute_tool "))
        .collect(Collectors.toMap(s -> attr(s, "gen_ai.tool.call.id"), s -> s));
    assertThat(byCall.keySet()).containsExactlyInAnyOrder("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c7.1");
    for (String id : List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7")) {
      assertThat(byCall.get(id).getParentSpanId()).as("parent of %s", id).isEqualTo(turn.getSpanId());
      assertThat(attr(byCall.get(id), "gen_ai.operation.name")).isEqualTo("execute_tool");
      assertThat(attr(byCall.get(id), "gen_ai.tool.type")).isEqualTo("function");
    }
    SpanData read = byCall.get("c1");
    assertThat(read.getName()).isEqualTo("execute_tool read_file");
    assertThat(attr(read, "gen_ai.tool.description")).isEqualTo("reads read_file");
    assertThat(read.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(attr(read, "gen_ai.tool.call.arguments")).as("content is opt-in").isNull();

    SpanData fetch = byCall.get("c3");
    assertThat(eventNames(fetch)).containsExactly("toolcall.retry");
    assertThat(fetch.getEvents().get(0).getAttributes().get(AttributeKey.longKey("toolcall.retry.attempt")))
        .isEqualTo(2L);

    SpanData unknown = byCall.get("c4");
    assertThat(unknown.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(attr(unknown, "error.type")).isEqualTo("unknown_tool");

    SpanData shell = byCall.get("c5");
    assertThat(eventNames(shell)).containsExactly("toolcall.permission.asked", "toolcall.permission.decided");
    assertThat(attr(shell, "toolcall.outcome")).isEqualTo("completed");
    assertThat(shell.getEvents().get(1).getAttributes().get(AttributeKey.stringKey(
        "toolcall.permission.decided_by"))).isEqualTo("user");

    SpanData deploy = byCall.get("c6");
    assertThat(deploy.getStatus().getStatusCode()).as("a denial is not an error").isEqualTo(StatusCode.UNSET);
    assertThat(attr(deploy, "toolcall.outcome")).isEqualTo("denied");
    assertThat(deploy.getEvents().get(1).getAttributes().get(AttributeKey.stringKey(
        "toolcall.permission.outcome"))).isEqualTo("timeout");

    SpanData delegate = byCall.get("c7");
    SpanData subTurn = all.stream().filter(s -> s.getName().equals("invoke_agent")
        && "sub-c7".equals(attr(s, "gen_ai.conversation.id"))).findFirst().orElseThrow();
    assertThat(subTurn.getParentSpanId()).as("the sub-agent's turn runs in its tool's span")
        .isEqualTo(delegate.getSpanId());
    assertThat(byCall.get("c7.1").getParentSpanId()).as("a nested call is a child of its parent call")
        .isEqualTo(delegate.getSpanId());
    assertThat(all).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(turn.getTraceId()));
    assertThat(attr(turn, "toolcall.turn.reason")).isNotNull();
  }

  @Test
  void metricsAfterAScriptedBatch() throws Exception {
    Tool broken = Tool.of(ToolDefinition.builder("broken").description("fails").readOnly(true)
        .requiresApproval(false).build(), inv -> {
          throw new ToolException("disk full");
        });
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(demoTools()).tools(broken)
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      Batch b = runtime.schedule("s", List.of(CallRequest.of("a", "read_file", "{}"),
          CallRequest.of("b", "list_dir", "{}"), CallRequest.of("c", "broken", "{}"),
          CallRequest.of("d", "fetch_url", "{}")));
      b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    Map<String, MetricData> m = metrics.collectAllMetrics().stream()
        .collect(Collectors.toMap(MetricData::getName, x -> x));
    assertThat(m.get("toolcall.calls.ended").getLongSumData().getPoints())
        .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("toolcall.state")), p -> p.getValue())
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("completed", 1L),
            org.assertj.core.groups.Tuple.tuple("completed", 1L), org.assertj.core.groups.Tuple.tuple("failed", 1L),
            org.assertj.core.groups.Tuple.tuple("completed", 1L));
    assertThat(m.get("toolcall.retries").getLongSumData().getPoints()).singleElement()
        .satisfies(p -> assertThat(p.getValue()).isEqualTo(1L));
    assertThat(m.get("gen_ai.execute_tool.duration").getHistogramData().getPoints()).hasSize(4)
        .anySatisfy(p -> assertThat(p.getAttributes().get(AttributeKey.stringKey("error.type")))
            .isEqualTo("tool_error"));
    assertThat(m.get("gen_ai.execute_tool.duration").getUnit()).isEqualTo("s");
    assertThat(m.get("toolcall.calls.in_flight").getLongSumData().getPoints())
        .allSatisfy(p -> assertThat(p.getValue()).isZero());
  }

  @Test
  void approvalWaitsAreMeasuredByOutcomeAndWhoDecided() throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(demoTools())
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      Batch b = runtime.schedule("s", List.of(CallRequest.of("a", "shell", "{}"), CallRequest.of("b", "deploy",
          "{}")));
      var r = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      runtime.permissions().decide(r.requestId(), Decision.deny(r, "no"));
      b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(metrics.collectAllMetrics().stream().filter(x -> x.getName().equals("toolcall.permission.wait"))
          .flatMap(x -> x.getHistogramData().getPoints().stream())
          .map(p -> p.getAttributes().get(AttributeKey.stringKey("toolcall.permission.outcome")) + "/"
              + p.getAttributes().get(AttributeKey.stringKey("toolcall.permission.decided_by"))).toList())
          .containsExactlyInAnyOrder("denied/user", "timeout/timeout");
      assertThat(metrics.collectAllMetrics().stream().filter(x -> x.getName().equals("toolcall.permission.pending"))
          .flatMap(x -> x.getLongSumData().getPoints().stream()).mapToLong(p -> p.getValue()).sum()).isZero();
    }
  }

  private void assertToolRunsInItsSpan(ToolCallRuntime runtime, AtomicReference<SpanContext> seen,
      AtomicReference<String> mdc) throws Exception {
    Batch b = runtime.schedule("s", List.of(CallRequest.of("x1", "probe", "{}")));
    b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    SpanData call = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("execute_tool probe"))
        .findFirst().orElseThrow();
    assertThat(seen.get().getSpanId()).isEqualTo(call.getSpanId());
    SpanData inner = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("http GET")).findFirst()
        .orElseThrow();
    assertThat(inner.getParentSpanId()).as("the tool's own span nests under its call's").isEqualTo(call.getSpanId());
    assertThat(mdc.get()).isEqualTo("x1");
  }

  private Tool probe(AtomicReference<SpanContext> seen, AtomicReference<String> mdc) {
    return Tool.of(ToolDefinition.builder("probe").description("probes").readOnly(true).requiresApproval(false)
        .build(), inv -> {
          seen.set(Span.current().getSpanContext());
          mdc.set(MDC.get("toolcall.call_id"));
          otel.getTracer("tool").spanBuilder("http GET").startSpan().end();
          return ToolResult.of("ok");
        });
  }

  @Test
  void aToolRunsWithItsCallsSpanAsTheCurrentContextOnAPool() throws Exception {
    AtomicReference<SpanContext> seen = new AtomicReference<>();
    AtomicReference<String> mdc = new AtomicReference<>();
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(probe(seen, mdc))
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      assertToolRunsInItsSpan(runtime, seen, mdc);
    }
    assertThat(MDC.get("toolcall.call_id")).isNull();
  }

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void aToolRunsWithItsCallsSpanAsTheCurrentContextOnVirtualThreads() throws Exception {
    AtomicReference<SpanContext> seen = new AtomicReference<>();
    AtomicReference<String> mdc = new AtomicReference<>();
    ExecutorService virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
        .invoke(null);
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(probe(seen, mdc))
        .scheduler(s -> s.executor(virtual)).instrumentation(ToolCallTelemetry.create(otel)).build()) {
      assertToolRunsInItsSpan(runtime, seen, mdc);
    } finally {
      virtual.shutdownNow();
    }
  }

  @SuppressWarnings("try") // the resource is held by the try, not used in it
  @Test
  void aCallIsAChildOfTheContextCurrentWhereItWasScheduled() throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(demoTools())
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      Span request = otel.getTracer("app").spanBuilder("POST /chat").startSpan();
      try (Scope ignored = request.makeCurrent()) {
        runtime.schedule("s", List.of(CallRequest.of("a", "read_file", "{}"))).whenDone().toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
      } finally {
        request.end();
      }
      SpanData call = named(spans.getFinishedSpanItems(), "execute_tool read_file");
      assertThat(call.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
    }
  }

  @Test
  void noSpanIsLeftOpenAfterCloseWithCallsInFlight() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    Tool hang = Tool.of(ToolDefinition.builder("hang").description("hangs").readOnly(true).requiresApproval(false)
        .build(), inv -> {
          running.countDown();
          new CountDownLatch(1).await(20, TimeUnit.SECONDS);
          return ToolResult.of("never");
        });
    List<Tool> tools = new ArrayList<>(demoTools());
    tools.add(hang);
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools).closeGrace(Duration.ofMillis(100))
        .instrumentation(ToolCallTelemetry.create(otel)).build();
    runtime.schedule("other", List.of(CallRequest.of("h", "hang", "{}"))); // RUNNING when closed
    ScriptedModel model = new ScriptedModel().thenCalls(call("s", "shell", "{}"));
    CompletableFuture<TurnResult> turn = Agent.builder(model, runtime).build().send("go").toCompletableFuture();
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow(); // PERMISSION_PENDING when closed

    runtime.close();

    List<SpanData> all = spans.getFinishedSpanItems();
    assertThat(all).extracting(SpanData::getName)
        .contains("execute_tool hang", "execute_tool shell", "invoke_agent");
    assertThat(all).allSatisfy(s -> assertThat(s.hasEnded()).isTrue());
    turn.get(10, TimeUnit.SECONDS);
  }
}
