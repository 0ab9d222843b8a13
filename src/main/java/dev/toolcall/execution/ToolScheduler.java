package dev.toolcall.execution;

import dev.toolcall.DeadlineTimer;
import dev.toolcall.FailureKind;
import dev.toolcall.Reason;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.ToolSetEvent;
import dev.toolcall.execution.KnownCalls.CallKey;
import dev.toolcall.tool.ToolRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the tool calls of model responses: for each call, validate, decide permission, run; for each batch, one
 * result per call in request order.
 *
 * <h2>Flow of one call</h2>
 * <ol>
 *   <li>The call is created PENDING (the UI sees it at once). Its tool is looked up and its arguments parsed and
 *       checked against the tool's schema. A bad call (unknown tool, malformed or oversized JSON, schema violation)
 *       goes PENDING -&gt; RUNNING -&gt; FAILED with a message for the model, before any permission is asked and
 *       without the tool being entered.</li>
 *   <li>The {@link Authorizer} decides: no permission needed, approved (possibly with edited arguments, which are
 *       validated again), or denied/cancelled (terminal).</li>
 *   <li>The call waits its turn ({@link ExecutionOrder}) and a concurrency permit, then moves to RUNNING on the
 *       executor. Calls that are ready while {@link #schedule} is still creating their batch are handed to the
 *       executor together once every call of the batch has been created. Interceptors may block a call or replace
 *       its arguments.</li>
 *   <li>Each attempt runs on the executor, with the tool's timeout. A {@link dev.toolcall.TransientToolException} is retried
 *       per the tool's {@link dev.toolcall.tool.RetryPolicy} with backoff and jitter: the call stays RUNNING, each retry is an event,
 *       attempts never overlap, and a cancel during the backoff ends it at once. A timeout or an interrupt is never
 *       retried (it may have had effects, and the abandoned attempt may still be running).</li>
 *   <li>The result completes the call; a throw, a null, or an {@link Error} fails it with a typed
 *       {@link FailureKind}. A result that arrives after the call ended is discarded and counted.</li>
 * </ol>
 *
 * <h2>Cancellation</h2>
 * Cancelling a call (directly, through {@link Batch#cancelAll}, or by {@link #close}) marks it CANCELLED at once and
 * interrupts its tool. The concurrency permit is released on the terminal state, so a tool that ignores interrupts
 * does not hold it; such an attempt is counted as abandoned in {@link #stats()}.
 *
 * <p>Thread-safe. Nothing a model produced makes this class throw.
 */
public final class ToolScheduler implements AutoCloseable {

  static final Logger log = LoggerFactory.getLogger(ToolScheduler.class);
  static final Reason VALIDATING = Reason.VALIDATING;

  final Validator validator;
  final Authorizer authorizer;
  final Executor executor;
  final ExecutorService ownedExecutor;
  final EventBus bus;
  final Clock clock;
  final Ticker ticker;
  final Permits permits;
  final ExecutionOrder order;
  final FailurePolicy failurePolicy;
  final Duration defaultTimeout;
  final List<ToolInterceptor> interceptors;
  final Nesting nesting;
  final List<ExecutionScope> instrumentations;
  final Function<Throwable, String> errorText;
  final DoubleSupplier random;
  final DeadlineTimer timer;
  final boolean ownsTimer;
  final int maxOutputChars;
  final Duration outputFlushInterval;
  /** Counters shared with the per-call helpers. */
  final SchedulerCounters counters = new SchedulerCounters();
  final KnownCalls known;
  /** Where each change of the calls scheduled here is written first; null: memory only. */
  final dev.toolcall.CallStore store;
  volatile boolean closed;
  /** Set before {@link #closed} by {@link #handOff}: the calls are left as they are for other runtimes. */
  volatile boolean handedOff;
  /** Claims of call ids, duplicates and refused calls, admission into a batch. */
  final Claims claims = new Claims(this);
  /** Calls restored from a runtime snapshot. */
  private final RestoredCalls restore = new RestoredCalls(this);
  /** Tool-set updates. */
  private final ToolSetUpdates toolSets = new ToolSetUpdates(this);
  /** Close and hand-off. */
  private final SchedulerClose closing = new SchedulerClose(this);
  /** Store writes that must not be lost, tried again while the store fails. */
  final StoreWrites writes = new StoreWrites(this);

  private ToolScheduler(Builder b) {
    this.validator = b.validator;
    this.authorizer = b.authorizer;
    this.ownedExecutor = b.executor == null ? SchedulerClose.defaultExecutor() : null;
    this.executor = b.executor == null ? ownedExecutor : b.executor;
    this.bus = b.bus == null ? EventBus.create() : b.bus;
    this.clock = b.clock;
    this.ticker = b.ticker;
    this.permits = new Permits(b.maxParallel);
    this.order = b.order;
    this.failurePolicy = b.failurePolicy;
    this.defaultTimeout = b.defaultTimeout;
    this.interceptors = List.copyOf(b.interceptors);
    this.instrumentations = List.copyOf(b.instrumentations);
    this.errorText = b.errorText;
    this.random = b.random;
    this.ownsTimer = b.timer == null;
    this.timer = ownsTimer ? DeadlineTimer.newDefault() : b.timer;
    this.maxOutputChars = b.maxOutputChars;
    this.outputFlushInterval = b.outputFlushInterval;
    this.known = new KnownCalls(b.knownCalls);
    this.nesting = new Nesting(known);
    this.store = b.store;
  }

  /** Starts a scheduler. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The current tool set. A call is validated against the set current when its arguments are complete, and keeps
   * that tool to its end, whatever changes later.
   *
   * @throws IllegalStateException if this scheduler was built with a validator of its own that has no registry
   */
  public ToolRegistry registry() {
    return toolSets.registryValidator().registry();
  }

  /**
   * Changes the tool set for calls validated from now on: {@code change} maps the current registry to the next
   * (with {@link ToolRegistry#with} and {@link ToolRegistry#without}); changes are serialised. Calls already
   * validated keep their tools; permission requests and grants are not touched here (the runtime's
   * {@code updateTools} also denies the pending requests of removed tools). Publishes one {@link ToolSetEvent}
   * when the set changed, none when {@code change} returns the same tools.
   *
   * @return what changed (the event published, or empty when nothing did)
   * @throws IllegalArgumentException when {@code change} throws it (a duplicate name, an invalid schema); nothing
   *     changes then
   */
  public Optional<ToolSetEvent> updateTools(UnaryOperator<ToolRegistry> change) {
    Objects.requireNonNull(change, "change");
    return toolSets.update(change);
  }

  /** The bus the scheduler's calls publish on. */
  public EventBus eventBus() {
    return bus;
  }

  /**
   * Schedules the calls of one model response. Returns at once; every call is created (PENDING, its event
   * published) before this returns. A call id already scheduled in this session returns that call again while it
   * has not ended, and runs nothing twice; an id whose call has ended (among the last 4,096 ids scheduled: the
   * scheduler keeps ids of ended calls, not the calls) and a duplicate id within {@code requests} each get a call of
   * their own, failed with {@link FailureKind#DUPLICATE_CALL} with a message for the model, published under an id of
   * its own (see {@link #refuse}), so the original's events are not confused; the original is left alone. After {@link #close()}, every call ends CANCELLED at once.
   *
   * <p>With a call store the batch is admitted whole or not at all: every call is created (stored, by one
   * {@link dev.toolcall.CallStore#createAll} for the batch) before any is authorized, and its PENDING event published
   * after that write. If they cannot be created, this throws the store's error, and the calls a store created already
   * (one writing them one by one) are withdrawn: none runs its tool, and each ends CANCELLED once the store takes it.
   * Once every call is created, a store failure later (a permission check it cannot store) ends that call with a
   * reason, written when the store is back.
   *
   * @throws NullPointerException if an argument or element is null
   * @throws RuntimeException what the call store threw creating a call (nothing of the batch runs)
   */
  public Batch schedule(String sessionId, List<CallRequest> requests) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(requests, "requests");
    return claims.schedule(sessionId, List.copyOf(requests));
  }

  /**
   * Opens a batch whose calls are announced one at a time while a model streams them, and run as their arguments
   * complete; see {@link OpenBatch}. The same rules as {@link #schedule} apply, in announcement order.
   *
   * @throws NullPointerException if {@code sessionId} is null
   */
  public OpenBatch openBatch(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    return new OpenBatchImpl(this, sessionId, null);
  }

  /**
   * Opens a batch like {@link #openBatch(String)} whose calls are validated and authorized as they complete but
   * start no tool before {@code runAfter} completes (normally or exceptionally): a runtime publishes its own state
   * first (a conversation entering {@code executing_tools}) and then lets the tools start. The
   * {@link ExecutionOrder} still applies once it has completed.
   *
   * @throws NullPointerException if an argument is null
   */
  public OpenBatch openBatch(String sessionId, CompletionStage<?> runAfter) {
    return openBatch(sessionId, runAfter, RetryListener.NONE);
  }

  /**
   * {@link #openBatch(String, CompletionStage)} whose calls' retries are reported to {@code retries}, synchronously on
   * the scheduler's threads (see {@link RetryListener} for the order).
   *
   * @throws NullPointerException if an argument is null
   */
  public OpenBatch openBatch(String sessionId, CompletionStage<?> runAfter, RetryListener retries) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(runAfter, "runAfter");
    Objects.requireNonNull(retries, "retries");
    OpenBatchImpl b = new OpenBatchImpl(this, sessionId, runAfter.toCompletableFuture().handle((x, e) -> null));
    b.batch.retries = retries;
    return b;
  }

  /**
   * Takes over calls restored from a runtime snapshot (after a restart), keeping their ids, versions, arguments
   * versions and attempts, as one batch of {@code sessionId} in the given order. Nothing is published for a restored
   * version itself; each later change is. By state:
   * <ul>
   *   <li>{@code pending}: validated and authorized as a new call would be;</li>
   *   <li>{@code permission_pending}: {@code waiting} re-opens its request and its stage decides, as the authorizer's
   *       would;</li>
   *   <li>{@code permission_approved}: runs once, when its turn comes;</li>
   *   <li>{@code running}: the process stopped while the tool ran, so it may have partly run. A tool declared
   *       idempotent runs again as the next attempt (a {@code RetryScheduled} records it); any other ends FAILED
   *       {@link FailureKind#OUTCOME_UNKNOWN} with a message for the model, and is not run again.</li>
   * </ul>
   * A call whose tool is gone or whose arguments no longer validate ends FAILED (or CANCELLED while it waits for
   * permission) with the reason. An id already known in the session gets a {@code DUPLICATE_CALL} failure instead.
   *
   * @param restored snapshots of {@code sessionId}'s calls that have not ended, usually without history
   * @param waiting re-opens the request of a call waiting for permission
   * @throws IllegalArgumentException if a snapshot is terminal or of another session
   */
  public Batch resume(String sessionId, List<ToolCallSnapshot> restored, Authorizer waiting) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(waiting, "waiting");
    return restore.resume(sessionId, restored, waiting, false);
  }

  /**
   * Takes over calls that another runtime sharing the store drove and stopped looking after, read from that store:
   * as {@link #resume}, except that a call whose id this scheduler knows already (it holds the call, or the call
   * ended here after the row was read, so the row is an older copy of this scheduler's own call) is left out, and
   * nothing at all is published for it: no {@code DUPLICATE_CALL} refusal, since no model asked for it.
   *
   * @param stored snapshots of {@code sessionId}'s calls that have not ended, as the store holds them
   * @param waiting re-opens the request of a call waiting for permission
   * @return the batch of the calls taken over (empty when every one was known here)
   * @throws IllegalArgumentException if a snapshot is terminal or of another session
   */
  public Batch adopt(String sessionId, List<ToolCallSnapshot> stored, Authorizer waiting) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(waiting, "waiting");
    return restore.resume(sessionId, stored, waiting, true);
  }

  /** The message for the model of a call whose runtime stopped renewing its claim while the tool ran. */
  static final String LEASE_LOST = "Outcome unknown: the runtime that ran the tool stopped renewing its claim on the"
      + " call (it stopped, or could not reach the database while the others could), so it may have partly run. It"
      + " was not run again; check its effects before calling it again.";

  /** The call {@code callId} of {@code sessionId} scheduled here, if it has not ended. */
  public Optional<ToolCall> call(String sessionId, String callId) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(callId, "callId");
    return Optional.ofNullable(known.callNow(new CallKey(sessionId, callId)));
  }

  /**
   * Lets go of {@code call}, scheduled here and waiting for a person, whose request the permission service handed
   * over to the store ({@code ToolCallRuntime.handOff}): it is no longer this scheduler's, and nothing of it is kept
   * here, its id included; a restore may bring it back. Its batch never runs it here.
   *
   * @return whether the call was held here (and is not now)
   */
  public boolean forget(ToolCall call) {
    return known.forget(Objects.requireNonNull(call, "call"));
  }

  /**
   * Takes over {@code call}, scheduled here, which another runtime sharing the store claimed RUNNING and stopped
   * looking after (its claim's lease expired): as a restore would, an idempotent tool runs again here as the next
   * attempt, and any other call ends FAILED {@link FailureKind#OUTCOME_UNKNOWN}. Does nothing for a call this runtime
   * runs itself, one not RUNNING, or one that has not had its turn here yet; the store lets one runtime win.
   *
   * @return whether this runtime changed the call
   */
  public boolean takeOver(ToolCall call) {
    Objects.requireNonNull(call, "call");
    return known.takeOver(call);
  }

  /**
   * The calls scheduled here that have not ended, in the order they were scheduled: what a runtime snapshot holds.
   * A call may end while this is read; a caller reads each one's snapshot once.
   */
  public List<ToolCall> activeCalls() {
    return known.calls();
  }

  /**
   * The calls of {@link #activeCalls()} grouped by the batch they were scheduled (or resumed) in: batches in the order
   * of their first call, each call in the order it was scheduled. What a runtime snapshot keeps, so that a restore
   * gives each call back the batch it had (its turn comes behind the calls of its own batch, not a neighbour's).
   */
  public List<List<ToolCall>> activeBatches() {
    return known.callsByBatch();
  }
  /**
   * Publishes a tool call that will not run because nothing could refer to it: its id is blank or already used (in
   * this session or this batch), or it names no tool. The call is created on this scheduler's bus and ends FAILED at
   * once (PENDING, RUNNING for validation, FAILED with {@code kind} and {@code message}, the text the model reads),
   * so a UI shows it like every call; its tool never runs and the scheduler does not keep it. It gets an id of its
   * own, the model's id with {@code #n} added ({@code no-id#n} for a blank id; n unique in this scheduler), so that
   * its events are never mixed with those of the call that has the model's id; a blank tool name is recorded as
   * {@code unnamed}. Thread-safe.
   *
   * @param callId the id the model sent, possibly blank
   * @param toolName the tool name the model sent, possibly blank
   * @param rawArguments the argument text the model sent (null reads as empty)
   * @param parentCallId the enclosing call of a nested call, or null
   * @return the failed call, its events published
   * @throws NullPointerException if {@code sessionId}, {@code kind} or {@code message} is null
   * @throws IllegalArgumentException if {@code kind} is not {@link FailureKind#DUPLICATE_CALL} or
   *     {@link FailureKind#UNKNOWN_TOOL}, or {@code message} is blank
   */
  public ToolCall refuse(String sessionId, String parentCallId, String callId, String toolName, String rawArguments,
      FailureKind kind, String message) {
    return claims.refuse(sessionId, parentCallId, callId, toolName, rawArguments, kind, message);
  }

  /** Counters of what the scheduler had to contain. */
  public SchedulerStats stats() {
    return counters.stats();
  }

  /** Concurrency permits in use (running calls, plus calls whose stuck tool was abandoned are not counted). */
  public int runningCount() {
    return permits.inUse();
  }

  /** Closes with a grace period of 5 seconds. */
  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  /**
   * Cancels every call that has not ended (a call awaiting approval is cancelled, never run), waits up to
   * {@code grace} for running tools to return, and stops the scheduler's own threads. Returns within about
   * {@code grace} even when a tool ignores interrupts. Idempotent.
   */
  public void close(Duration grace) {
    closing.close(Objects.requireNonNull(grace, "grace"), false);
  }

  /**
   * Closes the scheduler handing its calls over to the other runtimes of a shared store instead of ending them (what
   * {@code ToolCallRuntime.close()} does with a {@code sharedStore}): no tool starts once it has begun, and no call is
   * cancelled; tools already running get {@code grace} to finish (their ends are stored as usual), then are
   * interrupted. The calls stay in the store as they are, and the other runtimes take over those this runtime drove
   * once its leases lapse. Idempotent with {@link #close}: whichever comes first decides.
   */
  public void handOff(Duration grace) {
    closing.close(Objects.requireNonNull(grace, "grace"), true);
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Builds a {@link ToolScheduler}. Not thread-safe; each setter checks its value at once and names it when wrong.
   */
  public static final class Builder {
    private Validator validator;
    private Authorizer authorizer;
    private Executor executor;
    private EventBus bus;
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private int maxParallel = 8;
    private ExecutionOrder order = ExecutionOrder.PARALLEL_READS;
    private dev.toolcall.CallStore store;
    private FailurePolicy failurePolicy = FailurePolicy.CONTINUE;
    private Duration defaultTimeout = Duration.ofMinutes(2);
    private final List<ToolInterceptor> interceptors = new ArrayList<>();
    private final List<ExecutionScope> instrumentations = new ArrayList<>();
    private Function<Throwable, String> errorText = ErrorText::defaultErrorText;
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
    private DeadlineTimer timer;
    private int maxOutputChars = 1 << 20;
    private Duration outputFlushInterval = Duration.ofMillis(20);
    private int knownCalls = KnownCalls.DEFAULT_CAP;

    private Builder() {}

    /** How many ended calls the window of known call ids keeps (default 4,096); for tests of the guard. */
    Builder knownCallsWindow(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("knownCallsWindow must be >= 1, was " + calls);
      }
      this.knownCalls = calls;
      return this;
    }

    Builder validator(Validator validator) {
      this.validator = Objects.requireNonNull(validator, "validator");
      return this;
    }

    /**
     * The tools the model may call (required). Calls are validated against it: unknown names are answered with
     * close matches, arguments are parsed within the default {@link dev.toolcall.tool.ArgumentLimits} and checked
     * against each tool's JSON Schema.
     */
    public Builder registry(dev.toolcall.tool.ToolRegistry registry) {
      return tools(dev.toolcall.tool.ToolCallValidator.of(Objects.requireNonNull(registry, "registry")));
    }

    /** Validation with a validator of your own limits; see {@link #registry}. */
    public Builder tools(dev.toolcall.tool.ToolCallValidator validator) {
      Objects.requireNonNull(validator, "validator");
      this.validator = new RegistryValidator(validator);
      return this;
    }

    /** Who decides permission (required): usually the permission service. */
    public Builder authorizer(Authorizer authorizer) {
      this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
      return this;
    }

    /**
     * The executor tools run on (default: virtual threads on JDK 21+, else a cached pool of daemon threads owned
     * and shut down by the scheduler). A user's executor is never shut down by the scheduler.
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** The bus events go to (default: a new one). */
    public Builder eventBus(EventBus bus) {
      this.bus = Objects.requireNonNull(bus, "bus");
      return this;
    }

    /** The wall clock (default: system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The monotonic ticker (default: {@link System#nanoTime()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** How many tools may run at once (default 8). */
    public Builder maxParallel(int maxParallel) {
      if (maxParallel < 1) {
        throw new IllegalArgumentException("maxParallel must be >= 1, was " + maxParallel);
      }
      this.maxParallel = maxParallel;
      return this;
    }

    /** How calls of a batch may overlap (default {@link ExecutionOrder#PARALLEL_READS}). */
    public Builder executionOrder(ExecutionOrder order) {
      this.order = Objects.requireNonNull(order, "order");
      return this;
    }

    /** What a batch does when a call fails (default {@link FailurePolicy#CONTINUE}). */
    public Builder failurePolicy(FailurePolicy failurePolicy) {
      this.failurePolicy = Objects.requireNonNull(failurePolicy, "failurePolicy");
      return this;
    }

    /** The timeout of one attempt when the tool sets none (default 2 minutes; huge values saturate). */
    public Builder defaultTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isZero() || timeout.isNegative()) {
        throw new IllegalArgumentException("defaultTimeout must be positive, was " + timeout);
      }
      this.defaultTimeout = timeout;
      return this;
    }

    /**
     * Adds an instrumentation whose {@link ExecutionScope#enterTool} scope wraps every run of a tool's
     * body (a {@link dev.toolcall.runtime.ToolCallRuntime} adds the ones given to its builder; attaching to events is the
     * caller's part).
     */
    public Builder instrumentation(ExecutionScope instrumentation) {
      instrumentations.add(Objects.requireNonNull(instrumentation, "instrumentation"));
      return this;
    }

    /**
     * The store each change of a call scheduled here is written to before it is visible (default: none, memory
     * only); see {@link dev.toolcall.CallStore}. A call restored by {@link ToolScheduler#resume} is stored too.
     */
    public Builder callStore(dev.toolcall.CallStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** Adds an interceptor; they run in the order added. */
    public Builder interceptor(ToolInterceptor interceptor) {
      interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /**
     * What the model is told about an unexpected exception from a tool (default: its type and message, never a
     * stack trace nor anything from its cause chain). {@link dev.toolcall.ToolException} messages are used as they are.
     */
    public Builder errorText(Function<Throwable, String> errorText) {
      this.errorText = Objects.requireNonNull(errorText, "errorText");
      return this;
    }

    /** The random source of retry jitter, uniform in [0, 1) (default: thread-local random). */
    public Builder random(DoubleSupplier random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The timer of timeouts, retry backoff and output flushes (default: a {@link DeadlineTimer#newDefault()} of its
     * own, closed by {@link ToolScheduler#close()}). A timer given here is shared, not owned: the scheduler never
     * closes it; whoever made it does ({@link dev.toolcall.runtime.ToolCallRuntime} shares one with its permission service).
     */
    public Builder timer(DeadlineTimer timer) {
      this.timer = Objects.requireNonNull(timer, "timer");
      return this;
    }

    /** The bound on a call's unpublished live output, in chars (default 1 Mi); writes past it are dropped. */
    public Builder maxPendingOutput(int chars) {
      if (chars < 1) {
        throw new IllegalArgumentException("maxPendingOutput must be >= 1, was " + chars);
      }
      this.maxOutputChars = chars;
      return this;
    }

    /** How long live output is coalesced before it is published (default 20 ms). */
    public Builder outputFlushInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("outputFlushInterval must not be negative, was " + interval);
      }
      this.outputFlushInterval = interval;
      return this;
    }

    /** The scheduler. */
    public ToolScheduler build() {
      if (validator == null) {
        throw new IllegalStateException("a tool registry is required: call registry(...)");
      }
      if (authorizer == null) {
        throw new IllegalStateException(
            "an authorizer is required: call authorizer(...) (a permission service, or Authorizer.ALLOW_ALL)");
      }
      return new ToolScheduler(this);
    }
  }
}
