package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.KnownCalls.Known;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * The pipeline of one call: authorization, its turn in the batch, a permit, then attempts on the executor. Each
 * step continues on the thread that completed the previous one (synchronously when it already had), with no
 * future chained per step; {@link #run()} is the task that begins the call on the executor. The end of an attempt is
 * in {@link AttemptEnd}, the live output in {@link RunOutput}, and what happens when a step or the store fails in
 * {@link RunFailures}; they keep no state of their own, so a call allocates nothing more for them.
 */
final class CallRun implements Runnable, Permits.Waiter, java.util.function.Consumer<ToolCallSnapshot>,
    java.util.function.BiConsumer<ToolCallSnapshot, Throwable> {
  final ToolScheduler sched;

  static final int NO_PERMIT = 0;
  static final int HOLDS_PERMIT = 1;
  static final int ENDED = 2;
  /** A nested call: it runs under its parent's permit and holds none of its own. */
  static final int NESTED = 3;
  static final VarHandle PERMIT;
  static final VarHandle CHILDREN;
  private static final Class<?> MINIMAL_STAGE = CompletableFuture.completedStage(null).getClass();

  static {
    try {
      PERMIT = MethodHandles.lookup().findVarHandle(CallRun.class, "permit", int.class);
      CHILDREN = MethodHandles.lookup().findVarHandle(CallRun.class, "children",
          java.util.concurrent.ConcurrentLinkedQueue.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final ToolCall call;
  /** Why the call's arguments are not valid, or null when they are (a valid call keeps only its {@link #tool}). */
  final Validator.Invalid invalid;
  final BatchImpl batch;
  final Known known;
  final Tool tool; // null for an invalid call
  /** The turn this run waits for: set before it waits for its authorizer, then guarded by the batch. */
  int turn;
  int index; // the call's place in its batch; set before start
  /** Set before start by an open batch held until its runtime lets the tools go: no tool starts before it. */
  CompletableFuture<Void> hold;
  /**
   * The calls nested in this one, cancelled when it ends (see {@link Nesting}); made by the first {@link #adopt}
   * (most calls have none: no queue and node per call), CAS-set by any thread.
   */
  volatile java.util.concurrent.ConcurrentLinkedQueue<ToolCall> children;
  /** Set before start by an open batch that tracks authorization; completed once the authorizer has decided. */
  CompletableFuture<Void> authorized;
  /** Set before start for a call resumed from a snapshot: the decision, in place of the authorizer's. */
  CompletionStage<ToolCallSnapshot> resumedDecision;
  /** Set before start for a call resumed RUNNING that runs again (an idempotent tool): no second move to RUNNING. */
  boolean resumedRunning;
  CallRun nextDeferred; // the batch's scheduling thread only: the next run to hand to the executor at seal
  /**
   * NO_PERMIT, HOLDS_PERMIT, NESTED, or ENDED once the terminal hook ran (which releases a held permit);
   * CAS-updated.
   */
  @SuppressWarnings("unused")
  volatile int permit;
  volatile OutputBuffer output; // created on the first write (see RunOutput)
  volatile Attempt current;
  /**
   * How many periodic output flushes in a row the store failed; racy (two periodic flushes may overlap), and only the
   * backoff and the one log line depend on it (see {@link RunOutput#flushLater}).
   */
  int flushFailures;
  /** How many times in a row the store failed this call's claim to start (the scheduling thread of the run only). */
  int claimFailures;

  CallRun(ToolScheduler sched, ToolCall call, Validator.Validation validation, BatchImpl batch, Known known) {
    this.sched = sched;
    this.call = call;
    this.invalid = validation instanceof Validator.Invalid bad ? bad : null;
    this.batch = batch;
    this.known = known;
    this.tool = validation instanceof Validator.Valid ok ? ok.tool() : null;
    if (known != null) {
      known.run = this;
    }
  }

  /** Whether this runtime started the tool (or took the call over); false while it runs on another runtime. */
  volatile boolean startedHere;
  /** Whether this run is running here and may have nested calls ({@link Nesting}); false once it ended. */
  volatile boolean nestable;

  /** Starts the pipeline; the call may begin once the ended prefix of its batch reaches {@code turn}. */
  void start(int turn) {
    if (!(authorized instanceof OpenBatchImpl.Authorized a && a.attach(this))) {
      call.onTerminal(this::onTerminal); // an open batch's entry calls the hook, if not ended yet
    }
    if (sched.closed) {
      call.cancel("the runtime was closed");
      return;
    }
    if (invalid != null) {
      Validator.Invalid bad = invalid;
      // PENDING -> RUNNING (validating) -> FAILED; a resumed call likewise
      RunFailures.durably(this, () -> RunFailures.failOrCancel(call, bad.kind(), bad.message()));
      return;
    }
    CompletionStage<ToolCallSnapshot> decided;
    try {
      decided = resumedDecision != null ? resumedDecision
          : Objects.requireNonNull(sched.authorizer.authorize(call, tool.definition()), "authorizer returned null");
    } catch (RuntimeException | Error e) { // user code (or its call store failed): an Error ends the call too
      ToolScheduler.log.error("authorizer failed for call {} ({})", call.callId(), call.toolName(), e);
      String why = "The permission check failed, so the call could not be run: " + ErrorText.defaultErrorText(e);
      RunFailures.durably(this, () -> call.cancel(why));
      return;
    }
    // a future other than a minimal stage (whose isDone throws) is polled and chained on as is: no copy per call
    CompletableFuture<ToolCallSnapshot> f = decided instanceof CompletableFuture<ToolCallSnapshot> cf
        && cf.getClass() != MINIMAL_STAGE ? cf : decided.toCompletableFuture();
    if (f.isDone() && !f.isCompletedExceptionally()) {
      onDecided(f.join(), null, turn); // decided already (no approval needed, a rule, a grant): go on at once
    } else {
      waits();
      this.turn = turn;
      if (f instanceof dev.toolcall.OwnedStage owned) {
        owned.onSettled(this); // accept(s): a permission request keeps it without a stage
      } else {
        f.whenComplete(this); // accept(s, t): no lambda per waiting call
      }
    }
  }

  /** The authorizer's answer on an owned stage ({@link dev.toolcall.OwnedStage#onSettled}), when it came later. */
  @Override
  public void accept(ToolCallSnapshot s) {
    onDecided(s, null, turn);
  }

  /** The authorizer's answer, when it came later: {@link #onDecided} for the turn {@link #start} was given. */
  @Override
  public void accept(ToolCallSnapshot s, Throwable t) {
    onDecided(s, t, turn);
  }

  /** The authorizer's answer: wait for the turn unless the call ended (denied or cancelled). */
  void onDecided(ToolCallSnapshot s, Throwable t, int turn) {
    if (t != null || s == null) {
      RunFailures.failed(this, t != null ? t : new NullPointerException("the authorizer completed with null"));
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
      waits();
      h.thenRun(() -> awaitTurn(turn));
    } else {
      awaitTurn(turn);
    }
  }

  void awaitTurn(int turn) {
    if (batch.awaitTurn(this, turn)) {
      onTurn();
    } else {
      waits();
    }
  }

  /**
   * The call has to wait (for its authorizer, its batch's hold, its turn or a permit): a call stored with its first
   * change is stored now as it stands, so that what waits is in the store and its PENDING event is out. A store that
   * fails here leaves it for the call's next change, which stores it.
   */
  void waits() {
    try {
      call.store();
    } catch (RuntimeException e) {
      ToolScheduler.log.debug("call {} ({}) waits unstored: its store failed ({}); its next change stores it",
          call.callId(), call.toolName(), e.toString());
    }
  }

  /**
   * The calls before this one have ended as its order requires: take a permit. A nested call (one with a parent
   * call) takes none: it runs under its parent's, so a tool that schedules sub-calls and waits for them cannot
   * deadlock on the permits it holds itself, whatever {@code maxParallel} and the depth.
   */
  void onTurn() {
    if (call.isTerminal()) {
      return;
    }
    if (call.identity().parentCallId() != null) {
      if (PERMIT.compareAndSet(this, NO_PERMIT, NESTED) && !call.isTerminal() && !batch.deferStart(this)) {
        submit(); // a deferred start is handed to the executor at the seal, on this thread: not a wait
      }
      return;
    }
    if (sched.permits.acquire(this)) {
      granted();
    } else {
      waits();
    }
  }

  /** A permit is held: keep it until the call ends, and begin on the executor. */
  @Override
  public void granted() {
    if (!PERMIT.compareAndSet(this, NO_PERMIT, HOLDS_PERMIT)) {
      sched.permits.release(); // the call ended before the permit came: the terminal hook has run already
      return;
    }
    if (call.isTerminal()) {
      return; // the terminal hook releases the permit
    }
    if (!batch.deferStart(this)) {
      submit(); // a deferred start is handed to the executor at the seal, on this thread: not a wait
    }
  }

  /** Hands the run to the executor, which begins the call. */
  void submit() {
    try {
      sched.executor.execute(this);
    } catch (Throwable e) { // as a stage of a future would: a rejection fails the call, anything else too
      RunFailures.failed(this, e);
    }
  }

  /** Begins the call on the executor. */
  @Override
  public void run() {
    try {
      begin(tool);
    } catch (Throwable t) {
      RunFailures.failed(this, t);
    }
  }

  /**
   * Takes over the call, which another runtime sharing the store claimed RUNNING and stopped looking after (its lease
   * expired), as a restore would: an idempotent tool runs again here as the next attempt, any other call ends FAILED,
   * outcome unknown. Only once the call has had its turn here (it holds its permit) and was not started here; the
   * store lets one runtime win.
   *
   * @return whether this runtime changed the call
   */
  boolean takeOver() {
    ToolCallSnapshot s = call.snapshot();
    int p = (int) PERMIT.getVolatile(this);
    if (startedHere || tool == null || s.state() != ToolCallState.RUNNING || p != HOLDS_PERMIT && p != NESTED) {
      return false;
    }
    if (!tool.definition().idempotent()) {
      return call.fail(FailureKind.OUTCOME_UNKNOWN, ToolScheduler.LEASE_LOST).won();
    }
    TransitionResult<ToolCallSnapshot> retry = call.scheduleRetry(s.attempt() + 1, Duration.ZERO, "The runtime"
        + " that ran attempt " + s.attempt() + " stopped renewing its claim; the tool is idempotent, so it runs"
        + " again.");
    if (!retry.won()) {
      ToolCallSnapshot now = retry.snapshot();
      return now.state() == ToolCallState.RUNNING && now.attempt() == s.attempt() // no version left for a retry
          && call.fail(FailureKind.OUTCOME_UNKNOWN, ToolScheduler.LEASE_LOST).won();
    }
    startedHere = true;
    sched.nesting.started(this);
    if (call.isTerminal()) {
      sched.nesting.ended(this);
    }
    ToolCallSnapshot now = call.snapshot();
    attempt(tool, now.arguments(), now.attempt(), false);
    return true;
  }

  /**
   * The run's authorizer let the call go on, but this copy of it is still PERMISSION_PENDING: the decision was made
   * and stored through another copy of the same call (a shared store's row loaded twice). Reads the store's version
   * and begins from it; while the store has not got the decision either (it is being written), tries again later.
   */
  private void stale() {
    ToolCallSnapshot now;
    try {
      now = call.refresh();
    } catch (RuntimeException e) {
      RunFailures.retryBegin(this, e);
      return;
    }
    if (now.state() == ToolCallState.PERMISSION_PENDING) {
      RunFailures.retryBegin(this, new dev.toolcall.StaleCallException(now.identity().sessionId() + "/"
          + now.callId(), now.version()));
    } else if (!now.isTerminal()) {
      submit();
    }
  }

  void begin(Tool tool) {
    ToolCallSnapshot s = call.snapshot();
    if (s.isTerminal()) {
      return;
    }
    ToolArguments args = s.arguments();
    if (resumedRunning && s.state() == ToolCallState.RUNNING) { // resumed: its retry is recorded, run that attempt
      startedHere = true;
      sched.nesting.started(this);
      if (call.isTerminal()) {
        sched.nesting.ended(this);
      }
      attempt(tool, args, s.attempt(), true);
      return;
    }
    Validator.Validation edited = null;
    if (s.argumentsVersion() != 0) {
      edited = sched.validator.revalidate(tool, args);
    }
    if (s.state() == ToolCallState.RUNNING) {
      return; // another runtime sharing the store runs it: its outcome comes from there; the permit waits for it
    }
    if (s.state() == ToolCallState.PERMISSION_PENDING) {
      stale(); // its authorizer approved it, but this copy still waits: the approval was stored through another one
      return;
    }
    Reason why = s.state() == ToolCallState.PENDING ? Reason.NO_PERMISSION_NEEDED : Reason.STARTED;
    boolean claimed;
    try {
      claimed = call.transition(s.state(), ToolCallState.RUNNING, why).won();
    } catch (RuntimeException e) {
      if (sched.store == null || e instanceof dev.toolcall.StaleCallException) {
        throw e;
      }
      if (!sched.writes.retriable(e)) {
        RunFailures.unstorable(this, e);
        return;
      }
      RunFailures.retryBegin(this, e); // the store failed the claim: nothing changed, the tool has not started; try again later
      return;
    }
    if (!claimed) {
      return; // cancelled meanwhile, or claimed by another runtime; the permit is released by the terminal hook
    }
    startedHere = true;
    sched.nesting.started(this);
    if (call.isTerminal()) {
      sched.nesting.ended(this); // ended before it was registered: its terminal hook may have missed it
    }
    if (edited instanceof Validator.Invalid bad) {
      call.fail(bad.kind(), "The edited arguments are not valid: " + bad.message());
      return;
    }
    for (ToolInterceptor i : sched.interceptors) {
      ToolInterceptor.Before d;
      try {
        d = Objects.requireNonNull(i.before(call.snapshot()), "interceptor returned null");
      } catch (RuntimeException | Error e) { // user code: an Error ends the call too
        ToolScheduler.log.warn("interceptor {} failed before call {} ({})", i.name(), call.callId(),
            call.toolName(), e);
        call.fail(FailureKind.BLOCKED, "The call was blocked: a pre-execution check failed.");
        return;
      }
      if (d instanceof ToolInterceptor.Block b) {
        call.fail(FailureKind.BLOCKED, b.reason());
        return;
      }
      if (d instanceof ToolInterceptor.Replace r) {
        Validator.Validation v = sched.validator.revalidate(tool, r.arguments());
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

  void attempt(Tool tool, ToolArguments args, int n, boolean inline) {
    if (call.isTerminal()) {
      return;
    }
    if (sched.closed) {
      if (!sched.handedOff) {
        call.cancel("the runtime was closed");
      }
      return;
    }
    Attempt a = new Attempt(this, tool, args, n);
    current = a;
    sched.counters.attempts.increment();
    Duration timeout = tool.definition().timeoutIfSet().orElse(sched.defaultTimeout);
    a.timeout = sched.timer.schedule(() -> AttemptEnd.timedOut(this, a, timeout), timeout);
    if (inline) {
      a.run();
      return;
    }
    try {
      sched.executor.execute(a::run);
    } catch (RejectedExecutionException e) {
      sched.counters.rejections.increment();
      a.timeout.cancel();
      RunFailures.durably(this, () -> call.fail(FailureKind.EXECUTOR_REJECTED,
          "The tool could not be started: the runtime is overloaded or shutting down."));
    }
  }

  /**
   * Takes {@code child} as a call nested in this one: it is cancelled when this call ends, at once if this call has
   * ended already (the check follows the add, and the terminal hook drains after the state is terminal, so a child
   * added during the end is cancelled by one of the two).
   */
  void adopt(ToolCall child) {
    var q = children;
    if (q == null && !CHILDREN.compareAndSet(this, null, q = new java.util.concurrent.ConcurrentLinkedQueue<>())) {
      q = children;
    }
    q.add(child);
    if (call.isTerminal()) {
      cancelChildren(call.snapshot());
    }
  }

  void cancelChildren(ToolCallSnapshot s) {
    var q = children;
    ToolCall child;
    while (q != null && (child = q.poll()) != null) {
      child.cancel("its parent call " + call.callId() + " (" + call.toolName() + ") ended "
          + s.state().wireName());
    }
  }

  /**
   * The call's one terminal hook (it runs after the terminal event was published): stop the tool, free the permit,
   * apply the failure policy, then report the end to the batch, last, so that whoever awaits the batch finds the
   * permit already free.
   */
  void onTerminal(ToolCallSnapshot s) {
    known.ended(s.state());
    try {
      sched.nesting.ended(this);
      cancelChildren(s);
      Attempt a = current;
      if (a != null) {
        a.interruptIfInBody();
      }
      if ((int) PERMIT.getAndSet(this, ENDED) == HOLDS_PERMIT) {
        sched.permits.release(); // may start a waiting call inline
      }
      if (tool != null && sched.failurePolicy == FailurePolicy.CANCEL_SIBLINGS
          && s.outcome() instanceof Outcome.Failed) {
        batch.cancelAll("cancelled because call " + s.callId() + " (" + s.toolName() + ") failed");
      }
    } finally {
      batch.ended(index, s);
    }
  }
}
