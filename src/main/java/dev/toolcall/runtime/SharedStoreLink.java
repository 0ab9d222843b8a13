package dev.toolcall.runtime;

import dev.toolcall.CallRecord;
import dev.toolcall.SharedCallStore;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime's link to the other runtimes of a {@link SharedCallStore}, on one daemon thread of its own
 * ({@code toolcall-shared-store}): it adopts the changes the store tells of into the calls this runtime holds, loads
 * the requests other runtimes opened when a decision for one arrives here, renews this runtime's leases, and takes
 * over the calls nobody looks after (a call driven under an expired lease, a request a lease past its deadline).
 *
 * <p>Only calls that were created and versions that were stored reach this runtime's listeners: a row the sweep read
 * is read again before it is taken over (it may have moved on meanwhile), and a call whose id this runtime knows
 * already is never taken over (an overdue row of a call that ended here since the sweep read it is an older copy of
 * this runtime's own call, not a call nobody looks after).
 *
 * <p>Outages. A lease that lapsed while the store was unreachable is no evidence that its runtime crashed: every
 * runtime's renewals failed alike. So once this link has seen the store fail, it takes nothing over until its sweeps
 * have worked again for a whole lease: by then every live runtime has renewed its leases (each renews every third of
 * one) and settled its own calls, and what is still overdue belongs to a runtime that is really gone. Meanwhile it
 * renews its own leases and settles its own calls (a held request past its deadline is denied now) as usual.
 */
final class SharedStoreLink implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SharedStoreLink.class);

  private final ToolCallRuntime runtime;
  private final SharedCallStore store;
  private final Clock clock;
  private final Ticker ticker;
  private final ScheduledExecutorService thread;
  /** How often leases are renewed and overdue calls looked for: a third of the lease. */
  private final Duration sweepEvery;
  private volatile AutoCloseable watch;
  /** The listeners of {@link ToolCallRuntime#watchStore}, told on the store's thread through this link's one watch. */
  private final List<SharedCallStore.Listener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile boolean closed;
  private boolean sweepFailed; // the link's thread only
  /** How many sweeps ran; the link's thread only. */
  private long sweeps;
  /** Whether an operation on the store failed since the last sweep that worked; set by any thread. */
  private volatile boolean storeFailed;
  /** When the store last failed an operation of this link (wall clock), or null; set by any thread. */
  private volatile Instant lastFailure;
  /** The tick of the first sweep that worked after the store failed; the link's thread only. */
  private long recoveredAt;
  /** Whether {@link #recoveredAt} is set: takeovers wait a lease from it; the link's thread only. */
  private boolean recovering;

  SharedStoreLink(ToolCallRuntime runtime, SharedCallStore store, Clock clock, Ticker ticker) {
    this.runtime = runtime;
    this.store = store;
    this.clock = clock;
    this.ticker = ticker;
    this.sweepEvery = Duration.ofMillis(Math.max(1, store.lease().toMillis() / 3));
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "toolcall-shared-store");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts watching the store and sweeping it every third of the lease. */
  void start() {
    watch = store.watch(new SharedCallStore.Listener() {
      @Override
      public void stored(String session, String call, int version) {
        submit(() -> changed(session, call, version));
        for (SharedCallStore.Listener l : listeners) {
          try {
            l.stored(session, call, version);
          } catch (RuntimeException e) { // a listener's bug: the others and the link go on
            log.error("store listener {} failed on {}/{} version {}", l, session, call, version, e);
          }
        }
      }

      @Override
      public void conversationChanged(String conversationId, long revision) {
        for (SharedCallStore.Listener l : listeners) {
          try {
            l.conversationChanged(conversationId, revision);
          } catch (RuntimeException e) {
            log.error("store listener {} failed on conversation {} revision {}", l, conversationId, revision, e);
          }
        }
      }
    });
    thread.scheduleWithFixedDelay(this::sweep, sweepEvery.toMillis(), sweepEvery.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void submit(Runnable task) {
    if (closed) {
      return;
    }
    try {
      thread.execute(task);
    } catch (RejectedExecutionException e) { // closed meanwhile
    }
  }

  /** Adds {@code listener} to this link's watch of the store; see {@link ToolCallRuntime#watchStore}. */
  dev.toolcall.event.Subscription listen(SharedCallStore.Listener listener) {
    listeners.add(listener);
    return new dev.toolcall.event.Subscription() {
      private volatile boolean closed;

      @Override
      public void close() {
        closed = true;
        listeners.remove(listener);
      }

      @Override
      public boolean isClosed() {
        return closed;
      }
    };
  }

  /** Version {@code version} of a call was stored by some runtime: bring this runtime's copy up to it. */
  private void changed(String sessionId, String callId, int version) {
    Optional<ToolCall> call = runtime.scheduler().call(sessionId, callId);
    if (call.isEmpty() || call.get().snapshot().version() >= version) {
      return; // not held here, or this runtime wrote it (or adopted it) already
    }
    try {
      refresh(call.get());
    } catch (RuntimeException e) {
      failed();
      log.warn("could not read call {}/{} from the shared store after version {} was stored: {}", sessionId, callId,
          version, e.toString());
    }
  }

  /** Adopts what the store holds of {@code call}; a request another runtime answered is resolved here too. */
  ToolCallSnapshot refresh(ToolCall call) {
    ToolCallSnapshot s = call.refresh();
    if (s.state() != ToolCallState.PERMISSION_PENDING) {
      runtime.permissions().settle(call);
    }
    return s;
  }

  /**
   * Loads the call waiting on {@code requestId}, opened by another runtime, and re-opens its request here (same id,
   * same absolute deadline), so that a decision taken here goes through the store. Called by the permission service
   * for a request id it does not know.
   *
   * @return whether the request is open here now
   */
  synchronized boolean load(String requestId) {
    if (closed) {
      return false;
    }
    Optional<CallRecord> stored;
    try {
      stored = store.readByRequest(requestId);
    } catch (RuntimeException e) {
      failed();
      throw e;
    }
    if (stored.isEmpty()) {
      return false;
    }
    CallRecord c = stored.get();
    Optional<ToolCall> held = runtime.scheduler().call(c.sessionId(), c.callId());
    if (held.isPresent()) {
      refresh(held.get());
      return false; // held here already: its request, if still open, is this service's own
    }
    return adopt(c);
  }

  /**
   * Brings a call no runtime looks after into this one, as a restore does (only the store lets one runtime win); a
   * request past its deadline is denied, saying what kept it from being denied at its deadline. A call whose id this
   * runtime knows already is left alone: the row was read before this runtime's own copy moved on (it ended here since,
   * say), so it is an older version of a call this runtime has published already, and nothing is published for it.
   *
   * @return whether this runtime holds the call now, not ended
   */
  private synchronized boolean adopt(CallRecord c) {
    RuntimeRestore.adopting(runtime, clock, ticker, whyNotDenied(c))
        .restore(RuntimeSnapshot.ofCalls(clock.instant(), List.of(c)));
    return runtime.scheduler().call(c.sessionId(), c.callId()).isPresent();
  }

  /**
   * What kept the request of {@code c}, found waiting past its deadline, from being denied at it, completing "Its
   * deadline passed while …": the database was unreachable, when this link saw it fail at or after the deadline; the
   * runtime that asked could not deny it, when it passed a lease ago or more (a live runtime that reaches the database
   * denies its own requests at their deadlines, or at its next sweep); otherwise null: nothing this link knows of
   * did, and it is denied as any timeout is ("It waited 8s for an answer.").
   */
  private String whyNotDenied(CallRecord c) {
    if (c.permission() == null) {
      return null;
    }
    Instant deadline = c.permission().deadline();
    Instant failed = lastFailure;
    if (failed != null && !failed.isBefore(deadline.minus(sweepEvery))) {
      return "the database was unreachable";
    }
    if (Duration.between(deadline, clock.instant()).compareTo(store.lease()) < 0) {
      return null;
    }
    return "the runtime that asked could not deny it (it had stopped, or could not reach the database)";
  }

  /** Notes that the store failed an operation of this link: takeovers wait until it has worked for a lease. */
  private void failed() {
    lastFailure = clock.instant();
    storeFailed = true;
  }

  /** Renews this runtime's leases, settles its own overdue calls, then takes over what nobody looks after. */
  private void sweep() {
    if (closed) {
      return;
    }
    try {
      store.renewLeases();
      List<CallRecord> overdue = store.overdue();
      long now = ticker.read();
      if (storeFailed) { // the first sweep that works after a failure: the others get a lease to renew theirs
        storeFailed = false;
        recovering = true;
        recoveredAt = now;
      } else if (recovering && now - recoveredAt >= store.lease().toNanos()) {
        recovering = false;
      }
      if (sweepFailed) {
        log.info("shared store sweep works again");
        sweepFailed = false;
      }
      for (CallRecord c : overdue) {
        takeOver(c, !recovering);
      }
      for (CallRecord c : store.handedOverPastDeadline()) {
        denyHandedOver(c);
      }
      if (++sweeps % 3 == 0) { // once a lease: the rows under this runtime's lease that it does not hold
        for (CallRecord c : store.leased()) {
          if (runtime.scheduler().call(c.sessionId(), c.callId()).isEmpty()) {
            adopt(c); // a call whose first write lost its answer: taken over as a restore would (a known id is left)
          }
        }
      }
    } catch (RuntimeException e) {
      failed();
      if (!sweepFailed) {
        log.warn("shared store sweep failed (leases not renewed, overdue calls not taken over); retrying every {}:"
            + " {}", sweepEvery, e.toString());
        sweepFailed = true;
      }
    }
  }

  /**
   * Looks after overdue call {@code c}: one held here is settled (brought up to the store; a request past its deadline
   * denied now); one driven elsewhere is taken over when {@code others} allows it (not right after an outage).
   */
  private void takeOver(CallRecord c, boolean others) {
    Optional<ToolCall> held = runtime.scheduler().call(c.sessionId(), c.callId());
    if (held.isEmpty()) {
      if (others && !askerMayDeny(c)) {
        Optional<CallRecord> now;
        try {
          now = store.read(c.sessionId(), c.callId()); // the sweep's read may be stale by now
        } catch (RuntimeException e) {
          if (store.retriable(e)) {
            throw e; // the store failed: the sweep fails, and takeovers wait
          }
          return; // moved on to what this version cannot read: left as it is
        }
        if (now.isPresent() && now.get().version() == c.version() && !now.get().state().isTerminal()) {
          adopt(now.get()); // as a restore: pending authorized anew, approved run once, running run again
          // (idempotent) or failed, outcome unknown; waiting past its deadline denied once
        }
      }
      return;
    }
    ToolCall call = held.get();
    ToolCallSnapshot s = refresh(call);
    if (s.state() == ToolCallState.PERMISSION_PENDING) {
      runtime.permissions().settle(call); // held here past its deadline: denied now (its timer may have failed)
    } else if (others && s.state() == ToolCallState.RUNNING && s.version() == c.version()) {
      runtime.scheduler().takeOver(call); // does nothing for a call this runtime runs itself
    }
  }

  /**
   * Denies the handed-over call {@code c} past its deadline (no runtime holds it: its turn's runtime let go of it on
   * purpose), as its own timer would have: a plain timeout, unless this link saw the database fail near the deadline.
   * One held here (a decision loaded it meanwhile) is settled as any held call.
   */
  private void denyHandedOver(CallRecord c) {
    Optional<ToolCall> held = runtime.scheduler().call(c.sessionId(), c.callId());
    if (held.isPresent()) {
      refresh(held.get());
      runtime.permissions().settle(held.get());
      return;
    }
    Instant failed = lastFailure;
    String why = failed != null && c.permission() != null
        && !failed.isBefore(c.permission().deadline().minus(sweepEvery)) ? "the database was unreachable" : null;
    RuntimeRestore.adopting(runtime, clock, ticker, why).restore(RuntimeSnapshot.ofCalls(clock.instant(), List.of(c)));
  }

  /** Marks {@code waiting} handed over in the store ({@link SharedCallStore#handOver}); false if it was not. */
  boolean handOver(ToolCallSnapshot waiting) {
    try {
      return store.handOver(waiting);
    } catch (RuntimeException e) {
      failed();
      return false;
    }
  }

  /**
   * Whether {@code c} waits past its deadline by less than a lease: the runtime that asked, if it runs, denies it
   * itself (at its deadline, or at its next sweep), so it is not taken over yet; once a lease has passed, that runtime
   * is not looking after it.
   */
  private boolean askerMayDeny(CallRecord c) {
    return c.permission() != null
        && Duration.between(c.permission().deadline(), clock.instant()).compareTo(store.lease()) < 0;
  }

  /**
   * After the runtime handed its calls over: lets go of its leases, so the other runtimes take those calls over at
   * their next sweep rather than when the leases would have lapsed.
   */
  void releaseLeases() {
    try {
      store.releaseLeases();
    } catch (RuntimeException e) {
      log.warn("closing: could not let go of the leases in the shared store ({}); the other runtimes take the calls"
          + " over when they lapse", e.toString());
    }
  }

  /** Stops watching and sweeping; the calls stay in the store as they are. */
  @Override
  public void close() {
    closed = true;
    AutoCloseable w = watch;
    if (w != null) {
      try {
        w.close();
      } catch (Exception e) {
        log.warn("closing the shared store's watch failed: {}", e.toString());
      }
    }
    thread.shutdownNow();
  }
}
