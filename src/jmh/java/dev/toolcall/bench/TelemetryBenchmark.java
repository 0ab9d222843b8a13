package dev.toolcall.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.otel.ToolCallTelemetry;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The whole path of {@link WholePathBenchmark#toolcallRuntime} (one call through {@code ToolCallRuntime.schedule},
 * the same tool, schema and arguments), with telemetry: {@code none} (no instrumentation), {@code noop}
 * ({@link ToolCallTelemetry} on {@link OpenTelemetry#noop()}), {@code sdk} (the OpenTelemetry SDK with a simple span
 * processor into an exporter that keeps the spans in memory, and a meter provider). The difference is what telemetry
 * costs per call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class TelemetryBenchmark {

  @Param({"none", "noop", "sdk"})
  public String telemetry;

  private final ObjectMapper mapper = new ObjectMapper();
  private ToolCallRuntime runtime;
  private OpenTelemetrySdk sdk;
  private final LongAdder exported = new LongAdder();
  private long ids;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dev.toolcall.tool.Tool tool = dev.toolcall.tool.Tool.of(ToolDefinition.builder("write_file")
        .description("Writes a file").parameters(mapper.readTree(WholePathBenchmark.SCHEMA_B)).requiresApproval(false)
        .build(), inv -> {
          JsonNode a = inv.arguments().asJson();
          return ToolResult.of(WholePathBenchmark.writeFile(a.get("path").asText(), a.get("content").asText(),
              a.path("overwrite").asBoolean(false)));
        });
    ToolCallRuntime.Builder b = ToolCallRuntime.builder().tools(tool).scheduler(s -> s.executor(Runnable::run));
    if (telemetry.equals("noop")) {
      b.instrumentation(ToolCallTelemetry.create(OpenTelemetry.noop()));
    } else if (telemetry.equals("sdk")) {
      SpanExporter keep = new SpanExporter() {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
          exported.add(spans.size());
          return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
          return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
          return CompletableResultCode.ofSuccess();
        }
      };
      sdk = OpenTelemetrySdk.builder()
          .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(keep)).build())
          .setMeterProvider(SdkMeterProvider.builder().build()).build();
      b.instrumentation(ToolCallTelemetry.create(sdk));
    }
    runtime = b.build();
    String got = toolcallRuntime();
    if (!got.startsWith("wrote")) {
      throw new IllegalStateException("unexpected result " + got);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runtime.close();
    if (sdk != null) {
      sdk.close();
      if (exported.sum() == 0) {
        throw new IllegalStateException("the SDK exported no span");
      }
    }
  }

  @Benchmark
  public String toolcallRuntime() {
    return runtime.schedule("session-1", List.of(CallRequest.of("call_" + (ids++), "write_file",
        WholePathBenchmark.ARGS_B))).join().get(0).messageForModel();
  }
}
