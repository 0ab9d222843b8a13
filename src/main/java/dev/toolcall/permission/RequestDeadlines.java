package dev.toolcall.permission;

import dev.toolcall.DenialSource;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.fsm.TransitionResult;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deadlines of one {@link PermissionService}'s requests: arming a request's timer, re-arming one that fired
 * early (measured on the service's monotonic ticker, by difference only), denying the call as a timeout once the
 * deadline has passed, and trying that denial again, backing off from 100 ms to 5 s, while the call store fails it.
 * Thread-safe as the service is: the call's compare-and-set decides between a timeout and any other outcome.
 */
final class RequestDeadlines {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private final PermissionService svc;

  RequestDeadlines(PermissionService svc) {
    this.svc = svc;
  }

  /** Arms {@code p}'s deadline {@code left} from now. */
  void arm(Pending p, Duration left) {
    p.timer = svc.deadlines.schedule(p, left); // p.run() calls onDeadline(p, 0)
  }

  void onDeadline(Pending p, int tries) {
    if (p.isResolved()) {
      return;
    }
    long left = p.deadlineTick() - svc.ticker.read();
    if (left > 0) {
      rearm(p, Duration.ofNanos(left), tries);
      return;
    }
    try {
      timeOut(p);
    } catch (RuntimeException e) {
      int failures = p.denyFailures;
      if (e instanceof dev.toolcall.StaleCallException) { // moved on by a writer this runtime cannot read back
        log.error("permission request {} of call {} ({}) is past its deadline, but the call was moved on elsewhere"
            + " ({}); it is not tried again", p.id(), p.call.callId(), p.call.toolName(),
            e.toString());
        return;
      }
      if (tries == 0) {
        log.warn("permission request {} of call {} ({}) is past its deadline, but its store failed the denial ({});"
            + " trying again until it lands", p.id(), p.call.callId(), p.call.toolName(),
            e.toString());
      }
      rearm(p, storeBackoff(failures - 1), tries + 1);
    }
  }

  /**
   * Runs {@link #onDeadline} for {@code p} again after {@code delay}, unless it was resolved meanwhile; {@code tries}
   * counts the denials the store failed on this timer.
   */
  private void rearm(Pending p, Duration delay, int tries) {
    p.timer = svc.deadlines.schedule(() -> onDeadline(p, tries), delay);
    if (p.isResolved()) {
      p.cancelTimer();
    }
  }

  /**
   * Denies {@code p}'s call as a timeout, its deadline having passed, and resolves the request with whatever won
   * (another decision stored first wins over the denial). The reason says when the denial could not be stored at
   * the deadline because the store was unreachable.
   *
   * @return the call's snapshot afterwards
   * @throws RuntimeException what the call store threw (nothing changed; {@link Pending#denyFailures} counts it)
   */
  ToolCallSnapshot timeOut(Pending p) {
    String waited = "It waited " + Durations.format(p.timeout()) + " for an answer";
    TransitionResult<ToolCallSnapshot> r;
    try {
      r = p.call.deny(DenialSource.TIMEOUT, p.denyFailures == 0 ? waited + "."
          : waited + "; its deadline passed while the database was unreachable, so it was denied when the"
          + " database was back.");
    } catch (dev.toolcall.StaleCallException e) {
      throw e;
    } catch (RuntimeException e) {
      p.denyFailures++;
      throw e;
    }
    if (r.snapshot().state() != ToolCallState.PERMISSION_PENDING) {
      svc.finish(p, r.snapshot());
    }
    return r.snapshot();
  }

  /** Whether {@code p}'s deadline has passed on this service's ticker. */
  boolean pastDeadline(Pending p) {
    return p.deadlineTick() - svc.ticker.read() <= 0;
  }

  /** The wait before trying a failed store write again after {@code failures} earlier tries: 100 ms doubling to 5 s. */
  private static Duration storeBackoff(int failures) {
    return Duration.ofMillis(Math.min(5_000, 100L << Math.min(Math.max(0, failures), 6)));
  }

}
