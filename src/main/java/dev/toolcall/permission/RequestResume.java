package dev.toolcall.permission;

import dev.toolcall.Change;
import dev.toolcall.DenialSource;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.fsm.TransitionResult;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests one {@link PermissionService} did not open itself: a request re-opened from a snapshot after a restart
 * ({@link PermissionService#resume}), one loaded from a store shared with other runtimes (its request loader), and
 * one whose call another runtime sharing the store has changed ({@link PermissionService#settle}). Each keeps its id
 * and absolute deadline; one decided meanwhile elsewhere is resolved here once, with what won. Thread-safe as the
 * service is.
 */
final class RequestResume {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private final PermissionService svc;

  RequestResume(PermissionService svc) {
    this.svc = svc;
  }

  /** {@link PermissionService#resume}, its arguments checked ({@code lateReason} may be null). */
  CompletionStage<ToolCallSnapshot> resume(ToolCall call, Instant askedAt, String lateReason) {
    ToolCallSnapshot s = call.snapshot();
    if (s.state() != ToolCallState.PERMISSION_PENDING && s.state() != ToolCallState.PENDING) {
      // decided meanwhile (by another runtime sharing the store, or denied by the restore at its deadline)
      ToolCallSnapshot left = PermissionService.leftPending(s);
      Change.PermissionAsked asked = lastAsked(s);
      if (asked != null) { // a decision for it here learns what won
        svc.resolved.put(asked.requestId(), DecisionResult.Lost.of(asked.requestId(), left));
      }
      return PermissionService.done(left);
    }
    if (s.state() != ToolCallState.PERMISSION_PENDING || !(s.change() instanceof Change.PermissionAsked asked)) {
      throw new IllegalArgumentException("call " + call.callId() + " must be PERMISSION_PENDING as restored, with"
          + " its PermissionAsked as its change; was " + s);
    }
    if (svc.queue.isClosed()) {
      return PermissionService.done(call.cancel(PermissionService.CLOSED).snapshot());
    }
    String id = asked.requestId();
    Duration timeout = Duration.between(askedAt, asked.deadline());
    Pending p = new Pending(svc, svc.sequence.incrementAndGet(), call, asked, askedAt);
    if (svc.byId.putIfAbsent(id, p) != null) {
      throw new IllegalArgumentException("a permission request with id '" + id + "' is already open");
    }
    long left = asked.deadlineTick() - svc.ticker.read();
    if (left <= 0 && lateReason != null) {
      TransitionResult<ToolCallSnapshot> r;
      try {
        r = call.deny(DenialSource.TIMEOUT, "Its deadline passed while " + lateReason + ": nobody answered within "
            + Durations.format(timeout) + ", so it was not run.");
      } catch (RuntimeException e) { // the store failed it: the deadline's timer tries again, saying so
        if (!(e instanceof dev.toolcall.StaleCallException)) {
          p.denyFailures++;
        }
        log.debug("permission request {} of call {} ({}) is past its deadline; denying it failed: {}", id,
            call.callId(), call.toolName(), e.toString());
        return svc.opening.enqueue(p, Duration.ZERO);
      }
      svc.finish(p, r.snapshot());
      return PermissionService.done(r.snapshot());
    }
    log.debug("permission request {} of call {} ({}) resumed, deadline in {}", id, call.callId(), call.toolName(),
        Duration.ofNanos(left));
    return svc.opening.enqueue(p, Duration.ofNanos(left));
  }

  /** {@link PermissionService#settle}, its argument checked. */
  void settle(ToolCall call) {
    ToolCallSnapshot s = call.snapshot();
    Change.PermissionAsked asked = lastAsked(s);
    Pending p = asked == null ? null : svc.byId.get(asked.requestId());
    if (p == null || p.call != call) {
      return;
    }
    if (s.state() != ToolCallState.PERMISSION_PENDING) {
      svc.finish(p, s);
    } else if (svc.timeouts.pastDeadline(p)) {
      try {
        svc.timeouts.timeOut(p);
      } catch (RuntimeException e) { // its timer tries again
        log.debug("permission request {} is past its deadline; denying it failed: {}", p.id(),
            e.toString());
      }
    }
  }

  /**
   * The request {@code requestId} as the request loader brings it here from a store shared with other runtimes, or
   * null (no loader, or no such request waiting there).
   */
  Pending loaded(String requestId) {
    if (svc.requestLoader == null || svc.queue.isClosed()) {
      return null;
    }
    try {
      if (!svc.requestLoader.test(requestId)) {
        return null;
      }
    } catch (RuntimeException e) {
      log.warn("loading permission request {} from the shared store failed: {}", requestId, e.toString());
      return null;
    }
    return svc.byId.get(requestId);
  }

  /** The request the call was last asked about, found back from {@code s} in its kept history; null if none. */
  static Change.PermissionAsked lastAsked(ToolCallSnapshot s) {
    for (ToolCallSnapshot v = s; v != null; v = v.previous()) {
      if (v.change() instanceof Change.PermissionAsked asked) {
        return asked;
      }
    }
    return null;
  }
}
