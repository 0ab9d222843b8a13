package dev.toolcall.permission;

import dev.toolcall.DeadlineTimer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one warning a {@link PermissionService} gives when a request waits and nothing reads its requests: no
 * {@code onRequest} listener, no {@code nextRequest}/{@code awaitNext} reader, and no {@code pending()},
 * {@code request(id)} or {@code decide} call ever made. Such a request can only wait for its deadline (5 minutes by
 * default), and the turn waiting on it looks hung. When a request opens on a service nothing has read yet, a check
 * runs {@link #GRACE} (ten seconds) later on the service's timer (an application that reads within that time, such
 * as a web page polling {@code pending()} every few seconds, is not warned about); if the request still waits and still nothing has read, one WARN names the request, its tool, its deadline
 * and what to do. At most once per service; the first read cancels a check that has not run. A request whose
 * deadline comes before the check, and one re-opened at restore, are not checked.
 *
 * <p>Thread-safe: reads, openings and the check may race; a request opened while the first read happens may or may
 * not be checked, and a check that runs as the first read happens may or may not warn.
 */
final class UnreadRequestWarning {

  /**
   * How long a request may wait unread before the warning: long enough that a web page polling {@code pending()}
   * (whose first poll may come a few seconds after the request opened) is not taken for nobody, short enough that a
   * turn that would wait minutes for nothing is named early.
   */
  static final Duration GRACE = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private volatile boolean read; // set once, by any reader's thread
  private final AtomicBoolean warned = new AtomicBoolean();
  /** The check that has not run yet, if any; null otherwise. */
  private final AtomicReference<DeadlineTimer.Handle> check = new AtomicReference<>();

  /** Someone reads or answers this service's requests: no warning from now on. */
  void read() {
    if (!read) {
      read = true;
      DeadlineTimer.Handle h = check.getAndSet(null);
      if (h != null) {
        h.cancel();
      }
    }
  }

  /**
   * A request has just opened with {@code timeout} to its deadline; if nothing has read the service's requests yet,
   * checks on {@code timer} after {@link #GRACE} whether it still waits ({@code stillWaiting}) unread.
   */
  void opened(Pending r, Duration timeout, DeadlineTimer timer, BooleanSupplier stillWaiting) {
    if (read || warned.get() || timeout.compareTo(GRACE) <= 0 || check.get() != null) {
      return;
    }
    DeadlineTimer.Handle[] self = new DeadlineTimer.Handle[1];
    Runnable task = () -> {
      check.compareAndSet(self[0], null);
      if (!read && stillWaiting.getAsBoolean() && warned.compareAndSet(false, true)) {
        log.warn("permission request {} for tool '{}' (call {}, session {}) has waited {} for a decision, but "
            + "nothing reads this runtime's permission requests (no permissions().onRequest listener, no "
            + "nextRequest, awaitNext or pending reader): it is denied when its deadline passes, {} after it "
            + "opened. Answer requests with runtime.permissions().onRequest(...), or mark tools that need no person "
            + "with requiresApproval(false) (and readOnly(true) for reads). This is logged once.", r.id(),
            r.call.toolName(), r.call.callId(), r.call.sessionId(), GRACE, timeout);
      }
    };
    synchronized (self) {
      self[0] = timer.schedule(() -> {
        synchronized (self) {
          task.run();
        }
      }, GRACE);
      if (!check.compareAndSet(null, self[0]) || read) {
        self[0].cancel(); // another request's check is pending, or a read came meanwhile
        check.compareAndSet(self[0], null);
      }
    }
  }
}
