package dev.toolcall.permission;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one warning a {@link PermissionService} gives when a request opens and nothing has ever read its requests (no
 * {@code onRequest} listener, no {@code nextRequest}/{@code awaitNext} reader, no {@code pending()},
 * {@code request(id)} or {@code decide} call): such a request can only wait for its deadline, and the turn waiting on
 * it looks hung. Logged once per service, at WARN, naming the request, its tool and its deadline, and what to do.
 * A request re-opened at restore does not count (the application may not have subscribed yet). Thread-safe: any
 * thread may read or open at any time; a request opened while the first read happens may or may not be warned about.
 */
final class UnreadRequestWarning {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private volatile boolean read; // set once, by any reader's thread
  private final AtomicBoolean warned = new AtomicBoolean();

  /** Someone reads or answers this service's requests: no warning from now on. */
  void read() {
    if (!read) {
      read = true;
    }
  }

  /** A request has just opened; warns (once) if nothing has ever read the service's requests. */
  void opened(PermissionRequest r, Duration timeout) {
    if (!read && warned.compareAndSet(false, true)) {
      log.warn("permission request {} for tool '{}' (call {}, session {}) is waiting for a decision, but nothing "
          + "reads this runtime's permission requests (no permissions().onRequest listener, no nextRequest, "
          + "awaitNext or pending reader): it waits until its deadline in {} and is then denied. Answer requests "
          + "with runtime.permissions().onRequest(...), or mark tools that need no person with "
          + "requiresApproval(false) (and readOnly(true) for reads). This is logged once.", r.requestId(),
          r.toolName(), r.callId(), r.sessionId(), timeout);
    }
  }
}
