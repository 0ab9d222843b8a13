package dev.toolcall.permission;

import dev.toolcall.Change;
import dev.toolcall.DeadlineTimer;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The opening of one {@link PermissionService}'s requests: a request is reachable by id before its call moves to
 * PERMISSION_PENDING, then joins the queue, is told to the request listeners and has its deadline armed; one resolved
 * or closed meanwhile is taken out again (see the design note in {@link PermissionService}). Thread-safe as the
 * service is.
 */
final class RequestOpening {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private final PermissionService svc;

  RequestOpening(PermissionService svc) {
    this.svc = svc;
  }

  /** Opens a request; null when the arguments changed meanwhile (the caller evaluates again). */
  CompletionStage<ToolCallSnapshot> ask(ToolCall call, ToolDefinition definition, ToolCallSnapshot s) {
    Duration timeout = definition.permissionTimeoutIfSet().orElse(svc.defaultTimeout);
    long nanos = DeadlineTimer.clampedNanos(timeout);
    long deadlineTick = svc.ticker.read() + nanos; // may wrap past Long.MAX_VALUE: only differences are compared
    Instant createdAt = svc.clock.instant();
    Instant deadline = Durations.saturatedPlus(createdAt, timeout);
    long seq = svc.sequence.incrementAndGet();
    String id = PermissionService.newRequestId();
    Change.PermissionAsked asked = new Change.PermissionAsked(id, s.argumentsVersion(), deadline, deadlineTick);
    Pending p = new Pending(svc, seq, call, asked, createdAt);
    svc.byId.put(id, p);
    TransitionResult<ToolCallSnapshot> r;
    try {
      r = call.transition(ToolCallState.PENDING, s.argumentsVersion(), ToolCallState.PERMISSION_PENDING, asked);
    } catch (RuntimeException e) { // the call store failed: the request never opened
      svc.byId.remove(id, p);
      p.markDone();
      throw e;
    }
    if (r.lost()) {
      svc.byId.remove(id, p);
      p.markDone();
      ToolCallSnapshot cur = r.snapshot();
      return cur.state() == ToolCallState.PENDING ? null : PermissionService.done(cur);
    }
    log.debug("permission request {} opened for call {} ({}), deadline in {}", id, call.callId(),
        call.toolName(), timeout);
    svc.unread.opened(p, timeout, svc.deadlines, () -> svc.byId.get(id) == p);
    return enqueue(p, timeout);
  }

  /**
   * Puts the open request {@code p} in the queue, tells the request listeners, arms its deadline {@code left} from
   * now, and resolves it when its call ends; a request resolved meanwhile, or a service closed meanwhile, is taken
   * out again. Returns the stage that completes with the version that left PERMISSION_PENDING.
   */
  CompletionStage<ToolCallSnapshot> enqueue(Pending p, Duration left) {
    svc.queue.put(p);
    if (!svc.requestListeners.isEmpty()) {
      svc.requestListeners.opened(p.request(p.call.snapshot()));
    }
    svc.timeouts.arm(p, left);
    p.call.onTerminal(p); // p.accept(t) calls svc.finish(p, t)
    if (p.isResolved()) {
      svc.queue.remove(p);
      p.cancelTimer();
    } else {
      svc.queue.signalWaiters();
    }
    if (svc.queue.isClosed()) {
      svc.finish(p, p.call.cancel(PermissionService.CLOSED).snapshot());
    }
    return p;
  }
}
