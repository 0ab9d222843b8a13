package dev.toolcall.permission;

import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of one {@link PermissionService}: {@link PermissionService#close()} cancels the call of every waiting
 * request, {@link PermissionService#handOff()} lets each go here and leaves it open in the shared store; both release
 * the UI's waiters and listeners and close the service's own timer (never a shared one). Whichever comes first
 * decides (the queue's closed flag); the other does nothing. Thread-safe as the service is: a request opened while
 * the service closes is taken out by {@link PermissionService#enqueue}, which checks the flag after inserting it.
 */
final class Closing {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private final PermissionService svc;

  Closing(PermissionService svc) {
    this.svc = svc;
  }

  /** {@link PermissionService#handOff()}. */
  void handOff() {
    if (!svc.queue.close()) {
      return;
    }
    svc.requestListeners.closeAll();
    for (Pending p : svc.byId.values()) {
      abandon(p);
    }
    if (svc.ownsTimer) {
      svc.deadlines.close();
    }
  }

  /** {@link PermissionService#close()}. */
  void close() {
    if (!svc.queue.close()) {
      return;
    }
    svc.requestListeners.closeAll();
    for (Pending p : svc.byId.values()) {
      ToolCallSnapshot s;
      try {
        s = p.call.cancel(PermissionService.CLOSED).snapshot();
      } catch (RuntimeException e) { // a call store that failed or refused: close goes on; the store keeps the call
        log.warn("closing: call {} could not be cancelled: {}", p.call.callId(), e.toString());
        abandon(p);
        continue;
      }
      if (s.state() != ToolCallState.PENDING && s.state() != ToolCallState.PERMISSION_PENDING) {
        svc.finish(p, s);
      }
    }
    if (svc.ownsTimer) {
      svc.deadlines.close();
    }
  }

  /**
   * Lets go of {@code p} at close when its call could not be cancelled (its store refused): out of both maps, timer
   * cancelled, listeners told; its authorize stage is left as it is, since nothing decided the call here.
   */
  boolean abandon(Pending p) {
    if (!p.markDone()) {
      return false;
    }
    String id = p.id();
    svc.byId.remove(id, p);
    svc.requestListeners.resolved(id);
    svc.queue.remove(p);
    p.cancelTimer();
    return true;
  }
}
