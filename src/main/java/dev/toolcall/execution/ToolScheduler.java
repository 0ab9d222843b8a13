package dev.toolcall.execution;

import dev.toolcall.DeadlineTimer;
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
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Clock;
import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
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
 *   <li>The call waits its turn ({@link ExecutionOrder}) and a concurrency permit, then moves to RUNNING on the
 *       executor. Calls that are ready while {@link #schedule} is still creating their batch are handed to the
 *       executor together once every call of the batch has been created. Interceptors may block a call or replace
 *       its arguments.</li>
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
 * <p>Thread-safe. Nothing a model produced makes this class throw.
 */
public final class ToolScheduler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ToolScheduler.class);
  /** How many ended calls the window of known call ids keeps by default (every call not yet ended is kept too). */
  static final int DEFAULT_KNOWN_CALLS = 4_096;
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
  private final DeadlineTimer timer;
  private final boolean ownsTimer;
  private final int maxOutputChars;
  private final Duration outputFlushInterval;
  private final int knownCallsCap;
  private final Counters counters = new Counters();
  private final Map<CallKey, Known> known = new LinkedHashMap<>(); // guarded by itself
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
    this.ownsTimer = b.timer == null;
    this.timer = ownsTimer ? DeadlineTimer.newDefault() : b.timer;
    this.maxOutputChars = b.maxOutputChars;
    this.outputFlushInterval = b.outputFlushInterval;
    this.knownCallsCap = b.knownCalls;
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
   * nothing twice, as long as that call has not ended or is among the last 4,096 calls scheduled; a duplicate id
   * within {@code requests} fails the duplicate with {@link FailureKind#DUPLICATE_CALL} (on a private bus, so the
   * original's events are not confused) and leaves the original alone. After {@link #close()}, every call ends CANCELLED at once.
   *
   * @throws NullPointerException if an argument or element is null
   */
  public Batch schedule(String sessionId, List<CallRequest> requests) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(requests, "requests");
    List<CallRequest> reqs = List.copyOf(requests);
    BatchImpl batch = new BatchImpl(reqs.size(), true);
    SeenIds seen = new SeenIds(reqs.size());
    for (CallRequest req : reqs) {
      Claim c = claim(sessionId, req, !seen.add(req.callId()), true);
      admit(c, batch, batch.append(c.call()), null, null);
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
   * A call claimed by a batch: {@code fresh} when the batch created it and runs it (then {@code known} is its
   * reservation in the window of known calls); otherwise a duplicate of an id in the batch or a call already scheduled
   * in the session. {@code validation} is set when the call was created with validated arguments.
   */
  private record Claim(ToolCall call, Validator.Validation validation, boolean fresh, Known known) {}

  /**
   * The id rules of one request of a batch: a duplicate id within the batch ({@code duplicate}) gets its own call,
   * failed on a private bus; an id already scheduled in the session returns that call (nothing runs twice); a new id
   * gets a new PENDING call, whose creation event is published before this returns. With {@code validateNow} the
   * arguments are validated first and the call is created with them; otherwise it is created with the raw text as it
   * stands (a call announced by a stream, validated when its arguments are complete).
   */
  private Claim claim(String sessionId, CallRequest req, boolean duplicate, boolean validateNow) {
    if (duplicate) {
      return new Claim(duplicate(sessionId, req), null, false, null);
    }
    Known mine = new Known();
    CallKey key = new CallKey(sessionId, req.callId());
    Known existing = reserve(key, mine);
    if (existing != null) {
      return new Claim(existing.join(), null, false, null);
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
      unreserve(key, mine, e);
      throw e;
    }
    mine.complete(call);
    counters.scheduled.increment();
    return new Claim(call, v, true, mine);
  }

  private static ToolArguments argumentsOf(Validator.Validation v) {
    return v instanceof Validator.Valid ok ? ok.arguments() : ((Validator.Invalid) v).arguments();
  }

  /**
   * Gives call {@code index} of {@code batch} (appended already) its turn and, when the claim is fresh and
   * validated, starts its run; a call that is not fresh only takes its place (as if read-only: it runs nothing here).
   * Calls are admitted in their batch order, by the one thread that adds them. {@code hold}, when given, keeps the
   * tool from starting until it completes; {@code authorized}, when given, completes once the authorizer has decided
   * that the call may run (an open batch's whenAuthorized).
   */
  private void admit(Claim c, BatchImpl batch, int index, CompletableFuture<Void> hold,
      CompletableFuture<Void> authorized) {
    boolean readOnly = true;
    Run run = null;
    if (c.fresh()) {
      Validator.Validation v = c.validation();
      run = new Run(c.call(), v, batch, c.known());
      run.hold = hold;
      run.authorized = authorized;
      readOnly = !(v instanceof Validator.Valid ok) || ok.tool().definition().readOnly();
    }
    int turn = batch.attach(index, order, readOnly, run);
    if (run != null) {
      run.start(turn);
    }
  }

  /** The key of a call id in a session, in the map of known calls. */
  private record CallKey(String sessionId, String callId) {}

  /**
   * A call id reserved in the window of known calls: completes with the call once it is built (a second schedule of
   * the same id waits for that). {@link #ended} is set by the call's terminal hook, so trimming the window reads this
   * one object rather than the call's state (which would be four objects long out of the cache).
   */
  private static final class Known extends CompletableFuture<ToolCall> {
    volatile boolean ended;
  }

  /**
   * Reserves {@code key} for {@code mine}, or returns the call already known under it. The window keeps the last
   * {@code knownCallsCap} calls (default {@value #DEFAULT_KNOWN_CALLS}) plus every call not yet ended; the oldest are
   * let go once they have ended.
   */
  private Known reserve(CallKey key, Known mine) {
    synchronized (known) {
      Known existing = known.get(key);
      if (existing != null) {
        return existing;
      }
      known.put(key, mine);
      if (known.size() > knownCallsCap) {
        var it = known.values().iterator();
        while (known.size() > knownCallsCap && it.hasNext()) {
          if (it.next().ended) {
            it.remove();
          } else {
            break;
          }
        }
      }
      return null;
    }
  }

  /** The call ids of one batch so far: a linear scan while the batch is small, a hash set beyond. */
  private static final class SeenIds {
    private static final int SCAN = 16;
    private final String[] ids;
    private final Set<String> set;
    private int n;

    SeenIds(int size) {
      this.ids = size > 1 && size <= SCAN ? new String[size] : null;
      this.set = size <= SCAN ? null : new HashSet<>();
    }

    /** Adds {@code id}; false if it was seen before. */
    boolean add(String id) {
      if (set != null) {
        return set.add(id);
      }
      if (ids == null) {
        return n++ == 0; // a batch of one
      }
      for (int i = 0; i < n; i++) {
        if (ids[i].equals(id)) {
          return false;
        }
      }
      ids[n++] = id;
      return true;
    }
  }

  private void unreserve(CallKey key, Known mine, Throwable cause) {
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
    List<Known> all;
    synchronized (known) {
      all = new ArrayList<>(known.values());
    }
    for (CompletableFuture<ToolCall> f : all) {
      ToolCall c = f.getNow(null);
      if (c != null) {
        c.cancel("the runtime was closed");
      }
    }
    if (ownsTimer) {
      timer.close();
    }
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
   * One batch: its calls in request order, their turns, and the future of their results.
   *
   * <p>Turns. Every gate of {@link ExecutionOrder} is a prefix condition: a call may start once calls
   * {@code 0..turn-1} of its batch have ended (SEQUENTIAL: all earlier calls; PARALLEL_READS: all earlier calls for
   * a write, everything up to the last write before it for a read; PARALLEL: none). So the batch keeps the length of
   * its ended prefix and the runs waiting for a longer one; each call's terminal hook records its end, advances the
   * prefix and starts the runs whose turn came, outside the lock. The results complete, once, when the batch is
   * sealed and every call added to it has ended; they are the terminal snapshots handed to those hooks, which run
   * after each terminal event was published.
   */
  private final class BatchImpl implements Batch {
    private final CompletableFuture<List<CallResult>> done = new CompletableFuture<>();
    private ToolCall[] calls; // guarded by this; appended by the scheduling thread
    private ToolCallSnapshot[] ends; // guarded by this; a call's terminal snapshot once its hook ran
    private int added; // guarded by this; written only by the scheduling thread, which may read it unlocked
    private int writeEnd; // index + 1 of the last write added; scheduling thread only
    private int prefix; // guarded by this: calls 0..prefix-1 have ended
    private int open; // guarded by this: calls added and not ended
    private boolean sealed; // guarded by this
    private ArrayList<Run> waiting; // guarded by this: runs whose turn has not come
    private List<ToolCall> sealedCalls; // guarded by this; made on the first calls() after seal
    private String cancelled; // guarded by this: set by cancelAll; calls appended later are cancelled at once
    /** The thread adding calls while their starts may be deferred ({@link #deferStart}); null once sealed or open. */
    private Thread scheduling;
    private Run deferredHead; // scheduling thread only: runs ready to begin before the batch was sealed, linked
    private Run deferredTail; // through Run.nextDeferred in the order they became ready

    /**
     * @param deferStarts whether runs that become ready on this thread before {@link #seal()} are handed to the
     *     executor together at the seal (for {@link #schedule}, which creates the whole batch at once); an open batch
     *     passes false, its calls start as their arguments complete
     */
    BatchImpl(int size, boolean deferStarts) {
      this.calls = new ToolCall[Math.max(1, size)];
      this.ends = new ToolCallSnapshot[calls.length];
      this.scheduling = deferStarts ? Thread.currentThread() : null;
    }

    /**
     * Appends {@code call} and returns its index; it counts as open until its end is reported. A call appended after
     * {@link #cancelAll} is cancelled at once. Adding thread only.
     */
    int append(ToolCall call) {
      int index;
      String reason;
      synchronized (this) {
        index = added;
        if (index == calls.length) {
          calls = Arrays.copyOf(calls, index * 2);
          ends = Arrays.copyOf(ends, index * 2);
        }
        calls[index] = call;
        added = index + 1;
        open++;
        reason = cancelled;
      }
      if (reason != null) {
        call.cancel(reason);
      }
      return index;
    }

    /**
     * Gives call {@code index} its turn (the ended prefix it must wait for; a write moves the turn of later reads)
     * and arranges for its end to be reported: by {@code run}'s terminal hook, or, for a call this batch does not
     * run, by a hook of the batch. Calls are attached in index order, by the adding thread only.
     */
    int attach(int index, ExecutionOrder order, boolean readOnly, Run run) {
      int turn = switch (order) {
        case PARALLEL -> 0;
        case SEQUENTIAL -> index;
        case PARALLEL_READS -> readOnly ? writeEnd : index;
      };
      if (!readOnly) {
        writeEnd = index + 1;
      }
      if (run != null) {
        run.index = index;
      } else {
        ToolCall call;
        synchronized (this) {
          call = calls[index];
        }
        call.whenTerminal().thenAccept(s -> ended(index, s));
      }
      return turn;
    }

    /**
     * No more calls: hands the runs that became ready meanwhile to the executor, and completes the results now if
     * every call has already ended.
     */
    void seal() {
      Run ready = deferredHead;
      deferredHead = null;
      deferredTail = null;
      scheduling = null;
      boolean complete;
      synchronized (this) {
        sealed = true;
        complete = open == 0;
      }
      while (ready != null) {
        Run next = ready.nextDeferred;
        ready.nextDeferred = null;
        ready.submit();
        ready = next;
      }
      if (complete) {
        complete();
      }
    }

    /**
     * Keeps {@code run} to be handed to the executor at {@link #seal()}, if it became ready on the scheduling thread
     * while the batch is still being built: the executor then gets the batch's ready calls together (a pool thread
     * woken once finds them all) instead of one by one between the creation of the next ones.
     */
    boolean deferStart(Run run) {
      if (scheduling != Thread.currentThread()) {
        return false;
      }
      if (deferredTail == null) {
        deferredHead = run;
      } else {
        deferredTail.nextDeferred = run;
      }
      deferredTail = run;
      return true;
    }

    /**
     * Whether {@code run}'s turn has come; if not, it is queued and {@link Run#onTurn()} is called when it comes.
     */
    boolean awaitTurn(Run run, int turn) {
      synchronized (this) {
        if (prefix >= turn) {
          return true;
        }
        if (waiting == null) {
          waiting = new ArrayList<>();
        }
        run.turn = turn;
        waiting.add(run);
        return false;
      }
    }

    /** Call {@code index} ended with {@code s} (its terminal event published): its turn passes on. */
    void ended(int index, ToolCallSnapshot s) {
      Run[] ready = null;
      boolean complete;
      synchronized (this) {
        ends[index] = s;
        open--;
        int p = prefix;
        while (p < added && ends[p] != null) {
          p++;
        }
        if (p != prefix) {
          prefix = p;
          ready = takeReady(p);
        }
        complete = sealed && open == 0;
      }
      if (ready != null) {
        for (Run r : ready) {
          r.onTurn();
        }
      }
      if (complete) {
        complete();
      }
    }

    /** Removes and returns the waiting runs whose turn is at most {@code p}, in the order they began waiting. */
    private Run[] takeReady(int p) {
      if (waiting == null || waiting.isEmpty()) {
        return null;
      }
      ArrayList<Run> ready = null;
      for (var it = waiting.iterator(); it.hasNext(); ) {
        Run r = it.next();
        if (r.turn <= p) {
          it.remove();
          if (ready == null) {
            ready = new ArrayList<>();
          }
          ready.add(r);
        }
      }
      return ready == null ? null : ready.toArray(new Run[0]);
    }

    private void complete() {
      CallResult[] out;
      synchronized (this) {
        out = new CallResult[added];
        for (int i = 0; i < added; i++) {
          out[i] = new CallResult(ends[i]);
        }
      }
      done.complete(new ArrayView<>(out));
    }

    @Override
    public synchronized List<ToolCall> calls() {
      List<ToolCall> l = sealedCalls;
      if (l == null) {
        l = new ArrayView<>(Arrays.copyOf(calls, added));
        if (sealed) {
          sealedCalls = l;
        }
      }
      return l;
    }

    @Override
    public CompletionStage<List<CallResult>> whenDone() {
      return done.minimalCompletionStage();
    }

    @Override
    public List<CallResult> join() {
      return done.join();
    }

    @Override
    public int cancelAll(String reason) {
      Objects.requireNonNull(reason, "reason");
      List<ToolCall> cs;
      synchronized (this) {
        if (cancelled == null) {
          cancelled = reason;
        }
        cs = calls();
      }
      int n = 0;
      // last first: cancelling an earlier call opens later calls' turns, so they must already be cancelled
      for (int i = cs.size() - 1; i >= 0; i--) {
        if (cs.get(i).cancel(reason).won()) {
          n++;
        }
      }
      return n;
    }
  }

  /**
   * {@link OpenBatch}. The stream's methods run on one thread at a time (see the interface), so the entries and the
   * admission cursor are touched by that thread only; the calls list lives in the {@link BatchImpl}
   * (guarded there), so {@link #cancelAll} may come from any thread.
   */
  private final class OpenBatchImpl implements OpenBatch {
    private final String sessionId;
    private final BatchImpl batch = new BatchImpl(4, false);
    private final CompletableFuture<Void> hold;
    private final Set<String> seen = new HashSet<>();
    private final List<Entry> entries = new ArrayList<>(); // the stream's thread
    private final Map<ToolCall, Entry> byCall = new java.util.IdentityHashMap<>(); // the stream's thread
    private final CompletableFuture<Void> authorized = new CompletableFuture<>();
    private int admitted; // entries [0, admitted) have been started or linked
    private volatile boolean sealed;

    OpenBatchImpl(String sessionId, CompletableFuture<Void> hold) {
      this.sessionId = sessionId;
      this.hold = hold;
    }

    /** One announced call and its raw arguments so far. */
    private final class Entry {
      final Claim claim;
      final int index; // the call's place in the batch
      final StringBuilder raw = new StringBuilder();
      final CompletableFuture<Void> authorized = new CompletableFuture<>();
      int fragments;
      int published;
      boolean complete;

      Entry(Claim claim, int index) {
        this.claim = claim;
        this.index = index;
        if (claim.fresh()) {
          claim.call().whenTerminal().thenRun(() -> {
            claim.known().ended = true; // also when it ends before a run exists (cancelled while streaming)
            authorized.complete(null);
          });
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
      return announce(CallRequest.of(callId, toolName, ""));
    }

    @Override
    public ToolCall announce(String callId, String toolName, String parentCallId) {
      return announce(CallRequest.of(callId, toolName, "").nestedIn(parentCallId));
    }

    private ToolCall announce(CallRequest req) {
      String callId = req.callId();
      checkOpen();
      Claim c = claim(sessionId, req, !seen.add(callId), false);
      Entry e = new Entry(c, batch.append(c.call()));
      entries.add(e);
      byCall.put(c.call(), e);
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
      return batch.calls();
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
          admit(new Claim(call, null, false, null), batch, e.index, null, null);
          continue;
        }
        Validator.Validation v = validator.validate(call.toolName(), e.raw.toString());
        ToolArguments args = argumentsOf(v);
        if (!call.snapshot().arguments().equals(args)) {
          call.modifyArguments(ToolCallState.PENDING, args, FINAL);
        }
        admit(new Claim(call, v, true, e.claim.known()), batch, e.index, hold, e.authorized);
      }
    }
  }

  /** The pipeline of one call. */
  /** An unmodifiable list over an array that nobody writes any more. */
  private static final class ArrayView<T> extends AbstractList<T> implements RandomAccess {
    private final T[] items;

    ArrayView(T[] items) {
      this.items = items;
    }

    @Override
    public T get(int index) {
      return items[index];
    }

    @Override
    public int size() {
      return items.length;
    }
  }

  /**
   * The pipeline of one call: authorization, its turn in the batch, a permit, then attempts on the executor. Each
   * step continues on the thread that completed the previous one (synchronously when it already had), with no
   * future chained per step; {@link #run()} is the task that begins the call on the executor.
   */
  private final class Run implements Runnable, Permits.Waiter {
    private static final int NO_PERMIT = 0;
    private static final int HOLDS_PERMIT = 1;
    private static final int ENDED = 2;
    private static final VarHandle PERMIT;

    static {
      try {
        PERMIT = MethodHandles.lookup().findVarHandle(Run.class, "permit", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final ToolCall call;
    private final Validator.Validation validation;
    private final BatchImpl batch;
    private final Known known;
    private final Tool tool; // null for an invalid call
    int turn; // guarded by the batch: the turn this run waits for, while it waits
    int index; // the call's place in its batch; set before start
    /** Set before start by an open batch held until its runtime lets the tools go: no tool starts before it. */
    CompletableFuture<Void> hold;
    /** Set before start by an open batch that tracks authorization; completed once the authorizer has decided. */
    CompletableFuture<Void> authorized;
    Run nextDeferred; // the batch's scheduling thread only: the next run to hand to the executor at seal
    /** NO_PERMIT, HOLDS_PERMIT, or ENDED once the terminal hook ran (which releases a held permit); CAS-updated. */
    @SuppressWarnings("unused")
    private volatile int permit;
    private volatile OutputBuffer output; // created on the first write
    private volatile Attempt current;

    Run(ToolCall call, Validator.Validation validation, BatchImpl batch, Known known) {
      this.call = call;
      this.validation = validation;
      this.batch = batch;
      this.known = known;
      this.tool = validation instanceof Validator.Valid ok ? ok.tool() : null;
    }

    /** Starts the pipeline; the call may begin once the ended prefix of its batch reaches {@code turn}. */
    void start(int turn) {
      call.whenTerminal().thenAccept(this::onTerminal);
      if (closed) {
        call.cancel("the runtime was closed");
        return;
      }
      if (validation instanceof Validator.Invalid bad) {
        call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, VALIDATING);
        call.fail(bad.kind(), bad.message());
        return;
      }
      CompletionStage<ToolCallSnapshot> decided;
      try {
        decided = Objects.requireNonNull(authorizer.authorize(call, tool.definition()), "authorizer returned null");
      } catch (RuntimeException e) {
        log.error("authorizer failed for call {} ({})", call.callId(), call.toolName(), e);
        call.cancel("the permission check failed: " + defaultErrorText(e));
        return;
      }
      CompletableFuture<ToolCallSnapshot> f = decided.toCompletableFuture();
      if (f.isDone() && !f.isCompletedExceptionally()) {
        onDecided(f.join(), null, turn); // decided already (no approval needed, a rule, a grant): go on at once
      } else {
        f.whenComplete((s, t) -> onDecided(s, t, turn));
      }
    }

    /** The authorizer's answer: wait for the turn unless the call ended (denied or cancelled). */
    private void onDecided(ToolCallSnapshot s, Throwable t, int turn) {
      if (t != null || s == null) {
        failed(t != null ? t : new NullPointerException("the authorizer completed with null"));
        return;
      }
      if (s.isTerminal()) {
        return; // an open batch's whenAuthorized counts a terminal decision once its event is out (its entry's hook)
      }
      if (authorized != null) {
        authorized.complete(null);
      }
      CompletableFuture<Void> h = hold;
      if (h != null && !h.isDone()) {
        h.thenRun(() -> awaitTurn(turn));
      } else {
        awaitTurn(turn);
      }
    }

    private void awaitTurn(int turn) {
      if (batch.awaitTurn(this, turn)) {
        onTurn();
      }
    }

    /** The calls before this one have ended as its order requires: take a permit. */
    void onTurn() {
      if (call.isTerminal()) {
        return;
      }
      if (permits.acquire(this)) {
        granted();
      }
    }

    /** A permit is held: keep it until the call ends, and begin on the executor. */
    @Override
    public void granted() {
      if (!PERMIT.compareAndSet(this, NO_PERMIT, HOLDS_PERMIT)) {
        permits.release(); // the call ended before the permit came: the terminal hook has run already
        return;
      }
      if (call.isTerminal()) {
        return; // the terminal hook releases the permit
      }
      if (!batch.deferStart(this)) {
        submit();
      }
    }

    /** Hands the run to the executor, which begins the call. */
    void submit() {
      try {
        executor.execute(this);
      } catch (Throwable e) { // as a stage of a future would: a rejection fails the call, anything else too
        failed(e);
      }
    }

    /** Begins the call on the executor. */
    @Override
    public void run() {
      try {
        begin(tool);
      } catch (Throwable t) {
        failed(t);
      }
    }

    /** A step failed with {@code t}: a rejected start fails the call; anything else is an internal error. */
    private void failed(Throwable t) {
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

    /** The live output of the call, created on the first write. */
    OutputBuffer output() {
      OutputBuffer o = output;
      if (o == null) {
        synchronized (this) {
          o = output;
          if (o == null) {
            o = new OutputBuffer(call, maxOutputChars, this::armFlush, counters);
            output = o;
          }
        }
      }
      return o;
    }

    /** Publishes pending output now (before the call's result is installed). */
    private void flushOutput() {
      OutputBuffer o = output;
      if (o != null) {
        o.flushNow();
      }
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
      a.timeout = timer.schedule(() -> onTimeout(a, timeout), timeout);
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
          flushOutput();
          call.fail(FailureKind.NULL_RESULT, "The tool returned no result.");
          return;
        }
        ToolResult out = result;
        for (ToolInterceptor i : interceptors) {
          try {
            out = Objects.requireNonNull(i.after(call.snapshot(), out), "interceptor returned null");
          } catch (RuntimeException e) {
            log.warn("interceptor {} failed after call {} ({})", i.name(), call.callId(), call.toolName(), e);
            flushOutput();
            call.fail(FailureKind.TOOL_ERROR, "The tool's result could not be post-processed.");
            return;
          }
        }
        flushOutput();
        if (!call.complete(out.content()).won()) {
          counters.discarded.increment();
        }
        return;
      }
      RetryPolicy policy = a.tool.definition().retryPolicy();
      if (t instanceof TransientToolException && a.number < policy.maxAttempts()) {
        flushOutput();
        int next = a.number + 1;
        Duration delay = policy.delay(next, random.getAsDouble());
        if (call.scheduleRetry(next, delay, messageOf(t)).won()) {
          timer.schedule(() -> attempt(a.tool, a.args, next, false), delay);
          if (closed) {
            call.cancel("the runtime was closed");
          }
        }
        return;
      }
      flushOutput();
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

    /**
     * The call's one terminal hook (it runs after the terminal event was published): stop the tool, free the permit,
     * apply the failure policy, then report the end to the batch, last, so that whoever awaits the batch finds the
     * permit already free.
     */
    private void onTerminal(ToolCallSnapshot s) {
      known.ended = true;
      try {
        Attempt a = current;
        if (a != null) {
          a.interruptIfInBody();
        }
        if ((int) PERMIT.getAndSet(this, ENDED) == HOLDS_PERMIT) {
          permits.release(); // may start a waiting call inline
        }
        if (tool != null && failurePolicy == FailurePolicy.CANCEL_SIBLINGS
            && s.outcome() instanceof Outcome.Failed) {
          batch.cancelAll("cancelled because call " + s.callId() + " (" + s.toolName() + ") failed");
        }
      } finally {
        batch.ended(index, s);
      }
    }

    private void armFlush() {
      timer.schedule(() -> {
        try {
          executor.execute(this::flushOutput);
        } catch (RejectedExecutionException e) {
          flushOutput();
        }
      }, outputFlushInterval);
    }
  }

  /** One attempt of a call: its invocation, the thread in the tool body (if any), and its timeout. */
  private final class Attempt implements ToolInvocation {
    private final Run run;
    private final Tool tool;
    private final ToolArguments args;
    private final int number;
    private final AtomicBoolean finished = new AtomicBoolean();
    volatile DeadlineTimer.Handle timeout = DeadlineTimer.Handle.NONE;
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
      CompletionStage<ToolResult> stage = null; // an asynchronous tool's
      ToolResult result = null; // a blocking tool's
      Throwable error = null;
      VirtualMachineError fatal = null;
      try {
        if (tool instanceof Tool.BlockingTool b) {
          result = b.body().run(this);
        } else {
          stage = tool.execute(this); // null is a null result
        }
      } catch (VirtualMachineError e) {
        fatal = e;
        error = e;
      } catch (Throwable e) {
        error = e;
      } finally {
        synchronized (this) {
          bodyThread = null;
          if (abandoned) {
            counters.stillRunning.decrementAndGet();
          }
        }
        Thread.interrupted(); // an interrupt meant for the tool must not leak into the executor's next task
      }
      if (stage != null) {
        stage.whenComplete((r, t) -> run.onAttemptDone(this, r, t));
      } else {
        run.onAttemptDone(this, result, error);
      }
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
        run.output().write(chunk);
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
    private DeadlineTimer timer;
    private int maxOutputChars = 1 << 20;
    private Duration outputFlushInterval = Duration.ofMillis(20);
    private int knownCalls = DEFAULT_KNOWN_CALLS;

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

    /**
     * The timer of timeouts, retry backoff and output flushes (default: a {@link DeadlineTimer#newDefault()} of its
     * own, closed by {@link ToolScheduler#close()}). A timer given here is shared, not owned: the scheduler never
     * closes it; whoever made it does ({@link dev.toolcall.ToolCallRuntime} shares one with its permission service).
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
