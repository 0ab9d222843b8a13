package dev.toolcall.permission;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import dev.toolcall.DeadlineTimer;
import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Subscription;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.tool.ToolDefinition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether tool calls may run: by policy, grants and approval mode first, and otherwise by asking a person
 * through a FIFO queue of {@link PermissionRequest}s, each with a deadline after which it is denied.
 *
 * <h2>The scheduler's side</h2>
 * {@link #authorize} takes a PENDING call whose arguments passed validation. The returned stage completes once,
 * never exceptionally, with the call's snapshot when it is clear whether the call may run:
 * <ul>
 *   <li>{@link ToolCallState#PENDING}: no permission needed (the tool does not require approval and no rule or mode
 *       denied it); the caller moves it to RUNNING;</li>
 *   <li>{@link ToolCallState#PERMISSION_APPROVED}: approved by a person, a grant, a rule or the mode; the snapshot's
 *       arguments are exactly those approved;</li>
 *   <li>a terminal state: denied (by a person, a rule or the mode, or because nobody answered in time) or
 *       cancelled.</li>
 * </ul>
 * For a call that was asked about, the snapshot is always the version with which the call left PERMISSION_PENDING,
 * whatever happened to the call after: an approval that is followed at once by a cancel completes the stage with
 * the PERMISSION_APPROVED snapshot (the caller then finds the call cancelled when it tries to run it), and a cancel
 * that beat the approval completes it with the CANCELLED snapshot.
 * The order of checks is: {@link ApprovalMode#READ_ONLY} denies tools that are not read-only; a deny rule denies; an
 * ask rule asks; an allow rule approves; a tool that needs no approval passes; a session grant or a stored grant
 * approves; {@link ApprovalMode#ALLOW_ALL}, or {@link ApprovalMode#AUTO_APPROVE_EDITS} for an edit tool, approves;
 * otherwise a person is asked.
 *
 * <h2>The UI's side</h2>
 * {@link #pending()} lists waiting requests in arrival order; {@link #nextRequest()} and {@link #awaitNext} give the
 * oldest waiting request (at once if there is one); {@link #decide} answers one. Every change is also an event of
 * the call on its {@link dev.toolcall.event.EventBus}, in the call's version order: the transition to
 * PERMISSION_PENDING with a {@link dev.toolcall.Change.PermissionAsked} (the request opened), {@code ArgumentsModified} (the
 * arguments were edited), and the transition out of PERMISSION_PENDING whose reason says who won and why.
 *
 * <h2>Exactly one outcome</h2>
 * Approve, deny, timeout and cancel race through the call's own compare-and-set: the first wins, the others change
 * nothing and {@link #decide} tells them what won ({@link DecisionResult.Lost}). A decision names the arguments
 * version it was made on and is refused as {@link DecisionResult.Stale} when the arguments changed since; the check
 * is part of the same compare-and-set, so nothing is approved that its approver did not see. The request leaves the
 * queue exactly once, whoever resolved it (a cancel of the call from outside included), and the grant of "approve
 * always" is written only when that decision won.
 *
 * <h2>Deadlines</h2>
 * Each request times out after the tool's {@link ToolDefinition#permissionTimeoutIfSet() permission timeout} or the
 * service's default; durations beyond about 146 years are clamped to that. Deadlines are measured on the monotonic
 * {@link Ticker}, never on the wall clock, and compared only by difference ({@code deadlineTick - now}), so a ticker
 * that starts anywhere, near {@link Long#MAX_VALUE} included, gives the right countdown and deadline. They run on a
 * {@link DeadlineTimer}: a task that fires early is re-scheduled for the rest, so no request times out early. A timeout
 * denies the call with {@link DenialSource#TIMEOUT}, recorded apart from a person's denial. A decision that arrives
 * once the deadline has passed loses to the timeout (which it carries out first). With a call store, a denial the
 * store fails is tried again, backing off from 100 ms to 5 s, until it lands, and its reason says the database was
 * unreachable at the deadline.
 *
 * <h2>Close</h2>
 * {@link #close()} cancels the call of every waiting request (never approves it), fails pending
 * {@link #nextRequest()} stages with {@link CancellationException}, wakes {@link #awaitNext} with empty, closes
 * its own timer (never a shared one), and makes every later {@link #authorize} cancel its call at once.
 *
 * <p>Thread-safe: every method may be called from any thread. No lock is held while a call changes state.
 */
public final class PermissionService implements AutoCloseable {

  /*
   * Design. A waiting request is a Pending entry, reachable by id (byId) and in arrival order (queue, keyed by a
   * sequence number). The call's state is the truth: an entry is resolved when its call leaves PERMISSION_PENDING,
   * by whoever's compare-and-set won. The winner then calls finish(), which is idempotent (the entry's done flag)
   * and removes the entry from both maps, cancels its timer and completes the authorize stage. Because an entry may
   * be resolved while authorize() is still inserting it (an inline listener deciding on the PermissionAsked event),
   * authorize() re-checks done after each insertion and undoes it; finish() sets done before removing, so one of the
   * two always sees the other. The same pattern keeps close() and authorize() from missing each other (closed flag
   * vs. byId). The queue and its waiters for nextRequest() are a RequestQueue. Each other responsibility has its own
   * room in this package, holding this service and reading its package-private fields: RequestChecks (hooks, mode,
   * rules and grants before anybody is asked), RequestOpening (a request into byId and the queue), RequestDeadlines (timeouts and the store-retry of their denials),
   * Decisions (a person's answers), RequestResume (requests re-opened at restore or loaded from a shared store) and
   * Closing (close and hand-off).
   */

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);
  static final String CLOSED = "permission service closed";

  final PermissionPolicy policy;
  final GrantStore grantStore;
  final Duration defaultTimeout;
  final Clock clock;
  final Ticker ticker;
  final DeadlineTimer deadlines;
  final boolean ownsTimer;
  /** Request ids: 128 random bits each, so one id says nothing about another (a remote client cannot guess one). */
  private static final java.security.SecureRandom IDS = new java.security.SecureRandom();

  /** Set by any thread; read at each authorize. */
  volatile ApprovalMode mode;

  final AtomicLong sequence = new AtomicLong();
  final ConcurrentHashMap<String, Pending> byId = new ConcurrentHashMap<>();
  final RequestQueue queue = new RequestQueue();
  /** Warns once when a request opens and nothing has ever read the requests (see its javadoc). */
  final UnreadRequestWarning unread = new UnreadRequestWarning();
  final List<PermissionHook> hooks;
  final RequestListeners requestListeners = new RequestListeners(id -> {
    Pending p = byId.get(id);
    return p == null ? null : p.current();
  });
  /**
   * Requests resolved recently: id -> what won (its state and reason, never the call or its snapshots), so a late
   * decision learns it. Bounded in entries; each is a few dozen bytes.
   */
  final Cache<String, DecisionResult.Lost> resolved = CacheBuilder.newBuilder().maximumSize(16_384).build();
  /** Session id -> its grants (immutable lists, replaced atomically). */
  final SessionGrantStore sessionGrants;
  /** Loads a request opened by another runtime sharing the store; null without one. */
  final java.util.function.Predicate<String> requestLoader;
  /** The checks before anybody is asked. */
  private final RequestChecks checks = new RequestChecks(this);
  /** Deadlines and timeouts of the open requests. */
  final RequestDeadlines timeouts = new RequestDeadlines(this);
  /** Requests re-opened after a restart or loaded from a shared store. */
  final RequestResume reopened = new RequestResume(this);
  /** A person's answers. */
  private final Decisions decisions = new Decisions(this);
  /** Close and hand-off. */
  private final Closing closing = new Closing(this);
  /** Opening requests: into the queue, their deadline armed. */
  final RequestOpening opening = new RequestOpening(this);


  private PermissionService(Builder b) {
    this.policy = b.policy;
    this.grantStore = b.grantStore;
    this.mode = b.approvalMode;
    this.defaultTimeout = b.defaultTimeout;
    this.clock = b.clock;
    this.ticker = b.ticker;
    this.hooks = List.copyOf(b.hooks);
    this.requestLoader = b.requestLoader;
    this.sessionGrants = b.sessionGrants;
    this.ownsTimer = b.timer == null;
    this.deadlines = ownsTimer ? DeadlineTimer.newDefault() : b.timer;
  }

  /**
   * A new request id: {@code perm-} and 128 bits from {@link java.security.SecureRandom} in lower-case base32 (26
   * characters). Kept in the call's {@link dev.toolcall.Change.PermissionAsked}, so snapshots, restores and shared stores keep it.
   */
  static String newRequestId() {
    byte[] bits = new byte[16];
    IDS.nextBytes(bits);
    return "perm-" + com.google.common.io.BaseEncoding.base32().lowerCase().omitPadding().encode(bits);
  }

  /** Starts a service; every part has a default. */
  public static Builder builder() {
    return new Builder();
  }

  // ---------------------------------------------------------------------------------------------- scheduler side

  /**
   * Decides whether {@code call} may run (see the class comment for the order of checks and what the snapshot
   * means). The stage completes once and never exceptionally; for a call that is asked about it completes when the
   * request is resolved. Only the service completes it (completing, cancelling or obtruding it throws
   * {@link UnsupportedOperationException}); {@code toCompletableFuture()} is a copy.
   *
   * @param call a call in PENDING (a call already terminal is answered with its snapshot at once)
   * @param definition the tool's definition
   * @throws IllegalArgumentException if the call is neither PENDING nor terminal (a programming error)
   */
  public CompletionStage<ToolCallSnapshot> authorize(ToolCall call, ToolDefinition definition) {
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(definition, "definition");
    for (;;) {
      if (queue.isClosed()) {
        return done(call.cancel(CLOSED).snapshot());
      }
      ToolCallSnapshot s = call.snapshot();
      if (s.isTerminal()) {
        return done(s);
      }
      if (s.state() != ToolCallState.PENDING) {
        throw new IllegalArgumentException("call " + call.callId() + " must be PENDING to be authorized, was "
            + s.state());
      }
      CompletionStage<ToolCallSnapshot> r = checks.evaluate(call, definition, s);
      if (r != null) {
        return r;
      }
      // the arguments changed while we asked; evaluate again
    }
  }

  /**
   * Re-opens the request of a call restored PERMISSION_PENDING from a snapshot (after a restart): the call's current
   * version is the restored one, whose change is its {@link dev.toolcall.Change.PermissionAsked} (request id, arguments version,
   * absolute deadline and its tick on this runtime's ticker). The request keeps its id, so a decision made for it
   * before or after the restart names the same request; it joins the queue behind the requests already in it. A
   * deadline that passed while the process was down denies the call at once, once, as a timeout with a reason that
   * says so. Otherwise it is as {@link #authorize}: the stage completes with the version that left
   * PERMISSION_PENDING.
   *
   * @param askedAt when the request was first opened (its {@link PermissionRequest#createdAt()})
   * @throws IllegalArgumentException if the call is PENDING, or PERMISSION_PENDING without its request as its change,
   *     or a request of that id is already open (a call that has left PERMISSION_PENDING, decided by another runtime
   *     sharing the store, completes the stage at once with the version that left it)
   */
  public CompletionStage<ToolCallSnapshot> resume(ToolCall call, ToolDefinition definition, Instant askedAt) {
    return resume(call, definition, askedAt, "the process was down");
  }

  /**
   * {@link #resume(ToolCall, ToolDefinition, Instant)}, saying what kept a request whose deadline has passed already
   * from being denied at it: the call is denied at once, as a timeout, with the reason "Its deadline passed while
   * {@code lateReason}: nobody answered within 1h, so it was not run." With a null {@code lateReason} (nothing kept it:
   * its deadline passed a moment ago) the request is denied by its deadline's timer at once, as any timeout is ("It
   * waited 1h for an answer."). A denial the call store fails is tried again by that timer until it lands, and then
   * says that the database was unreachable.
   *
   * @param lateReason completes "Its deadline passed while …" ("the database was unreachable"), or null
   * @throws IllegalArgumentException as {@link #resume(ToolCall, ToolDefinition, Instant)}, or if {@code lateReason}
   *     is blank
   */
  public CompletionStage<ToolCallSnapshot> resume(ToolCall call, ToolDefinition definition, Instant askedAt,
      String lateReason) {
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(askedAt, "askedAt");
    if (lateReason != null && lateReason.isBlank()) {
      throw new IllegalArgumentException("lateReason must be null or say what happened (the model reads it)");
    }
    return reopened.resume(call, askedAt, lateReason);
  }

  /** Resolves {@code p} once: out of both maps, timer cancelled, authorize stage completed with {@code s}. */
  void finish(Pending p, ToolCallSnapshot s) {
    if (!p.markDone()) {
      return;
    }
    s = leftPending(s);
    String id = p.id();
    resolved.put(id, DecisionResult.Lost.of(id, s));
    byId.remove(id, p);
    requestListeners.resolved(id);
    queue.remove(p);
    p.cancelTimer();
    if (log.isDebugEnabled()) {
      log.debug("permission request {} of call {} resolved: {} ({})", id, p.call.callId(), s.state(), s.change());
    }
    p.release(s);
  }

  /**
   * The version with which the call left PERMISSION_PENDING, found from {@code s} or a later version (a cancel that
   * lands right after an approval must not make the stage report the cancel: the approval is what resolved the
   * request). {@code s} itself when the call never was in PERMISSION_PENDING.
   */
  static ToolCallSnapshot leftPending(ToolCallSnapshot s) {
    for (ToolCallSnapshot v = s; v != null; v = v.previous()) {
      ToolCallSnapshot before = v.previous();
      if (before != null && before.state() == ToolCallState.PERMISSION_PENDING
          && v.state() != ToolCallState.PERMISSION_PENDING) {
        return v;
      }
    }
    return s;
  }

  static CompletionStage<ToolCallSnapshot> done(ToolCallSnapshot s) {
    return new DecidedStage(s);
  }

  // ------------------------------------------------------------------------------------------------------ UI side

  /** The waiting requests, oldest first, each with the arguments as they are now. A copy. */
  public List<PermissionRequest> pending() {
    unread.read();
    return queue.pending();
  }

  /**
   * Hands every permission request to {@code listener} on {@code executor}: those waiting now (oldest first), then
   * each one as it opens, for a UI that shows all of them at once rather than the next one only. Each request is
   * handed over once, and only while it still waits (one resolved before its turn is skipped); calls are one at a
   * time, in the order the requests were handed over (of two requests opened one after the other, the older comes
   * first). A listener that throws is logged and keeps its subscription; the request keeps waiting. An executor that
   * rejects a delivery ends the subscription. Answer with {@link #decide}, from any thread.
   *
   * @return the subscription; closing it stops further deliveries
   */
  public Subscription onRequest(Consumer<? super PermissionRequest> listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    unread.read();
    return requestListeners.add(listener, executor, queue::pending);
  }

  /** The request with {@code requestId}, as it is now, while it waits. */
  public Optional<PermissionRequest> request(String requestId) {
    Objects.requireNonNull(requestId, "requestId");
    unread.read();
    Pending p = byId.get(requestId);
    if (p == null && resolved.getIfPresent(requestId) == null) {
      p = reopened.loaded(requestId); // opened by another runtime sharing the store
    }
    return p == null ? Optional.empty() : Optional.ofNullable(p.current());
  }

  /**
   * The oldest waiting request: at once if there is one, otherwise when the next one opens. Several callers get
   * the same request until it is resolved (this peeks, it does not take). After {@link #close()} the stage fails
   * with {@link CancellationException}.
   */
  public CompletionStage<PermissionRequest> nextRequest() {
    unread.read();
    return queue.next().minimalCompletionStage();
  }

  /**
   * Blocks up to {@code timeout} for {@link #nextRequest()}; empty when none came in time or the service closed.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public Optional<PermissionRequest> awaitNext(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    unread.read();
    return queue.awaitNext(timeout);
  }

  /**
   * Answers the request {@code requestId}. Never throws for a race: the result says whether the decision won, lost
   * (and what won), came on a stale arguments version, or named no known request.
   */
  public DecisionResult decide(String requestId, Decision decision) {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(decision, "decision");
    unread.read();
    return decisions.decide(requestId, decision);
  }

  /**
   * Denies, as policy ({@link DenialSource#POLICY}), every open request that {@code which} selects, with
   * {@code reasonForModel}; for example the requests of a tool that was removed from the tool set. A request decided
   * meanwhile by someone else keeps that decision.
   *
   * @return how many requests this denied
   */
  public int denyPending(java.util.function.Predicate<? super PermissionRequest> which, String reasonForModel) {
    Objects.requireNonNull(which, "which");
    Objects.requireNonNull(reasonForModel, "reasonForModel");
    int denied = 0;
    for (Pending p : List.copyOf(byId.values())) {
      ToolCallSnapshot s = p.call.snapshot();
      if (s.state() != ToolCallState.PERMISSION_PENDING || !which.test(p.request(s))) {
        continue;
      }
      TransitionResult<ToolCallSnapshot> r = p.call.terminate(ToolCallState.PERMISSION_PENDING, s.argumentsVersion(),
          new Outcome.Denied(DenialSource.POLICY, reasonForModel), Reason.DENIED_BY_POLICY);
      if (r.won()) {
        finish(p, r.snapshot());
        denied++;
      }
    }
    return denied;
  }

  /**
   * Tells this service that {@code call}, whose request it holds open, was changed by another runtime sharing the
   * call store (the call adopted a version stored there): once the call has left PERMISSION_PENDING, its request is
   * resolved here as if decided here, once (out of the queue, its deadline disarmed, its authorize stage completed
   * with the version that left PERMISSION_PENDING). A call still waiting whose deadline has passed is denied now, as
   * its timer would (the timer's denial may have failed on the store; the timer keeps trying too). Does nothing for a
   * call still waiting within its deadline, or one whose request this service does not hold.
   */
  public void settle(ToolCall call) {
    Objects.requireNonNull(call, "call");
    reopened.settle(call);
  }

  // ------------------------------------------------------------------------------------------------ configuration

  /** The current approval mode. */
  public ApprovalMode approvalMode() {
    return mode;
  }

  /** Changes the approval mode for later {@link #authorize} calls; waiting requests are not re-evaluated. */
  public void setApprovalMode(ApprovalMode mode) {
    this.mode = Objects.requireNonNull(mode, "mode");
  }

  /** The policy. */
  public PermissionPolicy policy() {
    return policy;
  }

  /** The store of "approve always" grants (list or revoke them there; changes apply to the next call). */
  public GrantStore grantStore() {
    return grantStore;
  }

  /** The grants made by "approve for session" in {@code sessionId}, oldest first. */
  public List<Grant> sessionGrants(String sessionId) {
    return sessionGrants.of(Objects.requireNonNull(sessionId, "sessionId"));
  }

  /** The grants made by "approve for session" in every session (what a runtime snapshot keeps). */
  public Map<String, List<Grant>> sessionGrants() {
    return sessionGrants.all();
  }

  /**
   * Adds a grant to {@code sessionId} as if "approve for session" had made it: a grant restored from a snapshot, or
   * one the application makes itself. It applies to the next request of the session.
   */
  public void addSessionGrant(String sessionId, Grant grant) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(grant, "grant");
    sessionGrants.add(sessionId, grant);
  }

  /** Revokes one session grant; returns whether there was one. */
  public boolean revokeSessionGrant(String sessionId, String grantId) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(grantId, "grantId");
    return sessionGrants.revoke(sessionId, grantId);
  }

  /** Forgets every session grant of {@code sessionId} (call it when the session ends). */
  public void forgetSession(String sessionId) {
    sessionGrants.forget(Objects.requireNonNull(sessionId, "sessionId"));
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return queue.isClosed();
  }

  /**
   * Closes the service handing its open requests over to the other runtimes of a shared store instead of cancelling
   * them (what {@code ToolCallRuntime.close()} does with a {@code sharedStore}): each is let go here (out of the
   * queue, its deadline disarmed, awaiting UIs released) and stays open in the store, where another runtime answers
   * it, or denies it at its deadline. Idempotent with {@link #close}: whichever comes first decides.
   */
  public void handOff() {
    closing.handOff();
  }

  /**
   * Hands the open request of {@code call} over to the shared store, as {@link #handOff()} does for every request,
   * while the service goes on: it is let go here (out of the queue, its deadline disarmed, its listeners told it is
   * resolved here) and stays open in the store, where any runtime answers it or denies it at its deadline. A decision
   * racing with it either wins (the request is not handed over) or finds the request gone here.
   *
   * @return whether the request was open here and is handed over now
   */
  public boolean handOff(ToolCall call) {
    Objects.requireNonNull(call, "call");
    ToolCallSnapshot s = call.snapshot();
    if (s.state() != ToolCallState.PERMISSION_PENDING) {
      return false;
    }
    Pending p = PermissionRequest.of(s).map(r -> byId.get(r.requestId())).orElse(null);
    return p != null && p.call == call && closing.abandon(p);
  }

  /**
   * Cancels the call of every waiting request, releases every waiter, closes its own timer. Later
   * {@link #authorize} calls cancel their call at once. Idempotent.
   */
  @Override
  public void close() {
    closing.close();
  }

  @Override
  public String toString() {
    return "PermissionService[mode=" + mode + ", pending=" + queue.size() + (queue.isClosed() ? ", closed" : "")
        + "]";
  }

  /**
   * Builds a {@link PermissionService}. Not thread-safe; each setter checks its value at once and names the
   * parameter when it is wrong.
   */
  public static final class Builder {
    private PermissionPolicy policy = PermissionPolicy.empty();
    private GrantStore grantStore;
    private ApprovalMode approvalMode = ApprovalMode.ASK;
    private Duration defaultTimeout = Duration.ofMinutes(5);
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private DeadlineTimer timer;
    private final java.util.ArrayList<PermissionHook> hooks = new java.util.ArrayList<>();

    private java.util.function.Predicate<String> requestLoader;
    private SessionGrantStore sessionGrants;
    private Builder() {}

    /** Adds a check that runs before the policy (see {@link PermissionHook}); hooks run in the order added. */
    public Builder hook(PermissionHook hook) {
      hooks.add(Objects.requireNonNull(hook, "hook"));
      return this;
    }

    /** The rules (default: none, ask for everything that needs approval). */
    public Builder policy(PermissionPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Where "approve always" grants are kept (default: a new in-memory store). */
    public Builder grantStore(GrantStore grantStore) {
      this.grantStore = Objects.requireNonNull(grantStore, "grantStore");
      return this;
    }

    /** The initial approval mode (default {@link ApprovalMode#ASK}). */
    public Builder approvalMode(ApprovalMode approvalMode) {
      this.approvalMode = Objects.requireNonNull(approvalMode, "approvalMode");
      return this;
    }

    /**
     * How long a request waits when its tool sets no permission timeout (default 5 minutes). Must be positive;
     * values beyond about 146 years are clamped to that (they never fire in practice).
     */
    public Builder defaultTimeout(Duration defaultTimeout) {
      Objects.requireNonNull(defaultTimeout, "defaultTimeout");
      if (defaultTimeout.isZero() || defaultTimeout.isNegative()) {
        throw new IllegalArgumentException("defaultTimeout must be positive, was " + defaultTimeout);
      }
      this.defaultTimeout = defaultTimeout;
      return this;
    }

    /** The wall clock for request and grant times (default system UTC); deadlines do not use it. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The monotonic ticker deadlines are measured on (default {@link System#nanoTime()}); use the same source as
     * the calls' tickers.
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * The timer that runs the deadlines (default: a {@link DeadlineTimer#newDefault()} of its own, closed by
     * {@link PermissionService#close()}). A timer given here is shared, not owned: the service never closes it;
     * whoever made it does ({@link dev.toolcall.runtime.ToolCallRuntime} shares one with its scheduler). Tests inject a
     * fake driven by a fake ticker.
     */
    public Builder timer(DeadlineTimer timer) {
      this.timer = Objects.requireNonNull(timer, "timer");
      return this;
    }

    /**
     * What {@link #decide} and {@link #request} do with a request id this service does not know: {@code loader}
     * brings the request in from a store shared with other runtimes (the runtime sets it for
     * {@code ToolCallRuntime.Builder.sharedStore}: it loads the waiting call and re-opens its request here, with its
     * id and absolute deadline) and returns whether it did. Default: none, the request is unknown.
     */
    public Builder requestLoader(java.util.function.Predicate<String> loader) {
      this.requestLoader = Objects.requireNonNull(loader, "loader");
      return this;
    }

    /**
     * Where "approve for session" grants are kept (default: {@link SessionGrantStore#inMemory()}, one per service);
     * a shared one, such as {@code PostgresCallStore.sessionGrants()}, makes them hold on every runtime.
     */
    public Builder sessionGrantStore(SessionGrantStore store) {
      this.sessionGrants = Objects.requireNonNull(store, "store");
      return this;
    }

    /** The service. */
    public PermissionService build() {
      if (sessionGrants == null) {
        sessionGrants = SessionGrantStore.inMemory();
      }
      if (grantStore == null) {
        grantStore = GrantStore.inMemory();
      }
      return new PermissionService(this);
    }
  }
}
