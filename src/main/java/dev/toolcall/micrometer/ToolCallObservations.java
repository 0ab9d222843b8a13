package dev.toolcall.micrometer;

import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.runtime.Instrumentation;
import dev.toolcall.runtime.ToolCallRuntime;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer {@link Observation}s of every tool call and every approval wait of one runtime, so that an application
 * with an {@link ObservationRegistry} (Spring Boot's, with Actuator) sees them as timers in its metrics and as spans
 * in its tracing, beside Spring AI's own chat observations, with no OpenTelemetry code. Turn it on with one builder
 * call (Spring Boot does it for you: {@link ToolCallObservationAutoConfiguration}):
 * <pre>{@code
 * ToolCallRuntime runtime = ToolCallRuntime.builder().tools(...)
 *     .instrumentation(ToolCallObservations.create(observationRegistry))
 *     .build();
 * }</pre>
 *
 * <h2>Observations</h2>
 * <ul>
 *   <li>{@value #TOOL_CALL}, contextual name (span name) {@code execute_tool {tool}}: one per call, from its creation
 *       to its terminal state. Its parent is the observation of the call it is nested in, else the observation
 *       current on the thread that created the call (a Spring AI chat model's, when the manager runs there). The
 *       tool's body runs with it as the current observation ({@link #enterTool}), so what the tool observes nests
 *       under it. Low-cardinality keys (tags of its timer, the same set on every one): {@code gen_ai.operation.name}
 *       = {@code execute_tool}, {@code gen_ai.tool.name} (the registered name; {@code _OTHER} for a name the model
 *       made up, so series stay bounded), {@code gen_ai.tool.type} = {@code function}, {@code toolcall.state} (the
 *       terminal state), {@code toolcall.outcome} ({@code completed}, {@code failed}, {@code denied},
 *       {@code cancelled}, {@code runtime_closed}), {@code error.type} (the failure kind, {@code none} unless
 *       failed). High-cardinality keys (span attributes only): {@code gen_ai.tool.call.id}, {@code toolcall.call.id},
 *       {@code toolcall.session.id}, {@code gen_ai.tool.description}, {@code toolcall.parent_call.id}. A retry is an
 *       event named {@code retry} (a counter {@code gen_ai.execute_tool.retry} with Micrometer's meter handler).</li>
 *   <li>{@value #PERMISSION_WAIT}, contextual name {@code permission_wait {tool}}: one per time a call waits in
 *       {@code permission_pending}, a child of the call's observation. Low-cardinality keys: {@code gen_ai.tool.name},
 *       {@code toolcall.permission.outcome} ({@code approved}, {@code denied}, {@code timeout}, {@code cancelled},
 *       {@code runtime_closed}), {@code toolcall.permission.decided_by} ({@code user}, {@code policy},
 *       {@code timeout}, {@code cancel}, {@code runtime}). High-cardinality: {@code toolcall.permission.request.id}.
 *       A call approved without asking (a rule, a grant, a mode) has no wait.</li>
 * </ul>
 * Arguments and results are never recorded. Customize names and keys with the registry's
 * {@code ObservationFilter}s, or switch them off with an {@code ObservationPredicate} (in Spring Boot:
 * {@code management.observations.enable.gen_ai.execute_tool=false}).
 *
 * <h2>Threads, order and lost races</h2>
 * Thread-safe. It listens inline on the runtime's bus, so it sees each call's changes in order, exactly once, on the
 * thread that made them, and starts and stops the observations there; a change that lost its compare-and-set
 * published nothing and is not seen. Every observation it starts is stopped: at the call's terminal event, when the
 * wait ends, or at the latest when the runtime closes. Calls restored from a snapshot or handed over by a shared
 * store published no creation event and are not observed. One instance serves one runtime (it reads that runtime's
 * tool set): build one per runtime.
 *
 * <h2>Failures</h2>
 * It never fails a call. An exception from a handler of the registry is caught by the bus and logged at WARN by
 * {@code dev.toolcall.event.EventBus}, and the call goes on (that call's observation may then stay unstopped until
 * the runtime closes). With {@link ObservationRegistry#NOOP} nothing is recorded.
 */
public final class ToolCallObservations implements Instrumentation {

  /** The name of a tool call's observation (its timer's name). */
  public static final String TOOL_CALL = "gen_ai.execute_tool";
  /** The name of a permission wait's observation. */
  public static final String PERMISSION_WAIT = "toolcall.permission.wait";
  /** What metric tags carry in place of a tool name the runtime does not know. */
  static final String OTHER_TOOL = "_OTHER";

  private final ObservationRegistry registry;
  /** Open call observations, by session and call id. */
  private final Map<Key, Open> calls = new ConcurrentHashMap<>();
  private volatile ToolCallRuntime runtime;
  private volatile Subscription subscription;

  private record Key(String sessionId, String callId) {}

  /** A call's open observation and, while it waits for a person, the wait's. */
  private static final class Open {
    final Observation call;
    final ToolCallObservationContext context;
    volatile Observation wait; // set and cleared by the call's own events, in order
    volatile boolean running;

    Open(Observation call, ToolCallObservationContext context) {
      this.call = call;
      this.context = context;
    }
  }

  private ToolCallObservations(ObservationRegistry registry) {
    this.registry = registry;
  }

  /**
   * Observations on {@code registry}.
   *
   * @throws NullPointerException if {@code registry} is null
   */
  public static ToolCallObservations create(ObservationRegistry registry) {
    return new ToolCallObservations(Objects.requireNonNull(registry, "registry"));
  }

  /**
   * Subscribes inline to {@code runtime}'s events. The runtime calls this once as it is built, before any call; an
   * application does not.
   *
   * @throws NullPointerException if {@code runtime} is null
   */
  @Override
  public void attach(ToolCallRuntime runtime) {
    this.runtime = Objects.requireNonNull(runtime, "runtime");
    this.subscription = runtime.events().subscribe(new Listener());
  }

  /**
   * Makes the call's observation the current one on the thread that runs the tool's body, until the scope closes.
   * {@link Instrumentation.Scope#NONE} when the call is not observed. The scheduler calls it; an application does not.
   */
  @Override
  public Instrumentation.Scope enterTool(ToolCallSnapshot call) {
    Open o = calls.get(new Key(call.identity().sessionId(), call.callId()));
    if (o == null) {
      return Instrumentation.Scope.NONE;
    }
    Observation.Scope s = o.call.openScope();
    return s::close;
  }

  /**
   * Unsubscribes, then stops every observation still open ({@code runtime_closed}). The runtime calls it when it
   * closes.
   */
  @Override
  public void close() {
    Subscription s = subscription;
    if (s != null) {
      s.close();
    }
    for (Map.Entry<Key, Open> e : calls.entrySet()) {
      Open o = e.getValue();
      if (calls.remove(e.getKey(), o)) {
        stopWait(o, o.context.snapshot(), "runtime_closed", "runtime");
        o.call.lowCardinalityKeyValue("toolcall.state", o.context.snapshot().state().wireName())
            .lowCardinalityKeyValue("toolcall.outcome", "runtime_closed")
            .lowCardinalityKeyValue("error.type", "none").stop();
      }
    }
  }

  /** Names the registry, for logs. */
  @Override
  public String toString() {
    return "ToolCallObservations[" + registry + "]";
  }

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
      Open o = calls.get(key(e.snapshot()));
      if (o != null) {
        o.call.event(Observation.Event.of("retry", "a retry after a transient failure"));
      }
    }
  }

  private static Key key(ToolCallSnapshot s) {
    return new Key(s.identity().sessionId(), s.callId());
  }

  private void created(ToolCallSnapshot s) {
    ToolCallRuntime rt = runtime;
    Optional<dev.toolcall.tool.Tool> registered = rt == null ? Optional.empty() : rt.registry().find(s.toolName());
    String tool = registered.isPresent() ? s.toolName() : OTHER_TOOL;
    ToolCallObservationContext context = new ToolCallObservationContext(tool, s);
    Observation parent = parentOf(s);
    Observation o = Observation.createNotStarted(TOOL_CALL, () -> context, registry)
        .contextualName("execute_tool " + tool)
        .lowCardinalityKeyValue("gen_ai.operation.name", "execute_tool")
        .lowCardinalityKeyValue("gen_ai.tool.name", tool)
        .lowCardinalityKeyValue("gen_ai.tool.type", "function")
        .highCardinalityKeyValue("gen_ai.tool.call.id",
            s.identity().label().isEmpty() ? s.callId() : s.identity().label())
        .highCardinalityKeyValue("toolcall.call.id", s.callId())
        .highCardinalityKeyValue("toolcall.session.id", s.identity().sessionId());
    registered.map(t -> t.definition().description()).filter(d -> !d.isEmpty())
        .ifPresent(d -> o.highCardinalityKeyValue("gen_ai.tool.description", d));
    s.identity().parent().ifPresent(p -> o.highCardinalityKeyValue("toolcall.parent_call.id", p));
    if (parent != null) {
      o.parentObservation(parent);
    }
    calls.put(key(s), new Open(o.start(), context));
  }

  /**
   * The observation of the call this one is nested in (of that id in its own session, else the only running call
   * of that id), else the one current on this thread.
   */
  private Observation parentOf(ToolCallSnapshot s) {
    String parentId = s.identity().parentCallId();
    if (parentId != null) {
      Open same = calls.get(new Key(s.identity().sessionId(), parentId));
      if (same != null) {
        return same.call;
      }
      Open only = null;
      int running = 0;
      for (Map.Entry<Key, Open> e : calls.entrySet()) {
        if (e.getKey().callId().equals(parentId) && e.getValue().running) {
          running++;
          only = e.getValue();
        }
      }
      if (running == 1) {
        return only.call;
      }
    }
    return registry.getCurrentObservation();
  }

  private void changed(ToolCallEvent.StateChanged e) {
    ToolCallSnapshot s = e.snapshot();
    Open o = calls.get(key(s));
    if (o == null) {
      return;
    }
    o.context.snapshot(s);
    ToolCallState to = e.to();
    o.running = to == ToolCallState.RUNNING;
    if (to == ToolCallState.PERMISSION_PENDING) {
      Observation wait = Observation.createNotStarted(PERMISSION_WAIT,
          () -> new ToolCallObservationContext(o.context.toolName(), s), registry)
          .contextualName("permission_wait " + o.context.toolName())
          .lowCardinalityKeyValue("gen_ai.tool.name", o.context.toolName())
          .parentObservation(o.call);
      if (s.change() instanceof dev.toolcall.Change.PermissionAsked a) {
        wait.highCardinalityKeyValue("toolcall.permission.request.id", a.requestId());
      }
      o.wait = wait.start();
    } else if (e.from() == ToolCallState.PERMISSION_PENDING) {
      decided(o, s, to);
    }
    if (to.isTerminal() && calls.remove(key(s), o)) {
      stopWait(o, s, "cancelled", "cancel");
      String outcome;
      String error = "none";
      Outcome out = s.outcome();
      if (out instanceof Outcome.Failed f) {
        outcome = "failed";
        error = f.kind().name().toLowerCase(Locale.ROOT);
        o.call.error(new ToolCallFailure(error, f.message()));
      } else if (out instanceof Outcome.Denied) {
        outcome = "denied";
      } else if (out instanceof Outcome.Cancelled) {
        outcome = "cancelled";
      } else {
        outcome = "completed";
      }
      o.call.lowCardinalityKeyValue("toolcall.state", s.state().wireName())
          .lowCardinalityKeyValue("toolcall.outcome", outcome)
          .lowCardinalityKeyValue("error.type", error).stop();
    }
  }

  /** The wait of {@code o} ended with the change into {@code to}. */
  private void decided(Open o, ToolCallSnapshot s, ToolCallState to) {
    String outcome;
    String by;
    switch (to) {
      case PERMISSION_APPROVED:
        outcome = "approved";
        by = "user";
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
    if (s.change() instanceof Reason r && r.code().equals(Reason.AUTO_APPROVED.code())) {
      by = "policy"; // approved while waiting by a grant or rule written meanwhile
    }
    stopWait(o, s, outcome, by);
  }

  private static void stopWait(Open o, ToolCallSnapshot s, String outcome, String by) {
    Observation w = o.wait;
    if (w == null) {
      return;
    }
    o.wait = null;
    if (w.getContext() instanceof ToolCallObservationContext c) {
      c.snapshot(s);
    }
    w.lowCardinalityKeyValue("toolcall.permission.outcome", outcome)
        .lowCardinalityKeyValue("toolcall.permission.decided_by", by).stop();
  }

  /** The error a failed call's observation carries: its failure kind and the message the model was told. */
  static final class ToolCallFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ToolCallFailure(String kind, String message) {
      super(kind + ": " + message, null, false, false);
    }
  }
}
