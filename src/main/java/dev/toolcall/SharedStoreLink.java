package dev.toolcall;

import java.time.Clock;
import java.time.Duration;
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
 * over the calls nobody looks after (a call driven under an expired lease, a request past its deadline).
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
  private volatile boolean closed;
  private boolean sweepFailed; // the link's thread only

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
    watch = store.watch((session, call, version) -> submit(() -> changed(session, call, version)));
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

  /** Version {@code version} of a call was stored by some runtime: bring this runtime's copy up to it. */
  private void changed(String sessionId, String callId, int version) {
    Optional<ToolCall> call = runtime.scheduler().call(sessionId, callId);
    if (call.isEmpty() || call.get().snapshot().version() >= version) {
      return; // not held here, or this runtime wrote it (or adopted it) already
    }
    try {
      refresh(call.get());
    } catch (RuntimeException e) {
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
    Optional<RuntimeSnapshot.Call> stored = store.readByRequest(requestId);
    if (stored.isEmpty()) {
      return false;
    }
    RuntimeSnapshot.Call c = stored.get();
    Optional<ToolCall> held = runtime.scheduler().call(c.sessionId(), c.callId());
    if (held.isPresent()) {
      refresh(held.get());
      return false; // held here already: its request, if still open, is this service's own
    }
    adopt(c);
    return true;
  }

  /** Brings a call no runtime looks after into this one, as a restore does (only the store lets one runtime win). */
  private synchronized void adopt(RuntimeSnapshot.Call c) {
    new RuntimeRestore(runtime, clock, ticker).restore(RuntimeSnapshot.ofCalls(clock.instant(), List.of(c)));
  }

  /** Renews this runtime's leases, then takes over what nobody looks after. */
  private void sweep() {
    if (closed) {
      return;
    }
    try {
      store.renewLeases();
      for (RuntimeSnapshot.Call c : store.overdue()) {
        takeOver(c);
      }
      if (sweepFailed) {
        log.info("shared store sweep works again");
        sweepFailed = false;
      }
    } catch (RuntimeException e) {
      if (!sweepFailed) {
        log.warn("shared store sweep failed (leases not renewed, overdue calls not taken over); retrying every {}:"
            + " {}", sweepEvery, e.toString());
        sweepFailed = true;
      }
    }
  }

  private void takeOver(RuntimeSnapshot.Call c) {
    Optional<ToolCall> held = runtime.scheduler().call(c.sessionId(), c.callId());
    if (held.isEmpty()) {
      adopt(c); // as a restore: pending authorized anew, approved run once, running run again (idempotent) or
      // failed, outcome unknown; waiting past its deadline denied once
      return;
    }
    ToolCall call = held.get();
    ToolCallSnapshot s = refresh(call);
    if (s.state() == ToolCallState.RUNNING && s.version() == c.version()) {
      runtime.scheduler().takeOver(call); // does nothing for a call this runtime runs itself
    }
    // waiting here past its deadline: this runtime's own timer denies it
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
