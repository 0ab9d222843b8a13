package dev.toolcall.otel;

import static dev.toolcall.otel.TelemetryKeys.*;

import dev.toolcall.Change;
import dev.toolcall.DenialSource;
import dev.toolcall.runtime.Instrumentation;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ConversationState;
import dev.toolcall.StateDetail;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongUpDownCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * OpenTelemetry spans and metrics for every tool call, approval wait and {@code Agent} turn of one runtime,
 * following the GenAI semantic conventions where they speak ({@code execute_tool} and {@code invoke_agent} spans,
 * {@code gen_ai.*} attributes, {@code gen_ai.execute_tool.duration}) and naming the rest under {@code toolcall.}
 * (see docs/observability.md for every attribute and instrument). Turn it on with one builder call:
 * <pre>{@code
 * ToolCallRuntime runtime = ToolCallRuntime.builder().tools(...)
 *     .instrumentation(ToolCallTelemetry.create(openTelemetry))   // or GlobalOpenTelemetry.get(), explicitly
 *     .build();
 * }</pre>
 *
 * <h2>Spans</h2>
 * One {@code execute_tool {tool}} span (INTERNAL) per call, from its creation to its terminal state, with the
 * library's own timestamps. Its parent is the call it is nested in (resolved by session and id as the core's nesting
 * does, never another session's call of the same id), else the {@code invoke_agent} span of the turn whose
 * conversation the call belongs to, else the context current on the thread that scheduled it.
 * {@code gen_ai.tool.name} is the registered tool's name (an alias the model used is resolved), or for a tool the
 * runtime does not know, the name the model sent (cut to 128 characters). The tool's body
 * runs with the call's span as the current context (on whatever executor), so the tool's own spans nest under it.
 * Span events: the permission was asked; decided (by whom, and the wait); a retry (attempt, delay, failure); a
 * cancellation (its cause). Status ERROR only for FAILED, with {@code error.type}; a denial or a cancellation sets
 * {@code toolcall.outcome} instead. Arguments and results are recorded only with {@link Builder#recordContent}.
 *
 * <h2>Metrics</h2>
 * Metric attributes name only tools the runtime has ({@code _OTHER} for a name the model made up), so the number
 * of series stays bounded. The duration histograms carry explicit bucket advice (the GenAI conventions' for
 * {@code gen_ai.execute_tool.duration}). The instrumentation scope is {@code dev.toolcall} with the library's version.
 *
 * <h2>What is not recorded</h2>
 * <ul>
 *   <li>Model requests: there is no {@code chat} span; the model client's own instrumentation (the provider SDK's,
 *       LangChain4j's, Spring AI's) records those, and they nest under {@code invoke_agent} when it runs on the
 *       turn's thread.</li>
 *   <li>Turns not driven by an {@link dev.toolcall.conversation.Agent}: a LangChain4j {@code AiServices} invocation
 *       or a Spring AI {@code ChatClient} request has no {@code invoke_agent} span; its calls go under the context
 *       current on the thread that scheduled them.</li>
 *   <li>Tool-set changes ({@code ToolSetEvent}), the text of live output (only the count of dropped writes), and
 *       arguments and results unless {@link Builder#recordContent} is set.</li>
 *   <li>Calls restored from a snapshot ({@code ToolCallRuntime.restore} after a restart, or a call another instance
 *       left that a shared store hands over): no creation event is published for a restored version, so such a
 *       call has no span, and its later events are skipped.</li>
 * </ul>
 *
 * <h2>Threads and lost races</h2>
 * Thread-safe. It listens inline on the runtime's bus, so it sees each call's changes in order, exactly once, on the
 * thread that made them; a change that lost its compare-and-set published nothing and is not seen. The bus runs an
 * inline listener one event at a time, so threads publishing at once take turns through it: its work per event is a
 * few map look-ups and OpenTelemetry calls (exporting happens on the SDK's own threads). Every span it starts is
 * ended: at the call's terminal event, or at the latest when the runtime closes. One instance serves one runtime,
 * which calls {@link #attach} once as it is built; an instance installed on two runtimes would read the tool set of
 * the last one only, and the first to close would end the other's spans: build one per runtime.
 *
 * <h2>Failures</h2>
 * It never fails a call or a turn. An exception thrown inside it (by an OpenTelemetry SDK, say) is caught by the bus,
 * logged at WARN by {@code dev.toolcall.event.EventBus} with the event that caused it, and the call goes on; a span
 * whose start failed is then missing, and that call's later events are skipped. A failure in {@link #close()} is
 * logged at WARN by the runtime, which closes the rest. With the OpenTelemetry API and no SDK, nothing is recorded.
 */
public final class ToolCallTelemetry implements Instrumentation {


  private final Tracer tracer;
  private final int contentLimit; // < 0: content is not recorded
  private final DoubleHistogram duration;
  private final DoubleHistogram approvalWait;
  private final LongCounter ended;
  private final LongUpDownCounter inFlight;
  private final LongUpDownCounter pendingRequests;
  private final LongCounter retries;
  private final LongCounter outputDropped;

  /** Open spans of calls, by session and call id. */
  private final Map<Key, Open> calls = new ConcurrentHashMap<>();
  /** Open turn spans, by conversation id. */
  private final Map<String, Turn> turns = new ConcurrentHashMap<>();
  private volatile ToolCallRuntime runtime;
  private volatile Subscription subscription;

  /** An open turn span and the span context it was started under (the call a sub-agent runs in, if any). */
  private record Turn(Span span, SpanContext parent) {}

  private record Key(String sessionId, String callId) {}

  /** What is known of a call whose span is open. */
  private static final class Open {
    final Span span;
    final String metricTool; // the tool's name, or OTHER_TOOL for a name the runtime does not know
    final Attributes toolAttributes;
    final long createdTick;
    long askedTick; // ticks of entering PERMISSION_PENDING; guarded by the bus's per-call order
    long dropped;
    volatile boolean running; // in RUNNING: it may have nested calls; read by other calls' creation

    Open(Span span, String metricTool, long createdTick) {
      this.span = span;
      this.metricTool = metricTool;
      this.toolAttributes = Attributes.of(TOOL_NAME, metricTool);
      this.createdTick = createdTick;
    }
  }

  private ToolCallTelemetry(Builder b) {
    var tracerBuilder = b.otel.getTracerProvider().tracerBuilder(SCOPE);
    var meterBuilder = b.otel.getMeterProvider().meterBuilder(SCOPE);
    if (VERSION != null) {
      tracerBuilder.setInstrumentationVersion(VERSION);
      meterBuilder.setInstrumentationVersion(VERSION);
    }
    this.tracer = tracerBuilder.build();
    this.contentLimit = b.contentLimit;
    Meter meter = meterBuilder.build();
    this.duration = meter.histogramBuilder("gen_ai.execute_tool.duration").setUnit("s")
        .setDescription("Time from a tool call's creation to its terminal state.")
        .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS).build();
    this.approvalWait = meter.histogramBuilder("toolcall.permission.wait").setUnit("s")
        .setDescription("Time a permission request waited for its decision.")
        .setExplicitBucketBoundariesAdvice(WAIT_BUCKETS).build();
    this.ended = meter.counterBuilder("toolcall.calls.ended").setUnit("{call}")
        .setDescription("Tool calls that reached a terminal state.").build();
    this.inFlight = meter.upDownCounterBuilder("toolcall.calls.in_flight").setUnit("{call}")
        .setDescription("Tool calls not yet terminal, by state.").build();
    this.pendingRequests = meter.upDownCounterBuilder("toolcall.permission.pending").setUnit("{request}")
        .setDescription("Permission requests waiting for a decision.").build();
    this.retries = meter.counterBuilder("toolcall.retries").setUnit("{retry}")
        .setDescription("Retries scheduled after a transient tool failure.").build();
    this.outputDropped = meter.counterBuilder("toolcall.output.dropped").setUnit("{write}")
        .setDescription("Live-output writes dropped or coalesced by the output buffer.").build();
  }

  /**
   * Telemetry on {@code openTelemetry}, recording no arguments or results.
   *
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static ToolCallTelemetry create(OpenTelemetry openTelemetry) {
    return builder(openTelemetry).build();
  }

  /**
   * A builder on {@code openTelemetry} (pass {@code GlobalOpenTelemetry.get()} to use the global one: this class
   * never reads the global instance itself).
   *
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(openTelemetry);
  }

  /**
   * Subscribes inline to {@code runtime}'s events and remembers it, to tell registered tools from made-up names. The
   * runtime calls this once as it is built, before any call; an application does not.
   *
   * @throws NullPointerException if {@code runtime} is null
   */
  @Override
  public void attach(ToolCallRuntime runtime) {
    Objects.requireNonNull(runtime, "runtime");
    this.runtime = runtime;
    this.subscription = runtime.events().subscribe(new Listener());
  }

  /**
   * Makes the call's {@code execute_tool} span the current OpenTelemetry context on the thread that runs the tool's
   * body, until the scope closes, so the tool's own spans nest under it. {@link Instrumentation.Scope#NONE} when the
   * call has no open span (created before {@link #attach}, or already ended). The scheduler calls it; an application
   * does not.
   */
  @Override
  public Instrumentation.Scope enterTool(ToolCallSnapshot call) {
    Open o = calls.get(new Key(call.identity().sessionId(), call.callId()));
    if (o == null) {
      return Instrumentation.Scope.NONE;
    }
    io.opentelemetry.context.Scope s = Context.current().with(o.span).makeCurrent();
    return s::close;
  }

  /**
   * Unsubscribes, then ends every span still open (calls in flight when the runtime closed, with
   * {@code toolcall.outcome = runtime_closed}; turns under way, with {@code toolcall.turn.reason = runtime_closed}).
   * The runtime calls it when it closes; the metrics already recorded stay, and exporting them is the SDK's job.
   */
  @Override
  public void close() {
    Subscription s = subscription;
    if (s != null) {
      s.close();
    }
    for (Map.Entry<Key, Open> e : calls.entrySet()) {
      if (calls.remove(e.getKey(), e.getValue())) {
        e.getValue().span.setAttribute(OUTCOME, "runtime_closed");
        e.getValue().span.end();
      }
    }
    for (Map.Entry<String, Turn> e : turns.entrySet()) {
      if (turns.remove(e.getKey(), e.getValue())) {
        e.getValue().span.setAttribute(TURN_ENDING, "runtime_closed");
        e.getValue().span.end();
      }
    }
  }

  /** Names the tracer, for logs. */
  @Override
  public String toString() {
    return "ToolCallTelemetry[" + tracer + "]";
  }

  // --- events -----------------------------------------------------------------------------------------------------

  private final class Listener implements EventListener {
    @Override
    public void onCallCreated(ToolCallEvent.CallCreated e) {
      created(e.snapshot());
    }

    @Override
    public void onStateChanged(ToolCallEvent.StateChanged e) {
      changed(e);
    }

    @Override
    public void onRetryScheduled(ToolCallEvent.RetryScheduled e) {
      retry(e);
    }

    @Override
    public void onOutputAppended(ToolCallEvent.OutputAppended e) {
      Open o = calls.get(key(e.snapshot()));
      long dropped = e.change().droppedTotal();
      if (o != null && dropped > o.dropped) {
        outputDropped.add(dropped - o.dropped, o.toolAttributes);
        o.dropped = dropped;
      }
    }

    @Override
    public void onArgumentsModified(ToolCallEvent.ArgumentsModified e) {
      Open o = calls.get(key(e.snapshot()));
      if (o != null && contentLimit >= 0) {
        o.span.setAttribute(TOOL_ARGUMENTS, truncate(e.snapshot().arguments().raw()));
      }
    }

    @Override
    public void onConversationEvent(ConversationEvent e) {
      conversation(e);
    }
  }

  private static Key key(ToolCallSnapshot s) {
    return new Key(s.identity().sessionId(), s.callId());
  }

  private void created(ToolCallSnapshot s) {
    ToolCallRuntime rt = runtime;
    Optional<dev.toolcall.tool.Tool> registered = rt == null ? Optional.empty() : rt.registry().find(s.toolName());
    // the registered name (an alias the model used is resolved), else as the model sent it, cut to the 128
    // characters a real tool name may have
    String tool = registered.isPresent() ? s.toolName() : cut(s.toolName(), MAX_NAME);
    String metricTool = registered.isPresent() ? tool : OTHER_TOOL;
    var b = tracer.spanBuilder("execute_tool " + tool).setSpanKind(SpanKind.INTERNAL)
        .setParent(parentOf(s)).setStartTimestamp(s.timestamp())
        .setAttribute(OPERATION, "execute_tool").setAttribute(TOOL_NAME, tool)
        .setAttribute(TOOL_CALL_ID, s.identity().label().isEmpty() ? s.callId() : s.identity().label())
        .setAttribute(TOOL_TYPE, "function")
        .setAttribute(SESSION_ID, s.identity().sessionId())
        .setAttribute(ORIGIN, s.identity().origin().name().toLowerCase(java.util.Locale.ROOT));
    if (!s.identity().label().equals(s.callId())) { // the library minted the id: both are shown
      b.setAttribute(CALL_ID, s.callId());
    }
    registered.ifPresent(t -> {
      if (!t.definition().description().isEmpty()) {
        b.setAttribute(TOOL_DESCRIPTION, t.definition().description());
      }
    });
    s.identity().parent().ifPresent(p -> b.setAttribute(PARENT_CALL_ID, p));
    if (contentLimit >= 0) {
      b.setAttribute(TOOL_ARGUMENTS, truncate(s.arguments().raw()));
    }
    Open o = new Open(b.startSpan(), metricTool, s.tick());
    calls.put(key(s), o);
    inFlight.add(1, Attributes.of(TOOL_NAME, metricTool, STATE, ToolCallState.PENDING.wireName()));
  }

  /**
   * The call it is nested in, else its conversation's turn, else the scheduling thread's context. A nested call
   * names its parent by id only; as the core's nesting does, the parent is the call of that id in its own session,
   * else the only running call of that id in any session (a sub-agent runs in a session of its own). When several
   * sessions run a call of that id, it is the one its session's turn was started in (a sub-agent's turn starts in
   * its parent call's span), else the one current on this thread; when none can be told apart, none.
   */
  private Context parentOf(ToolCallSnapshot s) {
    String parentId = s.identity().parentCallId();
    String session = s.identity().sessionId();
    Turn turn = turns.get(session);
    if (parentId != null) {
      Open same = calls.get(new Key(session, parentId));
      if (same != null) {
        return Context.current().with(same.span);
      }
      Open only = null;
      Open byTurn = null;
      Open byContext = null;
      int running = 0;
      SpanContext current = Span.current().getSpanContext();
      for (Map.Entry<Key, Open> e : calls.entrySet()) {
        Open o = e.getValue();
        if (!e.getKey().callId().equals(parentId) || !o.running) {
          continue;
        }
        running++;
        only = o;
        SpanContext c = o.span.getSpanContext();
        if (turn != null && c.equals(turn.parent)) {
          byTurn = o;
        }
        if (c.equals(current)) {
          byContext = o;
        }
      }
      Open parent = running == 1 ? only : byTurn != null ? byTurn : byContext;
      if (parent != null) {
        return Context.current().with(parent.span);
      }
    }
    if (turn != null) {
      return Context.current().with(turn.span);
    }
    return Context.current();
  }

  private void changed(ToolCallEvent.StateChanged e) {
    ToolCallSnapshot s = e.snapshot();
    Open o = calls.get(key(s));
    if (o == null) {
      return;
    }
    String tool = o.metricTool;
    ToolCallState from = e.from();
    ToolCallState to = e.to();
    o.running = to == ToolCallState.RUNNING;
    inFlight.add(-1, Attributes.of(TOOL_NAME, tool, STATE, from.wireName()));
    if (!to.isTerminal()) {
      inFlight.add(1, Attributes.of(TOOL_NAME, tool, STATE, to.wireName()));
    }
    if (to == ToolCallState.PERMISSION_PENDING) {
      o.askedTick = s.tick();
      pendingRequests.add(1, o.toolAttributes);
      var attrs = Attributes.builder();
      if (s.change() instanceof Change.PermissionAsked a) {
        attrs.put(REQUEST_ID, a.requestId());
      }
      o.span.addEvent("toolcall.permission.asked", attrs.build(), s.timestamp());
    } else if (from == ToolCallState.PERMISSION_PENDING) {
      pendingRequests.add(-1, o.toolAttributes);
      decided(o, s, to, (s.tick() - o.askedTick) / 1e9);
    } else if (from == ToolCallState.PENDING && to == ToolCallState.PERMISSION_APPROVED) {
      decided(o, s, to, 0); // approved without asking: by a rule, a grant, the mode or a hook
    }
    if (to.isTerminal()) {
      terminal(o, s);
    }
  }

  private void decided(Open o, ToolCallSnapshot s, ToolCallState to, double waitSeconds) {
    String outcome;
    String by;
    String code = s.change() instanceof Reason r ? r.code() : "";
    switch (to) {
      case PERMISSION_APPROVED:
        outcome = "approved";
        by = code.equals(Reason.AUTO_APPROVED.code()) ? autoSource(((Reason) s.change()).message()) : "user";
        break;
      case PERMISSION_DENIED: {
        DenialSource src = s.outcome() instanceof Outcome.Denied d ? d.source() : DenialSource.USER;
        outcome = src == DenialSource.TIMEOUT ? "timeout" : "denied";
        by = src == DenialSource.TIMEOUT ? "timeout" : src == DenialSource.POLICY ? "policy" : "user";
        break;
      }
      default:
        outcome = "cancelled";
        by = "cancel";
        break;
    }
    Attributes a = Attributes.of(TOOL_NAME, o.metricTool, DECISION, outcome, DECIDED_BY, by);
    approvalWait.record(waitSeconds, a);
    o.span.addEvent("toolcall.permission.decided", Attributes.of(DECISION, outcome, DECIDED_BY, by, WAIT,
        waitSeconds), s.timestamp());
  }

  /** Who approved without asking, from the auto-approval's message ("auto-approved by rule ..."). */
  private static String autoSource(String message) {
    String m = message == null ? "" : message;
    if (m.contains("by hook")) {
      return "hook";
    }
    if (m.contains("grant")) {
      return "grant";
    }
    if (m.contains("approval mode") || m.contains("all calls allowed")) {
      return "mode";
    }
    if (m.contains("rule")) {
      return "rule";
    }
    return "policy";
  }

  private void terminal(Open o, ToolCallSnapshot s) {
    if (!calls.remove(key(s), o)) {
      return;
    }
    Span span = o.span;
    Outcome outcome = s.outcome();
    String state = s.state().wireName();
    var metric = Attributes.builder().put(TOOL_NAME, o.metricTool).put(STATE, state);
    span.setAttribute(STATE, state);
    if (s.attempt() > 1) {
      span.setAttribute(ATTEMPTS, (long) s.attempt());
    }
    if (outcome instanceof Outcome.Failed f) {
      String kind = kindName(f.kind());
      span.setStatus(StatusCode.ERROR, f.message());
      span.setAttribute(ERROR_TYPE, kind);
      span.setAttribute(OUTCOME, "failed");
      span.setAttribute(FAILURE_KIND, kind);
      metric.put(FAILURE_KIND, kind).put(ERROR_TYPE, kind);
    } else if (outcome instanceof Outcome.Denied d) {
      span.setAttribute(OUTCOME, "denied");
    } else if (outcome instanceof Outcome.Cancelled c) {
      span.setAttribute(OUTCOME, "cancelled");
      span.addEvent("toolcall.cancelled", Attributes.of(CAUSE, c.reason()), s.timestamp());
    } else if (outcome instanceof Outcome.Completed c) {
      span.setAttribute(OUTCOME, "completed");
      if (contentLimit >= 0) {
        span.setAttribute(TOOL_RESULT, truncate(c.content()));
      }
    }
    if (contentLimit >= 0) {
      span.setAttribute(TOOL_ARGUMENTS, truncate(s.arguments().raw()));
    }
    Attributes m = metric.build();
    ended.add(1, m);
    Attributes d = outcome instanceof Outcome.Failed f
        ? Attributes.of(TOOL_NAME, o.metricTool, ERROR_TYPE, kindName(f.kind())) : o.toolAttributes;
    duration.record((s.tick() - o.createdTick) / 1e9, d);
    span.end(s.timestamp());
  }

  private void retry(ToolCallEvent.RetryScheduled e) {
    Open o = calls.get(key(e.snapshot()));
    if (o == null) {
      return;
    }
    Change.RetryScheduled r = e.change();
    retries.add(1, o.toolAttributes);
    o.span.addEvent("toolcall.retry", Attributes.of(ATTEMPT, (long) r.nextAttempt(), DELAY,
        r.delay().toNanos() / 1e9, FAILURE, truncateAlways(r.failure())), e.snapshot().timestamp());
  }

  private void conversation(ConversationEvent e) {
    String id = e.conversationId();
    if (e.isCreation()) {
      return;
    }
    ConversationState to = e.to();
    ConversationState from = e.from();
    Instant at = e.snapshot().timestamp();
    if (to == ConversationState.PROCESSING_USER_MESSAGE
        && (from == ConversationState.IDLE || from == ConversationState.FAILED)) {
      Span started = tracer.spanBuilder("invoke_agent").setSpanKind(SpanKind.INTERNAL).setParent(Context.current())
          .setStartTimestamp(at).setAttribute(OPERATION, "invoke_agent").setAttribute(CONVERSATION_ID, id)
          .startSpan();
      Turn old = turns.put(id, new Turn(started, Span.current().getSpanContext()));
      if (old != null) {
        old.span.end(at);
      }
    }
    Turn open = turns.get(id);
    if (open == null) {
      return;
    }
    Span turn = open.span;
    turn.addEvent("toolcall.conversation.state", Attributes.of(CONVERSATION_STATE, to.wireName()), at);
    if (to == ConversationState.IDLE || to == ConversationState.FAILED) {
      if (!turns.remove(id, open)) {
        return;
      }
      turn.setAttribute(TURN_ENDING, e.reason().code());
      turn.setAttribute(ROUND_TRIPS, (long) e.snapshot().roundTrips());
      if (to == ConversationState.FAILED) {
        String error = e.snapshot().detail() instanceof StateDetail.Failure f ? f.error() : "the turn failed";
        turn.setStatus(StatusCode.ERROR, error);
        turn.setAttribute(ERROR_TYPE, "turn_failed");
      }
      turn.end(at);
    }
  }

  private static String kindName(dev.toolcall.FailureKind k) {
    return k.name().toLowerCase(java.util.Locale.ROOT);
  }

  private String truncate(String s) {
    return cut(s, contentLimit);
  }

  private static String truncateAlways(String s) {
    return cut(s, 256);
  }

  /**
   * {@code s} cut to at most {@code max} UTF-16 units and marked with an ellipsis, never between the two halves of a
   * surrogate pair (the cut moves one unit back instead).
   */
  static String cut(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int end = max > 0 && Character.isHighSurrogate(s.charAt(max - 1)) && Character.isLowSurrogate(s.charAt(max))
        ? max - 1 : max;
    return s.substring(0, end) + "…";
  }

  /** Builds a {@link ToolCallTelemetry}; not thread-safe: use it on one thread, then share what it builds. */
  public static final class Builder {
    private final OpenTelemetry otel;
    private int contentLimit = -1;

    private Builder(OpenTelemetry otel) {
      this.otel = Objects.requireNonNull(otel, "openTelemetry");
    }

    /**
     * Records arguments ({@code gen_ai.tool.call.arguments}) and results ({@code gen_ai.tool.call.result}) on the
     * spans, each cut to {@code maxChars} characters. Off by default: they may hold secrets.
     *
     * @throws IllegalArgumentException if {@code maxChars} is negative
     */
    public Builder recordContent(int maxChars) {
      if (maxChars < 0) {
        throw new IllegalArgumentException("maxChars must be >= 0, was " + maxChars);
      }
      this.contentLimit = maxChars;
      return this;
    }

    /**
     * The telemetry; install it with {@code ToolCallRuntime.Builder.instrumentation}, on one runtime. Its tracer and
     * instruments are created here, from the scope {@code dev.toolcall}; each call builds a new instance.
     */
    public ToolCallTelemetry build() {
      return new ToolCallTelemetry(this);
    }
  }
}
