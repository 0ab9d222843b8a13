package dev.toolcall.otel;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * The names {@link ToolCallTelemetry} records under: its instrumentation scope and version, the span and metric
 * attribute keys (GenAI semantic conventions where they have one, {@code toolcall.*} otherwise) and the histograms'
 * bucket advice. Constants only.
 */
final class TelemetryKeys {

  static final String SCOPE = "dev.toolcall";
  /** What metric attributes carry in place of a tool name the runtime does not know (the model made it up). */
  static final String OTHER_TOOL = "_OTHER";
  /** The longest tool name a registry takes; a name the model made up is cut to it on spans. */
  static final int MAX_NAME = 128;
  /** The GenAI semantic conventions' bucket advice for {@code gen_ai.*.duration} histograms, in seconds. */
  static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12,
      10.24, 20.48, 40.96, 81.92);
  /** The same doubling series, on to about 22 minutes: a person's answer to a permission request. */
  static final List<Double> WAIT_BUCKETS = concat(DURATION_BUCKETS, List.of(163.84, 327.68, 655.36, 1310.72));
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
  static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
  static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
  static final AttributeKey<String> CALL_ID = AttributeKey.stringKey("toolcall.call.id");
  static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
  static final AttributeKey<String> TOOL_DESCRIPTION = AttributeKey.stringKey("gen_ai.tool.description");
  static final AttributeKey<String> TOOL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
  static final AttributeKey<String> TOOL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
  static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("gen_ai.conversation.id");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> SESSION_ID = AttributeKey.stringKey("toolcall.session.id");
  static final AttributeKey<String> PARENT_CALL_ID = AttributeKey.stringKey("toolcall.parent_call.id");
  static final AttributeKey<String> ORIGIN = AttributeKey.stringKey("toolcall.origin");
  static final AttributeKey<String> STATE = AttributeKey.stringKey("toolcall.state");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("toolcall.outcome");
  static final AttributeKey<String> FAILURE_KIND = AttributeKey.stringKey("toolcall.failure.kind");
  static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("toolcall.attempts");
  static final AttributeKey<String> DECIDED_BY = AttributeKey.stringKey("toolcall.permission.decided_by");
  static final AttributeKey<String> DECISION = AttributeKey.stringKey("toolcall.permission.outcome");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("toolcall.permission.request.id");
  static final AttributeKey<Double> WAIT = AttributeKey.doubleKey("toolcall.permission.wait");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("toolcall.retry.attempt");
  static final AttributeKey<Double> DELAY = AttributeKey.doubleKey("toolcall.retry.delay");
  static final AttributeKey<String> FAILURE = AttributeKey.stringKey("toolcall.retry.failure");
  static final AttributeKey<String> CAUSE = AttributeKey.stringKey("toolcall.cancel.cause");
  static final AttributeKey<String> TURN_ENDING = AttributeKey.stringKey("toolcall.turn.reason");
  static final AttributeKey<Long> ROUND_TRIPS = AttributeKey.longKey("toolcall.turn.round_trips");
  static final AttributeKey<String> CONVERSATION_STATE = AttributeKey.stringKey("toolcall.conversation.state");

  private static List<Double> concat(List<Double> a, List<Double> b) {
    List<Double> all = new java.util.ArrayList<>(a);
    all.addAll(b);
    return List.copyOf(all);
  }

  /** The library's version, from the resource the build writes; null when it cannot be read. */
  static final String VERSION = readVersion();

  private static String readVersion() {
    try (java.io.InputStream in = TelemetryKeys.class.getResourceAsStream("/dev/toolcall/toolcall.properties")) {
      if (in == null) {
        return null;
      }
      java.util.Properties p = new java.util.Properties();
      p.load(in);
      String v = p.getProperty("version");
      return v == null || v.isBlank() || v.startsWith("${") ? null : v;
    } catch (java.io.IOException | IllegalArgumentException e) {
      return null;
    }
  }

  private TelemetryKeys() {}
}
