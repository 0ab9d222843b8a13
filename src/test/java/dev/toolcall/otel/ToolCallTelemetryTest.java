package dev.toolcall.otel;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
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

  /**
   * Two sessions each run a sub-agent inside a call of the same id ({@code c1}) at the same time, and the sub-agents'
   * nested calls have the same ids too ({@code c1.1}, parent {@code c1}). Each nested call's span is a child of its
   * own session's {@code c1}, in that session's trace: parents resolve by session and id, as the core's nesting
   * does. Before, both nested calls were parented under whichever {@code c1} was found first.
   */
  @Test
  void nestedCallsOfTwoSessionsWithTheSameIdsNestUnderTheirOwnParents() throws Exception {
    CountDownLatch bothRunning = new CountDownLatch(2);
    Tool delegate = Tool.of(ToolDefinition.builder("delegate").description("delegates").readOnly(true)
        .requiresApproval(false).build(), inv -> {
          bothRunning.countDown();
          if (!bothRunning.await(10, TimeUnit.SECONDS)) {
            throw new ToolException("the other session's call never ran");
          }
          ScriptedModel m = new ScriptedModel().thenCalls(call("c1.1", "read_file", "{}")).thenText("sub done");
          Agent sub = Agent.builder(m, rt.get()).conversationId("sub-" + inv.sessionId()).parent(inv).build();
          return ToolResult.of(sub.send("look").toCompletableFuture().get(10, TimeUnit.SECONDS).text());
        });
    List<Tool> tools = new ArrayList<>(demoTools());
    tools.add(delegate);
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools)
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      rt.set(runtime);
      List<CompletableFuture<TurnResult>> turns = new ArrayList<>();
      for (String session : List.of("s1", "s2")) {
        ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "delegate", "{}")).thenText("done");
        turns.add(Agent.builder(model, runtime).conversationId(session).build().send("go").toCompletableFuture());
      }
      for (CompletableFuture<TurnResult> t : turns) {
        assertThat(t.get(20, TimeUnit.SECONDS).text()).isEqualTo("done");
      }
    }
    List<SpanData> all = spans.getFinishedSpanItems();
    for (String session : List.of("s1", "s2")) {
      SpanData turn = all.stream().filter(s -> s.getName().equals("invoke_agent")
          && session.equals(attr(s, "gen_ai.conversation.id"))).findFirst().orElseThrow();
      SpanData parent = callSpan(all, session, "c1");
      SpanData nested = callSpan(all, "sub-" + session, "c1.1");
      assertThat(parent.getTraceId()).isEqualTo(turn.getTraceId());
      assertThat(nested.getParentSpanId()).as("the parent of %s's nested call", session)
          .isEqualTo(parent.getSpanId());
      assertThat(nested.getTraceId()).isEqualTo(turn.getTraceId());
    }
  }

  private static SpanData callSpan(List<SpanData> all, String session, String callId) {
    return all.stream().filter(s -> callId.equals(attr(s, "gen_ai.tool.call.id"))
        && session.equals(attr(s, "toolcall.session.id"))).findFirst()
        .orElseThrow(() -> new AssertionError("no span of call " + callId + " in session " + session));
  }

  private static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 == s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Recorded content (arguments, results, retry failures) is cut at a code point boundary: a surrogate pair is
   * never cut in half. Before, the cut fell between the two halves of an emoji.
   */
  @Test
  void contentIsCutAtACodePointBoundary() throws Exception {
    String emoji = "\uD83D\uDE00";
    AtomicInteger attempts = new AtomicInteger();
    Tool say = Tool.of(ToolDefinition.builder("say").description("says").readOnly(true).requiresApproval(false)
        .retryPolicy(new RetryPolicy(2, Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0)).build(), inv -> {
          if (attempts.incrementAndGet() == 1) {
            throw new TransientToolException("x".repeat(255) + emoji + " and more");
          }
          return ToolResult.of("ab" + emoji + "cd");
        });
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(say)
        .instrumentation(ToolCallTelemetry.builder(otel).recordContent(3).build()).build()) {
      runtime.schedule("s", List.of(CallRequest.of("a", "say", "{\"" + emoji + "\":1}"))).whenDone()
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    SpanData span = named(spans.getFinishedSpanItems(), "execute_tool say");
    assertThat(attr(span, "gen_ai.tool.call.result")).isEqualTo("ab…");
    assertThat(attr(span, "gen_ai.tool.call.arguments")).isEqualTo("{\"…");
    String failure = span.getEvents().get(0).getAttributes().get(AttributeKey.stringKey("toolcall.retry.failure"));
    assertThat(failure).isEqualTo("x".repeat(255) + "…");
    assertThat(List.of(attr(span, "gen_ai.tool.call.result"), attr(span, "gen_ai.tool.call.arguments"), failure))
        .allSatisfy(v -> assertThat(wellFormed(v)).as("well-formed UTF-16: %s", v).isTrue());
  }

  /**
   * Metric attributes name only tools the runtime has: a name the model made up is recorded as {@code _OTHER}, so
   * the model cannot grow the number of series; the span keeps the name the model sent, cut to 128 characters. A tool added after the
   * runtime was built is known by name. Before, every made-up name became a series of its own.
   */
  @Test
  void metricsRecordUnknownToolNamesAsOther() throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(demoTools())
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      runtime.updateTools(r -> r.with(echo("late_tool")));
      runtime.schedule("s", List.of(CallRequest.of("a", "made_up_1", "{}"), CallRequest.of("b", "made_up_2", "{}"),
          CallRequest.of("c", "late_tool", "{}"))).whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
      runtime.schedule("s", List.of(CallRequest.of("d", "x".repeat(10_000), "{}"))).whenDone().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    }
    SpanData huge = spans.getFinishedSpanItems().stream().filter(x -> "d".equals(attr(x, "gen_ai.tool.call.id")))
        .findFirst().orElseThrow();
    assertThat(attr(huge, "gen_ai.tool.name")).as("a made-up name is cut on spans").isEqualTo("x".repeat(128) + "…");
    assertThat(huge.getName()).isEqualTo("execute_tool " + "x".repeat(128) + "…");
    for (MetricData md : metrics.collectAllMetrics()) {
      List<String> names = (md.getName().endsWith("duration") || md.getName().endsWith("wait")
          ? md.getHistogramData().getPoints().stream().map(p -> p.getAttributes())
          : md.getLongSumData().getPoints().stream().map(p -> p.getAttributes()))
          .map(a -> a.get(AttributeKey.stringKey("gen_ai.tool.name"))).distinct().toList();
      assertThat(names).as("tool names of %s", md.getName()).doesNotContain("made_up_1", "made_up_2");
    }
    MetricData ended = metrics.collectAllMetrics().stream().filter(x -> x.getName().equals("toolcall.calls.ended"))
        .findFirst().orElseThrow();
    assertThat(ended.getLongSumData().getPoints())
        .extracting(p -> p.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name")), p -> p.getValue())
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("_OTHER", 3L),
            org.assertj.core.groups.Tuple.tuple("late_tool", 1L));
    SpanData made = named(spans.getFinishedSpanItems(), "execute_tool made_up_1");
    assertThat(attr(made, "gen_ai.tool.name")).isEqualTo("made_up_1");
    assertThat(attr(named(spans.getFinishedSpanItems(), "execute_tool late_tool"), "gen_ai.tool.description"))
        .isEqualTo("reads late_tool");
  }

  /**
   * {@code gen_ai.tool.name} is the registered tool's name, also when the model called it by its alias
   * ({@code fs_read} for {@code fs.read}), and docs/observability.md says so.
   */
  @Test
  void theToolNameIsTheRegisteredNameAndTheDocSaysSo() throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(echo("fs.read"))
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      runtime.schedule("s", List.of(CallRequest.of("a", "fs_read", "{}"))).whenDone().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    }
    SpanData span = named(spans.getFinishedSpanItems(), "execute_tool fs.read");
    assertThat(attr(span, "gen_ai.tool.name")).isEqualTo("fs.read");
    String row = java.nio.file.Files.readAllLines(java.nio.file.Path.of("docs/observability.md")).stream()
        .filter(l -> l.startsWith("| `gen_ai.tool.name` | GenAI |")).findFirst().orElseThrow();
    assertThat(row).contains("registered").doesNotContain("as the model sent it |");
  }

  /**
   * The duration histograms carry the GenAI conventions' bucket advice (0.01 s doubling to 81.92 s), so calls under
   * 5 s do not all land in one bucket; the approval wait's buckets go on doubling to cover a person's answer. The
   * instrumentation scope of spans and metrics has the library's version.
   */
  @Test
  void histogramsUseTheGenAiBucketsAndTheScopeHasAVersion() throws Exception {
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(demoTools())
        .instrumentation(ToolCallTelemetry.create(otel)).build()) {
      Batch b = runtime.schedule("s", List.of(CallRequest.of("a", "read_file", "{}"), CallRequest.of("b", "shell",
          "{}")));
      var r = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
      b.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    List<Double> genAi = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96,
        81.92);
    Map<String, MetricData> m = metrics.collectAllMetrics().stream()
        .collect(Collectors.toMap(MetricData::getName, x -> x));
    assertThat(m.get("gen_ai.execute_tool.duration").getHistogramData().getPoints()).hasSize(2)
        .allSatisfy(p -> assertThat(p.getBoundaries()).isEqualTo(genAi));
    assertThat(m.get("toolcall.permission.wait").getHistogramData().getPoints()).isNotEmpty()
        .allSatisfy(p -> assertThat(p.getBoundaries()).startsWith(genAi.toArray(Double[]::new))
            .contains(163.84, 327.68, 655.36, 1310.72));
    String version = spans.getFinishedSpanItems().get(0).getInstrumentationScopeInfo().getVersion();
    assertThat(version).isNotNull().matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(m.values()).allSatisfy(x -> assertThat(x.getInstrumentationScopeInfo().getVersion())
        .isEqualTo(version));
  }
}
