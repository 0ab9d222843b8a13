package dev.toolcall.execution;

import dev.toolcall.Change;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.KnownCalls.Known;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * The pipeline of one call: authorization, its turn in the batch, a permit, then attempts on the executor. Each
 * step continues on the thread that completed the previous one (synchronously when it already had), with no
 * future chained per step; {@link #run()} is the task that begins the call on the executor.
 */
final class CallRun implements Runnable, Permits.Waiter {
  final ToolScheduler sched;

  static final int NO_PERMIT = 0;
  static final int HOLDS_PERMIT = 1;
  static final int ENDED = 2;
  /** A nested call: it runs under its parent's permit and holds none of its own. */
  static final int NESTED = 3;
  static final VarHandle PERMIT;

  static {
    try {
      PERMIT = MethodHandles.lookup().findVarHandle(CallRun.class, "permit", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final ToolCall call;
  final Validator.Validation validation;
  final BatchImpl batch;
  final Known known;
  final Tool tool; // null for an invalid call
  int turn; // guarded by the batch: the turn this run waits for, while it waits
  int index; // the call's place in its batch; set before start
  /** Set before start by an open batch held until its runtime lets the tools go: no tool starts before it. */
  CompletableFuture<Void> hold;
  /** The calls nested in this one, cancelled when it ends (see {@link Nesting}). */
  final java.util.concurrent.ConcurrentLinkedQueue<ToolCall> children = new java.util.concurrent.ConcurrentLinkedQueue<>();
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
  volatile OutputBuffer output; // created on the first write
  volatile Attempt current;

  CallRun(ToolScheduler sched, ToolCall call, Validator.Validation validation, BatchImpl batch, Known known) {
    this.sched = sched;
    this.call = call;
    this.validation = validation;
    this.batch = batch;
    this.known = known;
    this.tool = validation instanceof Validator.Valid ok ? ok.tool() : null;
    if (known != null) {
      known.run = this;
    }
  }

  /** Whether this runtime started the tool (or took the call over); false while it runs on another runtime. */
  volatile boolean startedHere;

  /** Starts the pipeline; the call may begin once the ended prefix of its batch reaches {@code turn}. */
  void start(int turn) {
    call.whenTerminal().thenAccept(this::onTerminal);
    if (sched.closed) {
      call.cancel("the runtime was closed");
      return;
    }
    if (validation instanceof Validator.Invalid bad) {
      // PENDING -> RUNNING (validating) -> FAILED; a resumed call likewise
      durably(() -> failOrCancel(bad.kind(), bad.message()));
      return;
    }
    CompletionStage<ToolCallSnapshot> decided;
    try {
      decided = resumedDecision != null ? resumedDecision
          : Objects.requireNonNull(sched.authorizer.authorize(call, tool.definition()), "authorizer returned null");
    } catch (RuntimeException | Error e) { // user code (or its call store failed): an Error ends the call too
      ToolScheduler.log.error("authorizer failed for call {} ({})", call.callId(), call.toolName(), e);
      String why = "The permission check failed, so the call could not be run: " + ErrorText.defaultErrorText(e);
      durably(() -> call.cancel(why));
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
  void onDecided(ToolCallSnapshot s, Throwable t, int turn) {
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

  void awaitTurn(int turn) {
    if (batch.awaitTurn(this, turn)) {
      onTurn();
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
        submit();
      }
      return;
    }
    if (sched.permits.acquire(this)) {
      granted();
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
      submit();
    }
  }

  /** Hands the run to the executor, which begins the call. */
  void submit() {
    try {
      sched.executor.execute(this);
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
    if (!call.scheduleRetry(s.attempt() + 1, Duration.ZERO, "The runtime that ran attempt " + s.attempt()
        + " stopped renewing its claim; the tool is idempotent, so it runs again.").won()) {
      return false;
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

  /** A step failed with {@code t}: a rejected start fails the call; anything else is an internal error. */
  void failed(Throwable t) {
    if (sched.handedOff) {
      return; // closed, handing the calls over: the call stays as stored, for another runtime
    }
    Throwable cause = ErrorText.unwrap(t);
    if (cause instanceof RejectedExecutionException) {
      sched.counters.rejections.increment();
      durably(() -> failOrCancel(FailureKind.EXECUTOR_REJECTED,
          "The tool could not be started: the runtime is overloaded or shutting down."));
    } else if (call.isTerminal()) {
      return; // ended meanwhile: nothing to do
    } else if (cause instanceof dev.toolcall.StaleCallException) { // another runtime moved it on: not ours to end
      ToolScheduler.log.warn("call {} ({}) was not run here: {}", call.callId(), call.toolName(), cause.toString());
    } else {
      ToolScheduler.log.error("scheduling failed for call {} ({})", call.callId(), call.toolName(), cause);
      try { // with a store that fails the write too, tried again until it lands
        durably(() -> failOrCancel(FailureKind.INTERNAL_ERROR, "The call could not be run: an internal error"
            + " occurred."));
      } catch (RuntimeException e) { // closing, or another runtime moved it on: the call stays as stored
        ToolScheduler.log.error("call {} ({}) could not be ended either: {}", call.callId(), call.toolName(),
            e.toString());
      }
    }
  }

  /** The live output of the call, created on the first write. */
  OutputBuffer output() {
    OutputBuffer o = output;
    if (o == null) {
      synchronized (this) {
        o = output;
        if (o == null) {
          o = new OutputBuffer(call, sched.maxOutputChars, this::armFlush, sched.counters);
          output = o;
        }
      }
    }
    return o;
  }

  /**
   * Publishes pending output now (before the call's result is installed). A store failure that may go away is thrown
   * (the output is kept for the next try); output the store can never hold is dropped (counted as dropped), not
   * retried.
   */
  void flushOutput() {
    OutputBuffer o = output;
    if (o == null) {
      return;
    }
    try {
      o.flushNow();
    } catch (RuntimeException e) {
      if (sched.store == null || sched.writes.retriable(e) || e instanceof dev.toolcall.StaleCallException) {
        throw e;
      }
      ToolScheduler.log.warn("call {} ({}): its store cannot store a chunk of its output ({}); the chunk is dropped",
          call.callId(), call.toolName(), e.toString());
      o.dropPending();
    }
  }

  /**
   * How many periodic output flushes in a row the store failed; racy (two periodic flushes may overlap), and only the
   * backoff and the one log line depend on it.
   */
  private int flushFailures;

  /**
   * The periodic flush of live output, on the executor: never throws there. When the store fails it (it is
   * unreachable), the output stays pending and the flush is tried again on the timer, backing off from 100 ms to 5 s;
   * the call's end flushes what is left first in any case.
   */
  void flushLater() {
    try {
      flushOutput();
      flushFailures = 0;
    } catch (RuntimeException e) {
      if (call.isTerminal() || sched.closed || e instanceof dev.toolcall.StaleCallException) {
        return; // ended, or moved on elsewhere: nothing of this call's output is published any more
      }
      if (flushFailures++ == 0) {
        ToolScheduler.log.warn("call {} ({}): its store failed a write of its live output ({}); trying again until"
            + " it lands", call.callId(), call.toolName(), e.toString());
      }
      sched.timer.schedule(this::flushOnExecutor, storeBackoff(flushFailures - 1));
    }
  }

  private void flushOnExecutor() {
    try {
      sched.executor.execute(this::flushLater);
    } catch (RejectedExecutionException e) {
      flushLater();
    }
  }

  /** Ends the call whatever state it is in: FAILED when it can (through RUNNING), otherwise CANCELLED. */
  void failOrCancel(FailureKind kind, String message) {
    for (int i = 0; i < 4 && !call.isTerminal(); i++) {
      ToolCallSnapshot s = call.snapshot();
      if (s.state() == ToolCallState.RUNNING) {
        call.fail(kind, message);
      } else if (s.state().canTransitionTo(ToolCallState.RUNNING)) {
        call.transition(s.state(), ToolCallState.RUNNING, ToolScheduler.VALIDATING);
      } else {
        call.cancel(message);
      }
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
    Reason why = s.state() == ToolCallState.PENDING ? Reason.NO_PERMISSION_NEEDED : Reason.STARTED;
    boolean claimed;
    try {
      claimed = call.transition(s.state(), ToolCallState.RUNNING, why).won();
    } catch (RuntimeException e) {
      if (sched.store == null || e instanceof dev.toolcall.StaleCallException) {
        throw e;
      }
      if (!sched.writes.retriable(e)) {
        unstorable(e);
        return;
      }
      retryBegin(e); // the store failed the claim: nothing changed, the tool has not started; try again later
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
    a.timeout = sched.timer.schedule(() -> onTimeout(a, timeout), timeout);
    if (inline) {
      a.run();
      return;
    }
    try {
      sched.executor.execute(a::run);
    } catch (RejectedExecutionException e) {
      sched.counters.rejections.increment();
      a.timeout.cancel();
      durably(() -> call.fail(FailureKind.EXECUTOR_REJECTED,
          "The tool could not be started: the runtime is overloaded or shutting down."));
    }
  }

  void onTimeout(Attempt a, Duration timeout) {
    if (current != a || !a.finish()) {
      return;
    }
    failRun(FailureKind.TIMEOUT, "The tool did not finish within " + ErrorText.describe(timeout)
        + " and was stopped.");
  }

  void onAttemptDone(Attempt a, ToolResult result, Throwable error) {
    if (!a.finish()) {
      if (error == null) {
        sched.counters.discarded.increment(); // the timeout won
      }
      return;
    }
    a.timeout.cancel();
    Throwable t = error == null ? null : ErrorText.unwrap(error);
    if (call.isTerminal()) {
      if (t == null) {
        sched.counters.discarded.increment();
      }
      return;
    }
    if (t == null) {
      if (result == null) {
        failRun(FailureKind.NULL_RESULT, "The tool returned no result.");
        return;
      }
      ToolResult out = result;
      for (ToolInterceptor i : sched.interceptors) {
        try {
          out = Objects.requireNonNull(i.after(call.snapshot(), out), "interceptor returned null");
        } catch (RuntimeException | Error e) { // user code: an Error ends the call too
          ToolScheduler.log.warn("interceptor {} failed after call {} ({})", i.name(), call.callId(),
              call.toolName(), e);
          finishRun(() -> call.fail(FailureKind.TOOL_ERROR, "The tool's result could not be post-processed."));
          return;
        }
      }
      Validator.Invalid bad = sched.validator.checkResult(a.tool, out);
      if (bad != null) {
        finishRun(() -> call.fail(bad.kind(), bad.message()));
        return;
      }
      if (sched.store == null) { // the common case: no store, nothing to retry, nothing allocated for it
        flushOutput();
        if (!call.complete(out).won()) {
          sched.counters.discarded.increment();
        }
        return;
      }
      ToolResult done = out;
      finishRun(() -> {
        if (!call.complete(done).won()) {
          sched.counters.discarded.increment();
        }
      });
      return;
    }
    RetryPolicy policy = a.tool.definition().retryPolicy();
    if (t instanceof TransientToolException && a.number < policy.maxAttempts()) {
      int next = a.number + 1;
      Duration delay = policy.delay(next, sched.random.getAsDouble());
      String why = messageOf(t);
      finishRun(() -> { // with a store that fails it, the retry's record is tried again until it lands
        TransitionResult<ToolCallSnapshot> r = call.scheduleRetry(next, delay, why);
        if (r.won()) {
          retryHook(() -> batch.retries.retryScheduled(call, (Change.RetryScheduled) r.snapshot().change()));
          sched.timer.schedule(() -> {
            retryHook(() -> batch.retries.retryStarting(call, next)); // published before the attempt starts
            attempt(a.tool, a.args, next, false);
          }, delay);
          if (sched.closed && !sched.handedOff) {
            call.cancel("the runtime was closed");
          }
        }
      });
      return;
    }
    if (t instanceof dev.toolcall.OutcomeUnknownException) {
      failRun(FailureKind.OUTCOME_UNKNOWN, messageOf(t));
    } else if (t instanceof ToolException te) {
      String msg = messageOf(t);
      if (t instanceof TransientToolException && a.number > 1) {
        msg = msg + " (gave up after " + a.number + " attempts)";
      }
      failRun(te.kind(), msg); // TOOL_ERROR, or INVALID_ARGUMENTS: the tool found the model's arguments wrong
    } else if (t instanceof InterruptedException) {
      failRun(FailureKind.TOOL_ERROR, "The tool was interrupted.");
    } else if (t instanceof Error) {
      ToolScheduler.log.error("tool {} threw an Error on call {}", call.toolName(), call.callId(), t);
      failRun(FailureKind.INTERNAL_ERROR, "The tool crashed: " + safeErrorText(t));
    } else {
      ToolScheduler.log.debug("tool {} failed on call {}", call.toolName(), call.callId(), t);
      failRun(FailureKind.TOOL_ERROR, safeErrorText(t));
    }
  }

  /** Runs a {@link RetryListener} method (user code): one that throws is logged and the retry goes on. */
  private void retryHook(Runnable hook) {
    if (batch.retries == RetryListener.NONE) {
      return;
    }
    try {
      hook.run();
    } catch (RuntimeException | Error e) {
      ToolScheduler.log.warn("retry listener failed on call {} ({})", call.callId(), call.toolName(), e);
    }
  }

  /**
   * Takes {@code child} as a call nested in this one: it is cancelled when this call ends, at once if this call has
   * ended already (the check follows the add, and the terminal hook drains after the state is terminal, so a child
   * added during the end is cancelled by one of the two).
   */
  void adopt(ToolCall child) {
    children.add(child);
    if (call.isTerminal()) {
      cancelChildren(call.snapshot());
    }
  }

  void cancelChildren(ToolCallSnapshot s) {
    ToolCall child;
    while ((child = children.poll()) != null) {
      child.cancel("its parent call " + call.callId() + " (" + call.toolName() + ") ended "
          + s.state().wireName());
    }
  }

  /**
   * Fails the call after its tool ran (or was started): each interceptor's {@link ToolInterceptor#afterFailure} may
   * rewrite the message for the model first. An interceptor that throws keeps the message as it was.
   */
  void failRun(FailureKind kind, String message) {
    String msg = message;
    for (ToolInterceptor i : sched.interceptors) {
      try {
        msg = Objects.requireNonNull(i.afterFailure(call.snapshot(), kind, msg), "interceptor returned null");
      } catch (RuntimeException | Error e) { // user code: the failure stands as it was
        ToolScheduler.log.warn("interceptor {} failed on the failure of call {} ({})", i.name(), call.callId(),
            call.toolName(), e);
      }
    }
    String why = msg;
    finishRun(() -> call.fail(kind, why));
  }

  /**
   * Makes an end (or a retry's record) of the call after its tool ran: its pending output is flushed first, so every
   * output event precedes it; with a store, both are tried again until they land (see {@link #durably}).
   */
  void finishRun(Runnable write) {
    if (sched.store == null) {
      flushOutput();
      write.run();
      return;
    }
    durably(() -> {
      flushOutput();
      write.run();
    });
  }

  /** How many times in a row the store failed this call's claim to start (the scheduling thread of the run only). */
  private int claimFailures;

  /**
   * The store failed the claim to start the tool (it is down): nothing changed and the tool has not started, so the
   * whole start is tried again on the timer, backing off from 100 ms to 5 s, holding the permit, until the claim lands
   * or the call ends otherwise; closing the scheduler ends it as usual.
   */
  private void retryBegin(RuntimeException e) {
    if (claimFailures++ == 0) {
      ToolScheduler.log.warn("call {} ({}) could not start: its store failed the write ({}); trying again until it"
          + " lands", call.callId(), call.toolName(), e.toString());
    }
    sched.timer.schedule(() -> {
      if (!sched.closed) { // closing cancels the call (or hands it over) by itself
        submit();
      }
    }, storeBackoff(claimFailures - 1));
  }

  /**
   * Makes a change of the call that must not be lost (its end, a retry's record, a cancel): with a store, a write the
   * store fails because it is unreachable (or a commit failed) is tried again on the timer, backing off from 100 ms to
   * 5 s, until it lands, the call ends otherwise (another runtime, a cancel), or the scheduler closes. So a store
   * outage delays the change, keeping the tool's outcome, and never leaves the call unended for good. A failure that
   * trying again cannot fix (the store cannot hold the value, see {@link dev.toolcall.CallStore#retriable}) ends the
   * call FAILED instead, with a reason for the model. Without a store the write cannot fail this way and runs once.
   */
  void durably(Runnable write) {
    sched.writes.durably(call, write, 0, this::unstorable);
  }

  /**
   * The store refused a change of the call for good: the call ends FAILED (or CANCELLED where it cannot fail) with a
   * reason the model reads, if the store takes that; otherwise it stays at its last stored version, logged.
   */
  void unstorable(RuntimeException e) {
    ToolScheduler.log.error("call {} ({}): its store refused the change in a way retrying cannot fix ({}); it ends"
        + " FAILED instead", call.callId(), call.toolName(), e.toString());
    String why = startedHere ? UNSTORABLE : "The call could not be stored (the store refused it), so its tool was not"
        + " run.";
    try {
      failOrCancel(FailureKind.INTERNAL_ERROR, why);
    } catch (RuntimeException again) {
      ToolScheduler.log.error("call {} ({}) could not be ended either ({}); it stays at its last stored version",
          call.callId(), call.toolName(), again.toString());
    }
  }

  /** The reason the model reads when the outcome of a call whose tool ran could not be stored. */
  static final String UNSTORABLE = "The tool ran, but its outcome could not be stored (the store refused it), so it"
      + " is lost. Check the tool's effects before calling it again.";

  /** The wait before trying a failed store write again after {@code failures} earlier tries: 100 ms doubling to 5 s. */
  static Duration storeBackoff(int failures) {
    return Duration.ofMillis(Math.min(5_000, 100L << Math.min(failures, 6)));
  }

  String messageOf(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  String safeErrorText(Throwable t) {
    try {
      String s = sched.errorText.apply(t);
      return s == null || s.isBlank() ? "The tool failed." : s;
    } catch (RuntimeException | Error e) { // user code: an Error ends the call too
      ToolScheduler.log.warn("error-text hook failed", e);
      return "The tool failed.";
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

  void armFlush() {
    sched.timer.schedule(this::flushOnExecutor, sched.outputFlushInterval);
  }
}
