package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventBus;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolArguments;
import dev.toolcall.tool.ToolException;
import dev.toolcall.tool.ToolInvocation;
import dev.toolcall.tool.ToolResult;
import dev.toolcall.tool.TransientToolException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
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
 *   <li>The call waits its turn ({@link ExecutionOrder}) and a concurrency permit, then moves to RUNNING.
 *       Interceptors may block it or replace its arguments.</li>
 *   <li>Each attempt runs on the executor, with the tool's timeout. A {@link TransientToolException} is retried
 *       per the tool's {@link RetryPolicy} with backoff and jitter: the call stays RUNNING, each retry is an event,
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
 * <h2>Streamed calls</h2>
 * {@link #openBatch} takes the calls of a response that is still streaming: each call is created when the stream
 * announces it and takes the flow above once its arguments are complete (see {@link OpenBatch}); a batch may hold
 * its tools until the runtime releases it. {@link #schedule} and open batches share one path per call: the same id
 * rules, the same pipeline, the same {@link ExecutionOrder} gates.
 *
 * <p>Thread-safe. Nothing a model produced makes this class throw.
 */
public final class ToolScheduler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ToolScheduler.class);
  private static final int KNOWN_CALLS_CAP = 4_096;
  private static final Reason VALIDATING = Reason.of("validating", "validating the call");

  /** Counters shared with the per-call helpers. */
  static final class Counters {
    final LongAdder scheduled = new LongAdder();
    final LongAdder attempts = new LongAdder();
    final LongAdder discarded = new LongAdder();
    final LongAdder abandoned = new LongAdder();
    final AtomicLong stillRunning = new AtomicLong();
    final LongAdder droppedOutput = new LongAdder();
    final LongAdder rejections = new LongAdder();
  }

  private final Validator validator;
  private final Authorizer authorizer;
  private final Executor executor;
  private final ExecutorService ownedExecutor;
  private final EventBus bus;
  private final Clock clock;
  private final Ticker ticker;
  private final Permits permits;
  private final ExecutionOrder order;
  private final FailurePolicy failurePolicy;
  private final Duration defaultTimeout;
  private final List<ToolInterceptor> interceptors;
  private final Function<Throwable, String> errorText;
  private final DoubleSupplier random;
  private final DelayScheduler timer;
  private final int maxOutputChars;
  private final long outputFlushNanos;
  private final Counters counters = new Counters();
  private final Map<String, CompletableFuture<ToolCall>> known = new LinkedHashMap<>(); // guarded by itself
  private volatile boolean closed;

  private ToolScheduler(Builder b) {
    this.validator = b.validator;
    this.authorizer = b.authorizer;
    if (b.executor != null) {
      this.executor = b.executor;
      this.ownedExecutor = null;
    } else {
      this.ownedExecutor = defaultExecutor();
      this.executor = ownedExecutor;
    }
    this.bus = b.bus == null ? EventBus.create() : b.bus;
    this.clock = b.clock;
    this.ticker = b.ticker;
    this.permits = new Permits(b.maxParallel);
    this.order = b.order;
    this.failurePolicy = b.failurePolicy;
    this.defaultTimeout = b.defaultTimeout;
    this.interceptors = List.copyOf(b.interceptors);
    this.errorText = b.errorText;
    this.random = b.random;
    this.timer = b.timer == null ? DelayScheduler.newDefault() : b.timer;
    this.maxOutputChars = b.maxOutputChars;
    this.outputFlushNanos = b.outputFlushInterval.toNanos();
  }

  /** Starts a scheduler. */
  public static Builder builder() {
    return new Builder();
  }

  /** The bus the scheduler's calls publish on. */
  public EventBus eventBus() {
    return bus;
  }

  /**
   * Schedules the calls of one model response. Returns at once; every call is created (PENDING, its event
   * published) before this returns. A call id already scheduled in this session returns that call again and runs
   * nothing twice; a duplicate id within {@code requests} fails the duplicate with
   * {@link FailureKind#DUPLICATE_CALL} (on a private bus, so the original's events are not confused) and leaves the
   * original alone. After {@link #close()}, every call ends CANCELLED at once.
   *
   * @throws NullPointerException if an argument or element is null
   */
  public Batch schedule(String sessionId, List<CallRequest> requests) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(requests, "requests");
    List<CallRequest> reqs = List.copyOf(requests);
    BatchImpl batch = new BatchImpl(reqs.size());
    Set<String> seen = new HashSet<>();
    Gates gates = new Gates(null);
    for (CallRequest req : reqs) {
      Claim c = claim(sessionId, req, seen, true);
      start(c, batch, gates, null);
      batch.add(c.call());
    }
    batch.seal();
    return batch;
  }

  /**
   * Opens a batch whose calls are announced one at a time while a model streams them, and run as their arguments
   * complete; see {@link OpenBatch}. The same rules as {@link #schedule} apply, in announcement order.
   *
   * @throws NullPointerException if {@code sessionId} is null
   */
  public OpenBatch openBatch(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    return new OpenBatchImpl(sessionId, null);
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
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(runAfter, "runAfter");
    return new OpenBatchImpl(sessionId, runAfter.toCompletableFuture().handle((x, e) -> null));
  }

  /**
   * A call claimed by a batch: {@code fresh} when the batch created it and runs it; otherwise a duplicate of an id
   * in the batch or a call already scheduled in the session. {@code validation} is set when the call was created
   * with validated arguments.
   */
  private record Claim(ToolCall call, Validator.Validation validation, boolean fresh) {}

  /**
   * The id rules of one request of a batch: a duplicate id within the batch ({@code seen}) gets its own call, failed
   * on a private bus; an id already scheduled in the session returns that call (nothing runs twice); a new id gets a
   * new PENDING call, whose creation event is published before this returns. With {@code validateNow} the arguments
   * are validated first and the call is created with them; otherwise it is created with the raw text as it stands
   * (a call announced by a stream, validated when its arguments are complete).
   */
  private Claim claim(String sessionId, CallRequest req, Set<String> seen, boolean validateNow) {
    if (!seen.add(req.callId())) {
      return new Claim(duplicate(sessionId, req), null, false);
    }
    CompletableFuture<ToolCall> mine = new CompletableFuture<>();
    CompletableFuture<ToolCall> existing = reserve(sessionId + '\u0000' + req.callId(), mine);
    if (existing != null) {
      return new Claim(existing.join(), null, false);
    }
    Validator.Validation v = null;
    ToolCall call;
    try {
      ToolArguments args;
      if (validateNow) {
        v = validator.validate(req.toolName(), req.rawArguments());
        args = argumentsOf(v);
      } else {
        args = ToolArguments.ofText(req.rawArguments());
      }
      ToolCall.Builder cb = ToolCall.builder(req.callId(), req.toolName()).sessionId(sessionId)
          .arguments(args).clock(clock).ticker(ticker).eventBus(bus);
      if (req.parentCallId() != null) {
        cb.parentCallId(req.parentCallId());
      }
      call = cb.build();
    } catch (RuntimeException | Error e) {
      unreserve(sessionId + '\u0000' + req.callId(), mine, e);
      throw e;
    }
    mine.complete(call);
    counters.scheduled.increment();
    return new Claim(call, v, true);
  }

  private static ToolArguments argumentsOf(Validator.Validation v) {
    return v instanceof Validator.Valid ok ? ok.arguments() : ((Validator.Invalid) v).arguments();
  }

  /**
   * Starts the run of a fresh, validated call behind its gate, and links the call's end into the gates of the calls
   * after it; a call that is not fresh only links (as if read-only: it runs nothing here). {@code authorized}, when
   * given, completes once the authorizer has decided that the call may run (an open batch's whenAuthorized).
   */
  private void start(Claim c, BatchImpl batch, Gates gates, CompletableFuture<Void> authorized) {
    boolean readOnly = true;
    if (c.fresh()) {
      Validator.Validation v = c.validation();
      Run run = new Run(c.call(), v, batch);
      run.authorized = authorized;
      readOnly = !(v instanceof Validator.Valid ok) || ok.tool().definition().readOnly();
      run.start(gates.next(readOnly));
    }
    gates.link(c.call(), readOnly);
  }

  /**
   * The {@link ExecutionOrder} gates of one batch, built in request order by the one thread that adds its calls:
   * {@code allEarlier} completes when every call so far has ended, {@code lastWrite} when every call up to the last
   * call that is not read-only has ended. With {@code hold}, every gate also waits for it.
   */
  private final class Gates {
    private final CompletableFuture<Void> hold;
    private CompletableFuture<Void> allEarlier = CompletableFuture.completedFuture(null);
    private CompletableFuture<Void> lastWrite = CompletableFuture.completedFuture(null);

    Gates(CompletableFuture<Void> hold) {
      this.hold = hold;
    }

    /** What must end before the next call may start. */
    CompletableFuture<Void> next(boolean readOnly) {
      CompletableFuture<Void> gate = switch (order) {
        case PARALLEL -> CompletableFuture.completedFuture(null);
        case SEQUENTIAL -> allEarlier;
        case PARALLEL_READS -> readOnly ? lastWrite : allEarlier;
      };
      return hold == null ? gate : CompletableFuture.allOf(gate, hold);
    }

    /** Links the end of the next call into the gates of the calls after it. */
    void link(ToolCall call, boolean readOnly) {
      CompletableFuture<Void> terminal = call.whenTerminal().toCompletableFuture().thenAccept(s -> {});
      allEarlier = CompletableFuture.allOf(allEarlier, terminal);
      if (!readOnly) {
        lastWrite = allEarlier;
      }
    }
  }

  private CompletableFuture<ToolCall> reserve(String key, CompletableFuture<ToolCall> mine) {
    synchronized (known) {
      CompletableFuture<ToolCall> existing = known.get(key);
      if (existing != null) {
        return existing;
      }
      known.put(key, mine);
      if (known.size() > KNOWN_CALLS_CAP) {
        var it = known.values().iterator();
        while (known.size() > KNOWN_CALLS_CAP && it.hasNext()) {
          CompletableFuture<ToolCall> f = it.next();
          if (f.isDone() && f.join().isTerminal()) {
            it.remove();
          } else {
            break;
          }
        }
      }
      return null;
    }
  }

  private void unreserve(String key, CompletableFuture<ToolCall> mine, Throwable cause) {
    synchronized (known) {
      known.remove(key, mine);
    }
    mine.completeExceptionally(cause);
  }

  private ToolCall duplicate(String sessionId, CallRequest req) {
    ToolCall.Builder cb = ToolCall.builder(req.callId(), req.toolName()).sessionId(sessionId)
        .arguments(ToolArguments.ofText(req.rawArguments())).clock(clock).ticker(ticker)
        .eventBus(EventBus.create());
    ToolCall dup = cb.build();
    dup.transition(ToolCallState.PENDING, ToolCallState.RUNNING, VALIDATING);
    dup.fail(FailureKind.DUPLICATE_CALL, "This response already contains a tool call with id '" + req.callId()
        + "'; each call needs its own id. The duplicate was not run.");
    return dup;
  }

  /** Counters of what the scheduler had to contain. */
  public SchedulerStats stats() {
    return new SchedulerStats(counters.scheduled.sum(), counters.attempts.sum(), counters.discarded.sum(),
        counters.abandoned.sum(), counters.stillRunning.get(), counters.droppedOutput.sum(),
        counters.rejections.sum());
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
    Objects.requireNonNull(grace, "grace");
    closed = true;
    List<CompletableFuture<ToolCall>> all;
    synchronized (known) {
      all = new ArrayList<>(known.values());
    }
    for (CompletableFuture<ToolCall> f : all) {
      ToolCall c = f.getNow(null);
      if (c != null) {
        c.cancel("the runtime was closed");
      }
    }
    timer.close();
    if (ownedExecutor != null) {
      ownedExecutor.shutdown();
      try {
        if (!ownedExecutor.awaitTermination(Math.max(0, grace.toNanos()), TimeUnit.NANOSECONDS)) {
          ownedExecutor.shutdownNow();
          log.warn("tool scheduler closed with {} tool attempt(s) still running after the grace period",
              counters.stillRunning.get());
        }
      } catch (InterruptedException e) {
        ownedExecutor.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  private static ExecutorService defaultExecutor() {
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (ReflectiveOperationException e) {
      AtomicInteger n = new AtomicInteger();
      return Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "toolcall-tool-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
    }
  }

  static String describe(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms % 1000 == 0) {
      return (ms / 1000) + " s";
    }
    return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The default text for an unexpected exception: its type and message, never a stack trace or its causes. */
  static String defaultErrorText(Throwable t) {
    String msg = t.getMessage();
    return t.getClass().getSimpleName() + (msg == null || msg.isBlank() ? "" : ": " + msg);
  }

  // ---------------------------------------------------------------------------------------------------------------

  /**
   * One batch: its calls in request order, and the future of their results. Calls are added by one thread (the
   * scheduling or streaming one) while other threads may cancel them, so the list is guarded by this; after
   * {@link #seal()} it no longer changes.
   */
  private final class BatchImpl implements Batch {
    private final List<ToolCall> calls; // guarded by this until sealed
    private String cancelled; // guarded by this: set by cancelAll; calls added later are cancelled at once
    private CompletableFuture<List<CallResult>> done;

    BatchImpl(int size) {
      this.calls = new ArrayList<>(size);
    }

    void add(ToolCall call) {
      String reason;
      synchronized (this) {
        calls.add(call);
        reason = cancelled;
      }
      if (reason != null) {
        call.cancel(reason);
      }
    }

    synchronized List<ToolCall> copy() {
      return List.copyOf(calls);
    }

    void seal() {
      List<CompletableFuture<ToolCallSnapshot>> ends = new ArrayList<>(calls.size());
      for (ToolCall c : copy()) {
        ends.add(c.whenTerminal().toCompletableFuture());
      }
      done = CompletableFuture.allOf(ends.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
        List<CallResult> out = new ArrayList<>(ends.size());
        for (CompletableFuture<ToolCallSnapshot> e : ends) {
          out.add(new CallResult(e.join()));
        }
        return Collections.unmodifiableList(out);
      });
    }

    @Override
    public List<ToolCall> calls() {
      return Collections.unmodifiableList(calls);
    }

    @Override
    public CompletionStage<List<CallResult>> whenDone() {
      return done.minimalCompletionStage();
    }

    @Override
    public int cancelAll(String reason) {
      Objects.requireNonNull(reason, "reason");
      List<ToolCall> now;
      synchronized (this) {
        if (cancelled == null) {
          cancelled = reason;
        }
        now = List.copyOf(calls);
      }
      int n = 0;
      // last first: cancelling an earlier call opens later calls' gates, so they must already be cancelled
      for (int i = now.size() - 1; i >= 0; i--) {
        if (now.get(i).cancel(reason).won()) {
          n++;
        }
      }
      return n;
    }
  }

  /**
   * {@link OpenBatch}. The stream's methods run on one thread at a time (see the interface), so the entries, the
   * gates and the admission cursor are touched by that thread only; the calls list lives in the {@link BatchImpl}
   * (guarded there), so {@link #cancelAll} may come from any thread.
   */
  private final class OpenBatchImpl implements OpenBatch {
    private final String sessionId;
    private final BatchImpl batch = new BatchImpl(4);
    private final Gates gates;
    private final Set<String> seen = new HashSet<>();
    private final List<Entry> entries = new ArrayList<>(); // the stream's thread
    private final Map<ToolCall, Entry> byCall = new java.util.IdentityHashMap<>(); // the stream's thread
    private final CompletableFuture<Void> authorized = new CompletableFuture<>();
    private int admitted; // entries [0, admitted) have been started or linked
    private volatile boolean sealed;

    OpenBatchImpl(String sessionId, CompletableFuture<Void> hold) {
      this.sessionId = sessionId;
      this.gates = new Gates(hold);
    }

    /** One announced call and its raw arguments so far. */
    private final class Entry {
      final Claim claim;
      final StringBuilder raw = new StringBuilder();
      final CompletableFuture<Void> authorized = new CompletableFuture<>();
      int fragments;
      int published;
      boolean complete;

      Entry(Claim claim) {
        this.claim = claim;
        if (claim.fresh()) {
          claim.call().whenTerminal().thenRun(() -> authorized.complete(null));
        } else {
          authorized.complete(null);
        }
      }

      ToolCall call() {
        return claim.call();
      }

      /** Whether this batch still fills in and runs the call. */
      boolean open() {
        return claim.fresh() && !complete && !claim.call().isTerminal();
      }
    }

    @Override
    public ToolCall announce(String callId, String toolName) {
      CallRequest req = CallRequest.of(callId, toolName, "");
      checkOpen();
      Claim c = claim(sessionId, req, seen, false);
      Entry e = new Entry(c);
      entries.add(e);
      byCall.put(c.call(), e);
      batch.add(c.call());
      if (closed && c.fresh()) {
        c.call().cancel("the runtime was closed");
      }
      return c.call();
    }

    @Override
    public void appendArguments(ToolCall call, String fragment) {
      Objects.requireNonNull(fragment, "fragment");
      Entry e = entry(call);
      if (!e.open() || fragment.isEmpty()) {
        return;
      }
      e.raw.append(fragment);
      e.fragments++;
      int len = e.raw.length();
      if (e.fragments >= 2 && len >= 2L * e.published) {
        e.published = len;
        call.modifyArguments(ToolCallState.PENDING, ToolArguments.ofText(e.raw.toString()), STREAMING);
      }
    }

    @Override
    public void complete(ToolCall call) {
      Entry e = entry(call);
      e.complete = true;
      admitReady();
    }

    @Override
    public void fail(ToolCall call, FailureKind kind, String message) {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(message, "message");
      if (message.isBlank()) {
        throw new IllegalArgumentException("message must not be blank: the model reads it");
      }
      Entry e = entry(call);
      if (e.open()) {
        failUnrun(e, kind, message);
      }
      e.complete = true;
      admitReady();
    }

    @Override
    public Batch seal() {
      if (sealed) {
        return batch;
      }
      for (Entry e : entries) {
        if (e.open()) {
          failUnrun(e, FailureKind.MALFORMED_ARGUMENTS, "The response ended before the arguments of this call were "
              + "complete, so it was not run. Send the call again with complete arguments.");
        }
        e.complete = true;
      }
      admitReady();
      sealed = true;
      batch.seal();
      List<CompletableFuture<Void>> all = new ArrayList<>(entries.size());
      for (Entry e : entries) {
        all.add(e.authorized);
      }
      CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).thenRun(() -> authorized.complete(null));
      return batch;
    }

    @Override
    public CompletionStage<Void> whenAuthorized() {
      return authorized.minimalCompletionStage();
    }

    @Override
    public List<ToolCall> calls() {
      return batch.copy();
    }

    @Override
    public int cancelAll(String reason) {
      return batch.cancelAll(reason);
    }

    private void checkOpen() {
      if (sealed) {
        throw new IllegalStateException("the batch is sealed: no call can be announced or changed any more");
      }
    }

    private Entry entry(ToolCall call) {
      Objects.requireNonNull(call, "call");
      checkOpen();
      Entry e = byCall.get(call);
      if (e == null) {
        throw new IllegalArgumentException("call " + call.callId() + " was not announced in this batch");
      }
      return e;
    }

    /** Ends a call this batch will not run: its raw arguments so far installed, then RUNNING -> FAILED. */
    private void failUnrun(Entry e, FailureKind kind, String message) {
      ToolCall call = e.call();
      ToolArguments raw = ToolArguments.ofText(e.raw.toString());
      if (!call.snapshot().arguments().equals(raw)) {
        call.modifyArguments(ToolCallState.PENDING, raw, STREAMING);
      }
      call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, VALIDATING);
      call.fail(kind, message);
    }

    /** Starts (or links) every entry whose arguments are complete, in announcement order, up to the first open one. */
    private void admitReady() {
      while (admitted < entries.size() && entries.get(admitted).complete) {
        Entry e = entries.get(admitted++);
        ToolCall call = e.call();
        if (!e.claim.fresh() || call.isTerminal()) {
          start(new Claim(call, null, false), batch, gates, null);
          continue;
        }
        Validator.Validation v = validator.validate(call.toolName(), e.raw.toString());
        ToolArguments args = argumentsOf(v);
        if (!call.snapshot().arguments().equals(args)) {
          call.modifyArguments(ToolCallState.PENDING, args, FINAL);
        }
        start(new Claim(call, v, true), batch, gates, e.authorized);
      }
    }
  }

  /** The pipeline of one call. */
  private final class Run {
    private final ToolCall call;
    private final Validator.Validation validation;
    private final BatchImpl batch;
    private final OutputBuffer output;
    private volatile Attempt current;
    /** Set before start by an open batch that tracks authorization; completed once the authorizer has decided. */
    CompletableFuture<Void> authorized;

    Run(ToolCall call, Validator.Validation validation, BatchImpl batch) {
      this.call = call;
      this.validation = validation;
      this.batch = batch;
      this.output = new OutputBuffer(call, maxOutputChars, this::armFlush, counters);
    }

    void start(CompletableFuture<Void> gate) {
      if (closed) {
        call.cancel("the runtime was closed");
        return;
      }
      if (validation instanceof Validator.Invalid bad) {
        call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, VALIDATING);
        call.fail(bad.kind(), bad.message());
        return;
      }
      Tool tool = ((Validator.Valid) validation).tool();
      call.whenTerminal().thenAccept(this::onTerminal);
      CompletionStage<ToolCallSnapshot> decided;
      try {
        decided = Objects.requireNonNull(authorizer.authorize(call, tool.definition()), "authorizer returned null");
      } catch (RuntimeException e) {
        log.error("authorizer failed for call {} ({})", call.callId(), call.toolName(), e);
        call.cancel("the permission check failed: " + defaultErrorText(e));
        return;
      }
      if (authorized != null) { // an open batch's whenAuthorized; a terminal decision counts once its event is out
        CompletableFuture<Void> a = authorized;
        decided.thenAccept(s -> {
          if (!s.isTerminal()) {
            a.complete(null);
          }
        });
      }
      decided.toCompletableFuture()
          .thenCompose(s -> s.isTerminal() ? CompletableFuture.completedFuture(null) : gate.thenApply(x -> s))
          .thenCompose(s -> {
            if (s == null || call.isTerminal()) {
              return CompletableFuture.completedFuture(false);
            }
            return permits.acquire().thenApply(x -> {
              call.whenTerminal().thenRun(permits::release);
              return true;
            });
          })
          .thenAcceptAsync(held -> {
            if (held) {
              begin(tool);
            }
          }, executor)
          .whenComplete((x, t) -> {
            if (t != null) {
              Throwable cause = unwrap(t);
              if (cause instanceof RejectedExecutionException) {
                counters.rejections.increment();
                failOrCancel(FailureKind.EXECUTOR_REJECTED,
                    "The tool could not be started: the runtime is overloaded or shutting down.");
              } else if (!call.isTerminal()) {
                log.error("scheduling failed for call {} ({})", call.callId(), call.toolName(), cause);
                failOrCancel(FailureKind.INTERNAL_ERROR, "The call could not be run: an internal error occurred.");
              }
            }
          });
    }

    /** Ends the call whatever state it is in: FAILED when it can (through RUNNING), otherwise CANCELLED. */
    private void failOrCancel(FailureKind kind, String message) {
      for (int i = 0; i < 4 && !call.isTerminal(); i++) {
        ToolCallSnapshot s = call.snapshot();
        if (s.state() == ToolCallState.RUNNING) {
          call.fail(kind, message);
        } else if (s.state().canTransitionTo(ToolCallState.RUNNING)) {
          call.transition(s.state(), ToolCallState.RUNNING, VALIDATING);
        } else {
          call.cancel(message);
        }
      }
    }

    private void begin(Tool tool) {
      ToolCallSnapshot s = call.snapshot();
      if (s.isTerminal()) {
        return;
      }
      ToolArguments args = s.arguments();
      Validator.Validation edited = null;
      if (s.argumentsVersion() != 0) {
        edited = validator.revalidate(tool, args);
      }
      Reason why = s.state() == ToolCallState.PENDING ? Reason.NO_PERMISSION_NEEDED : Reason.STARTED;
      if (!call.transition(s.state(), ToolCallState.RUNNING, why).won()) {
        return; // cancelled meanwhile; the permit is released by the terminal hook
      }
      if (edited instanceof Validator.Invalid bad) {
        call.fail(bad.kind(), "The edited arguments are not valid: " + bad.message());
        return;
      }
      for (ToolInterceptor i : interceptors) {
        ToolInterceptor.Before d;
        try {
          d = Objects.requireNonNull(i.before(call.snapshot()), "interceptor returned null");
        } catch (RuntimeException e) {
          log.warn("interceptor {} failed before call {} ({})", i.name(), call.callId(), call.toolName(), e);
          call.fail(FailureKind.BLOCKED, "The call was blocked: a pre-execution check failed.");
          return;
        }
        if (d instanceof ToolInterceptor.Block b) {
          call.fail(FailureKind.BLOCKED, b.reason());
          return;
        }
        if (d instanceof ToolInterceptor.Replace r) {
          Validator.Validation v = validator.revalidate(tool, r.arguments());
          if (v instanceof Validator.Invalid bad) {
            call.fail(bad.kind(), "The arguments as rewritten by " + i.name() + " are not valid: " + bad.message());
            return;
          }
          if (!call.modifyArguments(ToolCallState.RUNNING, ((Validator.Valid) v).arguments(), i.name()).won()) {
            return;
          }
          args = ((Validator.Valid) v).arguments();
        }
      }
      attempt(tool, args, 1, true);
    }

    private void attempt(Tool tool, ToolArguments args, int n, boolean inline) {
      if (call.isTerminal()) {
        return;
      }
      if (closed) {
        call.cancel("the runtime was closed");
        return;
      }
      Attempt a = new Attempt(this, tool, args, n);
      current = a;
      counters.attempts.increment();
      Duration timeout = tool.definition().timeoutIfSet().orElse(defaultTimeout);
      a.timeout = timer.schedule(() -> onTimeout(a, timeout), saturatedNanos(timeout));
      if (inline) {
        a.run();
        return;
      }
      try {
        executor.execute(a::run);
      } catch (RejectedExecutionException e) {
        counters.rejections.increment();
        a.timeout.cancel();
        call.fail(FailureKind.EXECUTOR_REJECTED,
            "The tool could not be started: the runtime is overloaded or shutting down.");
      }
    }

    private void onTimeout(Attempt a, Duration timeout) {
      if (current != a || !a.finish()) {
        return;
      }
      call.fail(FailureKind.TIMEOUT, "The tool did not finish within " + describe(timeout) + " and was stopped.");
    }

    void onAttemptDone(Attempt a, ToolResult result, Throwable error) {
      if (!a.finish()) {
        if (error == null) {
          counters.discarded.increment(); // the timeout won
        }
        return;
      }
      a.timeout.cancel();
      Throwable t = error == null ? null : unwrap(error);
      if (call.isTerminal()) {
        if (t == null) {
          counters.discarded.increment();
        }
        return;
      }
      if (t == null) {
        if (result == null) {
          output.flushNow();
          call.fail(FailureKind.NULL_RESULT, "The tool returned no result.");
          return;
        }
        ToolResult out = result;
        for (ToolInterceptor i : interceptors) {
          try {
            out = Objects.requireNonNull(i.after(call.snapshot(), out), "interceptor returned null");
          } catch (RuntimeException e) {
            log.warn("interceptor {} failed after call {} ({})", i.name(), call.callId(), call.toolName(), e);
            output.flushNow();
            call.fail(FailureKind.TOOL_ERROR, "The tool's result could not be post-processed.");
            return;
          }
        }
        output.flushNow();
        if (!call.complete(out.content()).won()) {
          counters.discarded.increment();
        }
        return;
      }
      RetryPolicy policy = a.tool.definition().retryPolicy();
      if (t instanceof TransientToolException && a.number < policy.maxAttempts()) {
        output.flushNow();
        int next = a.number + 1;
        Duration delay = policy.delay(next, random.getAsDouble());
        if (call.scheduleRetry(next, delay, messageOf(t)).won()) {
          timer.schedule(() -> attempt(a.tool, a.args, next, false), delay.toNanos());
          if (closed) {
            call.cancel("the runtime was closed");
          }
        }
        return;
      }
      output.flushNow();
      if (t instanceof ToolException) {
        String msg = messageOf(t);
        if (t instanceof TransientToolException && a.number > 1) {
          msg = msg + " (gave up after " + a.number + " attempts)";
        }
        call.fail(FailureKind.TOOL_ERROR, msg);
      } else if (t instanceof InterruptedException) {
        call.fail(FailureKind.TOOL_ERROR, "The tool was interrupted.");
      } else if (t instanceof Error) {
        log.error("tool {} threw an Error on call {}", call.toolName(), call.callId(), t);
        call.fail(FailureKind.INTERNAL_ERROR, "The tool crashed: " + safeErrorText(t));
      } else {
        log.debug("tool {} failed on call {}", call.toolName(), call.callId(), t);
        call.fail(FailureKind.TOOL_ERROR, safeErrorText(t));
      }
    }

    private String messageOf(Throwable t) {
      String m = t.getMessage();
      return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    private String safeErrorText(Throwable t) {
      try {
        String s = errorText.apply(t);
        return s == null || s.isBlank() ? "The tool failed." : s;
      } catch (RuntimeException e) {
        log.warn("error-text hook failed", e);
        return "The tool failed.";
      }
    }

    private void onTerminal(ToolCallSnapshot s) {
      Attempt a = current;
      if (a != null) {
        a.interruptIfInBody();
      }
      if (failurePolicy == FailurePolicy.CANCEL_SIBLINGS && s.outcome() instanceof Outcome.Failed) {
        batch.cancelAll("cancelled because call " + s.callId() + " (" + s.toolName() + ") failed");
      }
    }

    private void armFlush() {
      timer.schedule(() -> {
        try {
          executor.execute(output::flushNow);
        } catch (RejectedExecutionException e) {
          output.flushNow();
        }
      }, outputFlushNanos);
    }
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** One attempt of a call: its invocation, the thread in the tool body (if any), and its timeout. */
  private final class Attempt implements ToolInvocation {
    private final Run run;
    private final Tool tool;
    private final ToolArguments args;
    private final int number;
    private final AtomicBoolean finished = new AtomicBoolean();
    volatile DelayScheduler.Handle timeout = DelayScheduler.NONE;
    private Thread bodyThread; // guarded by this
    private boolean abandoned; // guarded by this

    Attempt(Run run, Tool tool, ToolArguments args, int number) {
      this.run = run;
      this.tool = tool;
      this.args = args;
      this.number = number;
    }

    boolean finish() {
      return finished.compareAndSet(false, true);
    }

    void run() {
      if (run.call.isTerminal()) {
        timeout.cancel();
        return;
      }
      synchronized (this) {
        bodyThread = Thread.currentThread();
      }
      CompletionStage<ToolResult> stage;
      VirtualMachineError fatal = null;
      try {
        if (tool instanceof Tool.BlockingTool b) {
          stage = CompletableFuture.completedFuture(b.body().run(this));
        } else {
          stage = tool.execute(this);
          if (stage == null) {
            stage = CompletableFuture.completedFuture(null);
          }
        }
      } catch (VirtualMachineError e) {
        fatal = e;
        stage = CompletableFuture.failedFuture(e);
      } catch (Throwable e) {
        stage = CompletableFuture.failedFuture(e);
      } finally {
        synchronized (this) {
          bodyThread = null;
          if (abandoned) {
            counters.stillRunning.decrementAndGet();
          }
        }
        Thread.interrupted(); // an interrupt meant for the tool must not leak into the executor's next task
      }
      stage.whenComplete((r, t) -> run.onAttemptDone(this, r, t));
      if (fatal != null) {
        throw fatal;
      }
    }

    synchronized void interruptIfInBody() {
      if (bodyThread != null && !abandoned) {
        abandoned = true;
        counters.abandoned.increment();
        counters.stillRunning.incrementAndGet();
        bodyThread.interrupt();
      }
    }

    @Override
    public ToolArguments arguments() {
      return args;
    }

    @Override
    public String callId() {
      return run.call.callId();
    }

    @Override
    public String sessionId() {
      return run.call.sessionId();
    }

    @Override
    public String toolName() {
      return run.call.toolName();
    }

    @Override
    public int attempt() {
      return number;
    }

    @Override
    public boolean isCancelled() {
      return run.call.isTerminal();
    }

    @Override
    public void onCancel(Runnable action) {
      Objects.requireNonNull(action, "action");
      run.call.whenTerminal().thenAccept(s -> {
        if (!(s.outcome() instanceof Outcome.Completed)) {
          action.run();
        }
      });
    }

    @Override
    public void output(String chunk) {
      if (!finished.get()) {
        run.output.write(chunk);
      }
    }
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
    private FailurePolicy failurePolicy = FailurePolicy.CONTINUE;
    private Duration defaultTimeout = Duration.ofMinutes(2);
    private final List<ToolInterceptor> interceptors = new ArrayList<>();
    private Function<Throwable, String> errorText = ToolScheduler::defaultErrorText;
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
    private DelayScheduler timer;
    private int maxOutputChars = 1 << 20;
    private Duration outputFlushInterval = Duration.ofMillis(20);

    private Builder() {}

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

    /** Adds an interceptor; they run in the order added. */
    public Builder interceptor(ToolInterceptor interceptor) {
      interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /**
     * What the model is told about an unexpected exception from a tool (default: its type and message, never a
     * stack trace nor anything from its cause chain). {@link ToolException} messages are used as they are.
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

    Builder timer(DelayScheduler timer) {
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
