package dev.toolcall;

import dev.toolcall.fsm.AbstractStateCell;
import dev.toolcall.fsm.TransitionResult;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tool call: its identity and one atomic reference to its current immutable {@link ToolCallSnapshot}.
 *
 * <h2>Changes</h2>
 * Every change is one compare-and-set of the whole snapshot, with no torn reads; without a store no lock is taken
 * (with a {@link CallStore}, a per-call write lock orders the store write and the install). {@link #transition} and
 * the terminal methods ({@link #complete}, {@link #fail}, {@link #deny}, {@link #cancel}, {@link #terminate}) are
 * compare-and-set: when the call is not in the expected state they change nothing, throw nothing, and return a lost
 * {@link TransitionResult} carrying the current snapshot, so the loser learns what won. An edge outside the
 * {@link ToolCallState#TABLE matrix} is a programming error and throws
 * {@link dev.toolcall.fsm.IllegalTransitionException} before anything changes. A terminal transition installs its
 * {@link Outcome} in the same compare-and-set: a terminal call always has its outcome. Of several racing terminal
 * transitions exactly one wins.
 *
 * <h2>Events</h2>
 * Each change publishes one {@link dev.toolcall.event.ToolCallEvent} on the call's {@link ToolCallPublisher} (an
 * {@link dev.toolcall.event.EventBus}), in version order, each exactly
 * once, after the change took effect (never inside the compare-and-set). Each state transition is logged at DEBUG
 * with call id, tool, from, to and cause; nothing is logged above DEBUG on this path.
 *
 * <h2>Thread safety</h2>
 * All methods may be called from any thread. {@link #whenTerminal()} completes once, with the terminal snapshot,
 * after the terminal compare-and-set.
 */
public final class ToolCall extends AbstractStateCell<ToolCallState, ToolCallSnapshot> {

  private static final Logger log = LoggerFactory.getLogger(ToolCall.class);

  private final Ticker ticker;
  private final ToolCallPublisher bus;

  /** For the argumentsVersion parameter of the private change loop: any arguments version. */
  static final int ANY_ARGUMENTS = Integer.MIN_VALUE;

  /**
   * What waits for the end: {@link #whenTerminal()}'s stage and {@link #onTerminal} actions, without a stage per
   * waiter (see {@link CallEnds}); null while nothing waits. CAS-updated by any thread, through {@link CallEnds} only.
   */
  volatile Object ends;

  /**
   * A new call ({@code deliverInitial}: its version 0 is published) or a restored one (it is not); {@code write}: its
   * durable write through its store, or null without one (see {@link StoreWrite}).
   */
  private ToolCall(ToolCallSnapshot initial, boolean deliverInitial, ToolCallPublisher bus, Ticker ticker,
      StoreWrite write) {
    super(initial, deliverInitial, write);
    this.ticker = ticker;
    this.bus = bus;
  }

  /**
   * Stores a call built with {@link Builder#storeWithFirstChange()} that has not changed since, and publishes its
   * version 0 (a scheduler calls it when the call has to wait); nothing for any other call. An id the store holds
   * already ends the call FAILED {@link FailureKind#DUPLICATE_CALL} instead, stored nowhere.
   *
   * @throws RuntimeException what the store threw; nothing changed, and a later change or call stores it
   */
  public void store() {
    if (durable() instanceof StoreWrite w && !w.stored()) {
      flush();
    }
  }

  /**
   * Brings this call up to the version its store holds, when another runtime sharing the store moved it on: the
   * versions of each state change made there are installed and published here, in order, each once (a version this
   * call holds already is never published again). For runtimes sharing a {@link SharedCallStore}; the runtime calls
   * it when the store tells it of a change.
   *
   * @return the call's snapshot afterwards
   * @throws RuntimeException what the store threw reading the call
   */
  public ToolCallSnapshot refresh() {
    return durable() instanceof StoreWrite w ? StoreAdoption.refresh(this, w.store) : current();
  }

  /** {@link #adopt} for {@link StoreAdoption}: installs a version the store holds, written elsewhere. */
  boolean adoptStored(ToolCallSnapshot expected, ToolCallSnapshot newer) {
    return adopt(expected, newer);
  }

  /**
   * Restores a call from a stored snapshot (for stores and tests). Its events continue after the snapshot's
   * version; nothing is published for the restored version itself.
   *
   * @throws IllegalArgumentException if the snapshot's history (its chain of previous versions) holds a change of
   *     state that is not an edge of the matrix, or a version after a terminal one; the message names the edge
   */
  public static ToolCall restore(ToolCallSnapshot snapshot, ToolCallPublisher bus, Ticker ticker) {
    return restore(snapshot, bus, ticker, null);
  }

  /**
   * {@link #restore(ToolCallSnapshot, ToolCallPublisher, Ticker)} for a call whose changes go to {@code store} first (see
   * {@link CallStore}); the restored version itself is not written (it is the store's, or the caller stores it).
   *
   * @param store the store, or null for a call in memory only
   * @throws IllegalArgumentException if the snapshot's history breaks the matrix (see above)
   */
  public static ToolCall restore(ToolCallSnapshot snapshot, ToolCallPublisher bus, Ticker ticker, CallStore store) {
    Objects.requireNonNull(snapshot, "snapshot");
    CallHistory.check(snapshot);
    return new ToolCall(snapshot, false, Objects.requireNonNull(bus, "bus"), Objects.requireNonNull(ticker, "ticker"),
        store == null ? null : new StoreWrite(store, ticker, false));
  }

  /** Starts a call with the id and tool name the model gave. */
  public static Builder builder(String callId, String toolName) {
    return new Builder(callId, toolName);
  }

  /** Who the call is. */
  public ToolCallIdentity identity() {
    return current().identity(); // every snapshot carries it: one field less per call
  }

  /** The call id. */
  public String callId() {
    return identity().callId();
  }

  /** The tool name. */
  public String toolName() {
    return identity().toolName();
  }

  /** The session id. */
  public String sessionId() {
    return identity().sessionId();
  }

  /** The current snapshot: one volatile read, never blocks. */
  public ToolCallSnapshot snapshot() {
    return current();
  }

  /** The current state. */
  public ToolCallState state() {
    return current().state();
  }

  /** The bus this call publishes on. */
  public ToolCallPublisher eventBus() {
    return bus;
  }

  /** The monotonic ticker this call times itself with. */
  public Ticker ticker() {
    return ticker;
  }

  /**
   * Moves from {@code expected} to the non-terminal {@code target}.
   *
   * @param change why (usually a {@link Reason})
   * @return won with the new snapshot, or lost with the current one when the call was not in {@code expected}
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> target} is not in the matrix
   * @throws IllegalArgumentException if {@code target} is terminal: use a method that carries the outcome
   */
  public TransitionResult<ToolCallSnapshot> transition(ToolCallState expected, ToolCallState target,
      Change change) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(change, "change");
    return result(change(expected, ANY_ARGUMENTS, target, change, null));
  }

  /**
   * Moves from {@code expected} to the non-terminal {@code target} only while the arguments are still those of
   * {@code argumentsVersion}: one compare-and-set, so an approval made on arguments that were edited meanwhile loses
   * instead of approving arguments nobody saw.
   *
   * @return won with the new snapshot, or lost with the current one when the state or the arguments version differ
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> target} is not in the matrix
   * @throws IllegalArgumentException if {@code target} is terminal
   */
  public TransitionResult<ToolCallSnapshot> transition(ToolCallState expected, int argumentsVersion,
      ToolCallState target, Change change) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(change, "change");
    return result(change(expected, CallChecks.requireArgumentsVersion(argumentsVersion), target, change, null));
  }

  /**
   * Ends the call with {@code outcome} if it is in {@code expected} and its arguments are still those of
   * {@code argumentsVersion} (a person's denial of arguments that were edited meanwhile loses).
   *
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> outcome.state()} is not in the matrix
   */
  public TransitionResult<ToolCallSnapshot> terminate(ToolCallState expected, int argumentsVersion, Outcome outcome,
      Reason reason) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(reason, "reason");
    return result(change(expected, CallChecks.requireArgumentsVersion(argumentsVersion), outcome.state(), reason,
        outcome));
  }

  /**
   * Ends the call with {@code outcome} if it is in {@code expected}; the target is the outcome's state.
   *
   * @throws dev.toolcall.fsm.IllegalTransitionException if {@code expected -> outcome.state()} is not in the matrix
   */
  public TransitionResult<ToolCallSnapshot> terminate(ToolCallState expected, Outcome outcome, Reason reason) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(reason, "reason");
    return result(change(expected, ANY_ARGUMENTS, outcome.state(), reason, outcome));
  }

  /** RUNNING -&gt; COMPLETED with {@code content} as the result. */
  public TransitionResult<ToolCallSnapshot> complete(String content) {
    return terminate(ToolCallState.RUNNING, new Outcome.Completed(content), Reason.SUCCEEDED);
  }

  /** RUNNING -&gt; COMPLETED with {@code result} (kept as it is, never copied). */
  public TransitionResult<ToolCallSnapshot> complete(ToolResult result) {
    return terminate(ToolCallState.RUNNING, new Outcome.Completed(result), Reason.SUCCEEDED);
  }

  /** RUNNING -&gt; FAILED with a failure of {@code kind} and a message for the model. */
  public TransitionResult<ToolCallSnapshot> fail(FailureKind kind, String message) {
    return terminate(ToolCallState.RUNNING, new Outcome.Failed(kind, message), Reason.FAILED);
  }

  /** PERMISSION_PENDING -&gt; PERMISSION_DENIED by {@code source}, with a reason for the model. */
  public TransitionResult<ToolCallSnapshot> deny(DenialSource source, String reason) {
    Reason r = switch (Objects.requireNonNull(source, "source")) {
      case USER -> Reason.DENIED_BY_USER;
      case POLICY -> Reason.DENIED_BY_POLICY;
      case TIMEOUT -> Reason.PERMISSION_TIMEOUT;
    };
    return terminate(ToolCallState.PERMISSION_PENDING, new Outcome.Denied(source, reason), r);
  }

  /**
   * Cancels the call from whatever non-terminal state it is in. Loses (changing nothing) only when the call is
   * already terminal; the result then carries the outcome that won.
   */
  public TransitionResult<ToolCallSnapshot> cancel(String reason) {
    Outcome outcome = new Outcome.Cancelled(Objects.requireNonNull(reason, "reason"));
    Reason why = reason.isEmpty() ? Reason.CANCELLED : Reason.CANCELLED.withMessage(reason);
    for (;;) {
      ToolCallState from = current().state();
      if (!ToolCallState.TABLE.allows(from, ToolCallState.CANCELLED)) {
        return new TransitionResult<>(false, current());
      }
      ToolCallSnapshot won = change(from, ANY_ARGUMENTS, ToolCallState.CANCELLED, why, outcome);
      if (won != null) {
        return new TransitionResult<>(true, won);
      }
    }
  }

  /**
   * Replaces the arguments while the call is in {@code expected} (a person edited them while asked, or an
   * interceptor rewrote them while running). The state does not change; the arguments version becomes the new
   * snapshot's version, so a decision made on the old arguments is recognisably stale.
   *
   * @throws IllegalArgumentException if {@code expected} is terminal: an ended call never changes again
   */
  public TransitionResult<ToolCallSnapshot> modifyArguments(ToolCallState expected, ToolArguments arguments,
      String by) {
    CallChecks.requireEdit(expected, arguments, by);
    return CallVersions.replaceArguments(this, expected, ANY_ARGUMENTS, arguments, by);
  }

  /**
   * Replaces the arguments while the call is in {@code expected} and its arguments are still those of
   * {@code argumentsVersion}: of two edits made on the same version, exactly one wins.
   */
  public TransitionResult<ToolCallSnapshot> modifyArguments(ToolCallState expected, int argumentsVersion,
      ToolArguments arguments, String by) {
    CallChecks.requireEdit(expected, arguments, by);
    return CallVersions.replaceArguments(this, expected, CallChecks.requireArgumentsVersion(argumentsVersion),
        arguments, by);
  }

  /**
   * Records a chunk of live output while the call is RUNNING; loses when it is not. The new version carries the
   * output's totals and tail ({@link Change.OutputAppended}); when the version it replaces is itself live output that
   * listeners have been handed, it takes that version's place in the history, so a call's history holds one chunk of
   * a stretch of output however much it prints.
   *
   * @param sequence 1 for the call's first chunk, one more for each
   * @param dropped writes dropped since the last chunk
   */
  public TransitionResult<ToolCallSnapshot> appendOutput(String chunk, long sequence, long dropped) {
    return CallVersions.appendOutput(this, Objects.requireNonNull(chunk, "chunk"), sequence, dropped);
  }


  /**
   * {@code nv}, or, when {@code cur} is handed-off live output, {@code nv} with that stretch of output kept to one
   * version ({@link CallHistory#bounded}), or, when {@code nv} leaves PENDING after arguments that changed there,
   * {@code nv} without those versions ({@link CallHistory#leavingPending}). A type check or two otherwise.
   */
  ToolCallSnapshot bounded(ToolCallSnapshot cur, ToolCallSnapshot nv) {
    Change c = cur.change();
    if (c instanceof Change.OutputAppended o) {
      return CallHistory.bounded(cur, o, nv, isHandedOff(cur));
    }
    return c instanceof Change.ArgumentsModified ? CallHistory.leavingPending(cur, nv, isHandedOff(cur)) : nv;
  }

  /** {@link #isHandedOff} for the helpers of this package. */
  boolean handedOff(ToolCallSnapshot version) {
    return isHandedOff(version);
  }

  /** {@link #install} for the helpers of this package: the compare-and-set of a version that keeps the state. */
  boolean installVersion(ToolCallSnapshot expected, ToolCallSnapshot next) {
    return install(expected, next);
  }

  /**
   * Records that attempt {@code nextAttempt} will run after {@code delay}, while the call is RUNNING in attempt
   * {@code nextAttempt - 1}; loses otherwise (for example when cancelled meanwhile).
   */
  public TransitionResult<ToolCallSnapshot> scheduleRetry(int nextAttempt, Duration delay, String failure) {
    return CallVersions.scheduleRetry(this, new Change.RetryScheduled(nextAttempt, delay, failure));
  }


  /**
   * A stage that completes once, with the terminal snapshot, when the call ends (at once if it has). It completes
   * after the terminal event has been handed to the bus, so every inline listener has seen it by then (a listener
   * with an executor may still be catching up). It never completes exceptionally. The returned stage cannot be
   * completed by callers. Every call returns the same stage, so asking again allocates nothing.
   */
  public CompletionStage<ToolCallSnapshot> whenTerminal() {
    return CallEnds.stage(this);
  }

  /**
   * Runs {@code action} once, with the terminal snapshot, when the call ends: after the terminal event has been handed
   * to the bus, on the thread that handed it off, or at once on this thread if the call has ended already. Actions
   * run newest first (as the dependents of {@link #whenTerminal()}'s stage do), each on its own: one that throws is
   * logged at ERROR and the others still run. Unlike a stage chained on {@link #whenTerminal()}, it allocates no
   * stage: while the call waits, an action costs one slot of a small array, which is what a runtime holding many
   * waiting calls (each waiting on a person, say) wants. Thread-safe.
   */
  public void onTerminal(java.util.function.Consumer<? super ToolCallSnapshot> action) {
    CallEnds.add(this, Objects.requireNonNull(action, "action"));
  }

  /**
   * Runs the end's waiters if the terminal version has been handed off: for a waiter added after the end (the
   * compare-and-set that added it is the fence that pairs with the drain's, see {@link #afterHandOff}).
   */
  void endIfHandedOff() {
    ToolCallSnapshot t = current();
    if (t.isTerminal() && isHandedOff(t)) {
      CallEnds.end(this, t);
    }
  }

  /** Whether the call has ended. */
  public boolean isTerminal() {
    return current().isTerminal();
  }

  /**
   * The one place every change of state goes through (both {@code transition}s, both {@code terminate}s,
   * {@code complete}, {@code fail}, {@code deny}, {@code cancel}): checks the edge against the matrix (an
   * {@link dev.toolcall.fsm.IllegalTransitionException} naming from, to and the allowed targets, changing nothing),
   * runs the compare-and-set loop, and hands off after a win: no lambda, so a change allocates only its snapshot.
   * Returns the installed snapshot, or null when the call was not in {@code expected} (or not at
   * {@code argumentsVersion}). The other changes (arguments, output, retries) never change the state.
   *
   * <p>It does not build the {@link TransitionResult}: this method is large once the JIT has inlined the hand-off
   * into it, so it is usually not inlined into its callers, and a result made here would then escape. The public
   * methods are small and make the result through {@link #result}, so when they are inlined into the caller, the JIT
   * can drop the result the caller only reads.
   */
  private ToolCallSnapshot change(ToolCallState expected, int argumentsVersion, ToolCallState target,
      Change change, Outcome outcome) {
    ToolCallState.TABLE.check(expected, target); // the one check of the matrix for every change of state
    CallChecks.requireOutcomeFits(target, outcome);
    ToolCallSnapshot won = casLoop(expected, argumentsVersion, target, change, outcome);
    if (won != null) {
      drainPending();
      if (log.isDebugEnabled()) {
        debug(expected, won, change);
      }
    }
    return won;
  }

  /**
   * The result of a change that returned {@code won}: one allocation site, so that escape analysis can remove it.
   * Lost: the current snapshot is not the one expected (a terminal winner stays current, so a loser learns it).
   */
  private TransitionResult<ToolCallSnapshot> result(ToolCallSnapshot won) {
    return new TransitionResult<>(won != null, won != null ? won : current());
  }

  /**
   * Installs the next snapshot while the call is in {@code expected}; returns it, or null when the precondition
   * failed.
   */
  private ToolCallSnapshot casLoop(ToolCallState expected, int argumentsVersion, ToolCallState target,
      Change change, Outcome outcome) {
    for (;;) {
      ToolCallSnapshot cur = current();
      if (cur.state() != expected
          || (argumentsVersion != ANY_ARGUMENTS && cur.argumentsVersion() != argumentsVersion)) {
        return null;
      }
      ToolCallSnapshot nv = bounded(cur, cur.next(target, change, outcome, ticker.read()));
      if (compareAndSet(cur, nv)) {
        return nv;
      }
    }
  }

  private void debug(ToolCallState from, ToolCallSnapshot s, Change change) {
    log.debug("tool call {} ({}) {} -> {} v{} cause {}", s.callId(), s.toolName(), from, s.state(),
        s.version(), change);
  }

  /** Runs on the draining thread, one version at a time, in order: publishes the version's event. */
  @Override
  protected void deliver(ToolCallSnapshot s) {
    if (s.change() == Reason.CHANGED_ELSEWHERE && !s.isStateChange()) {
      return; // a version made elsewhere that changed neither state, attempt nor arguments (its output): no event
    }
    bus.publish(s);
  }

  /**
   * The versions up to {@code latest} have been handed to the bus (whatever publishing threw, it should not): when
   * {@code latest} is terminal, whenTerminal completes and the {@link #onTerminal} actions run. No volatile write of its own: the drain's release before this
   * is the fence that pairs with the compare-and-set in {@link #whenTerminal()}, so one of the two sees the other.
   */
  @Override
  protected void afterHandOff(ToolCallSnapshot latest) {
    if (latest.isTerminal() && ends != null) {
      CallEnds.end(this, latest);
    }
  }

  /**
   * {@link Builder#build()} for several calls at once (the calls of one batch): builds them, stores their first
   * versions together ({@link CallStore#createAll}: one write where the store can), and only then publishes each
   * stored call's version 0, in order. Nothing is published for a call that was not stored.
   *
   * @param calls one entry per builder, filled in: the call, or null when its store holds a call of that session
   *     and id already ({@link DuplicateCallException} for one call)
   * @throws IllegalArgumentException if the builders do not share one store (or all have none), or the sizes differ
   * @throws RuntimeException what the store threw: the calls it stored before failing are in {@code calls}, published
   *     (withdraw them), the others are null
   */
  public static void buildAll(java.util.List<Builder> builders, ToolCall[] calls) {
    CallCreation.buildAll(builders, calls);
  }

  /** Publishes version 0 once construction is complete (and stored), before any other thread can see the call. */
  ToolCall started() {
    deliverInitial();
    return this;
  }

  @Override
  public String toString() {
    ToolCallSnapshot s = current();
    return "ToolCall[" + s.callId() + " " + s.toolName() + " " + s.state() + " v" + s.version() + "]";
  }

  /**
   * Builds a {@link ToolCall}. Not thread-safe; {@link #build()} checks every part and throws at once, naming the
   * parameter, when one is wrong.
   */
  public static final class Builder {
    private final String callId;
    private final String toolName;
    private String sessionId = "default";
    private String parentCallId;
    private ToolCallOrigin origin = ToolCallOrigin.MODEL;
    private String label;
    private ToolArguments arguments = ToolArguments.empty();
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private ToolCallPublisher bus;
    private CallStore store;
    private boolean deferred;

    private Builder(String callId, String toolName) {
      this.callId = ToolCallIdentity.requireNonBlank(callId, "callId");
      this.toolName = ToolCallIdentity.requireNonBlank(toolName, "toolName");
    }

    /** The session the call belongs to (default {@code "default"}). */
    public Builder sessionId(String sessionId) {
      this.sessionId = ToolCallIdentity.requireNonBlank(sessionId, "sessionId");
      return this;
    }

    /** The enclosing call of a nested call. */
    public Builder parentCallId(String parentCallId) {
      this.parentCallId = ToolCallIdentity.requireNonBlank(parentCallId, "parentCallId");
      return this;
    }

    /**
     * The id the provider sent for the call, exactly (may be empty), when the call id is one the library minted
     * (see {@link ToolCallIdentity#label()}); by default the call id.
     */
    public Builder label(String label) {
      this.label = Objects.requireNonNull(label, "label");
      return this;
    }

    /** Who asked for the call (default {@link ToolCallOrigin#MODEL}). */
    public Builder origin(ToolCallOrigin origin) {
      this.origin = Objects.requireNonNull(origin, "origin");
      return this;
    }

    /** The arguments (default: none, the empty JSON object). */
    public Builder arguments(ToolArguments arguments) {
      this.arguments = Objects.requireNonNull(arguments, "arguments");
      return this;
    }

    /** The wall clock, read once at creation (default: system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The monotonic ticker, read once per change (default: {@link System#nanoTime()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** The bus events go to (default: a new private bus). */
    public Builder eventBus(ToolCallPublisher bus) {
      this.bus = Objects.requireNonNull(bus, "bus");
      return this;
    }

    /**
     * The store each change is written to before it is visible (default: none, memory only); see {@link CallStore}.
     * With one, {@link #build()} stores the first version before publishing it, and a transition throws what the
     * store throws, changing nothing.
     */
    public Builder store(CallStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * The call, in PENDING at version 0; its creation event is published before this returns (with
     * {@link #storeWithFirstChange()}: with its first change).
     *
     * @throws IllegalStateException if a store is set and already holds this call (not with
     *     {@link #storeWithFirstChange()})
     */
    public ToolCall build() {
      ToolCall call = unwritten(deferred);
      if (store != null && !deferred && !store.create(call.current())) {
        throw new DuplicateCallException(sessionId, callId);
      }
      return deferred && store != null ? call : call.started();
    }

    /**
     * With a store: the call is stored with its first change instead of at {@link #build()}, its version 0 published
     * with it (one write fewer for a call that starts or asks at once); {@link ToolCall#store()} writes it as it
     * stands. An id the store holds already ends the call FAILED {@link FailureKind#DUPLICATE_CALL} at that change
     * instead of {@code build} throwing. Without a store this changes nothing.
     */
    public Builder storeWithFirstChange() {
      this.deferred = true;
      return this;
    }

    /**
     * The call at version 0, neither stored nor published yet; with {@code firstChange} (and a store), one that its
     * first change stores.
     */
    ToolCall unwritten(boolean firstChange) {
      ToolCallIdentity identity = new ToolCallIdentity(callId, toolName, sessionId, parentCallId, clock.instant(),
          ticker.read(), origin, label);
      return new ToolCall(ToolCallSnapshot.initial(identity, arguments), true,
          bus != null ? bus : ToolCallPublisher.NONE, ticker,
          store == null ? null : new StoreWrite(store, ticker, firstChange));
    }

    /** For {@link #buildAll}: the store, or null. */
    CallStore storeOrNull() {
      return store;
    }
  }
}
