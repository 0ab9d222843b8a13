package dev.toolcall.demo;

import dev.toolcall.otel.ToolCallTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The demo's {@code --trace}: an OpenTelemetry SDK that keeps every finished span in memory, and the turn's span
 * tree as text, so a person sees the trace without a backend. Also used to generate docs/observability.md.
 */
final class Trace implements AutoCloseable {
  private final List<SpanData> finished = new CopyOnWriteArrayList<>();
  private final OpenTelemetrySdk sdk;

  Trace() {
    SpanExporter keep = new SpanExporter() {
      @Override
      public CompletableResultCode export(Collection<SpanData> spans) {
        finished.addAll(spans);
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
    sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
        .addSpanProcessor(SimpleSpanProcessor.create(keep)).build()).build();
  }

  /** The instrumentation to install on the runtime. */
  ToolCallTelemetry telemetry() {
    return ToolCallTelemetry.create(sdk);
  }

  List<SpanData> spans() {
    return List.copyOf(finished);
  }

  @Override
  public void close() {
    sdk.close();
  }

  /**
   * The spans as an indented tree: each span's name, its key attributes and its events, children under their
   * parent in the order they started (then by name), durations left out so the text is the same run after run.
   */
  static String tree(List<SpanData> spans) {
    Map<String, List<SpanData>> children = new HashMap<>();
    List<SpanData> roots = new ArrayList<>();
    Map<String, SpanData> byId = new HashMap<>();
    for (SpanData s : spans) {
      byId.put(s.getSpanId(), s);
    }
    for (SpanData s : spans) {
      if (s.getParentSpanContext().isValid() && byId.containsKey(s.getParentSpanId())) {
        children.computeIfAbsent(s.getParentSpanId(), k -> new ArrayList<>()).add(s);
      } else {
        roots.add(s);
      }
    }
    StringBuilder out = new StringBuilder();
    for (SpanData r : sorted(roots)) {
      append(out, r, children, 0);
    }
    return out.toString();
  }

  private static List<SpanData> sorted(List<SpanData> spans) {
    List<SpanData> copy = new ArrayList<>(spans);
    copy.sort(Comparator.comparing((SpanData s) -> key(s, "gen_ai.tool.call.id"))
        .thenComparing(s -> key(s, "gen_ai.conversation.id")).thenComparing(SpanData::getName));
    return copy;
  }

  private static String key(SpanData s, String attribute) {
    String v = s.getAttributes().get(AttributeKey.stringKey(attribute));
    return v == null ? "" : v;
  }

  private static void append(StringBuilder out, SpanData s, Map<String, List<SpanData>> children, int depth) {
    String indent = "  ".repeat(depth);
    out.append(indent).append(s.getName());
    List<String> attrs = new ArrayList<>();
    for (String k : List.of("gen_ai.conversation.id", "gen_ai.tool.call.id", "toolcall.outcome", "error.type",
        "toolcall.turn.reason")) {
      String v = key(s, k);
      if (!v.isEmpty()) {
        attrs.add(k + "=" + v);
      }
    }
    if (s.getStatus().getStatusCode() == io.opentelemetry.api.trace.StatusCode.ERROR) {
      attrs.add("status=ERROR");
    }
    if (!attrs.isEmpty()) {
      out.append("  [").append(String.join(", ", attrs)).append(']');
    }
    out.append('\n');
    for (EventData e : s.getEvents()) {
      if (e.getName().equals("toolcall.conversation.state")) {
        continue; // one per state change of the turn: too many for a picture
      }
      out.append(indent).append("  · ").append(e.getName());
      String by = e.getAttributes().get(AttributeKey.stringKey("toolcall.permission.decided_by"));
      String outcome = e.getAttributes().get(AttributeKey.stringKey("toolcall.permission.outcome"));
      Long attempt = e.getAttributes().get(AttributeKey.longKey("toolcall.retry.attempt"));
      if (outcome != null) {
        out.append(" (").append(outcome).append(outcome.equals(by) ? "" : " by " + by).append(')');
      }
      if (attempt != null) {
        out.append(" (attempt ").append(attempt).append(')');
      }
      out.append('\n');
    }
    for (SpanData c : sorted(children.getOrDefault(s.getSpanId(), List.of()))) {
      append(out, c, children, depth + 1);
    }
  }
}
