package dev.toolcall.permission;

import dev.toolcall.event.Subscription;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of {@link PermissionService#onRequest}: each gets every request once, on its executor, one at a time,
 * in the order the requests were handed to it, and only while the request still waits.
 */
final class RequestListeners {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();
  /** A request as it is now while it waits, or null once resolved (a request resolved before its turn is skipped). */
  private final Function<String, PermissionRequest> waiting;

  RequestListeners(Function<String, PermissionRequest> waiting) {
    this.waiting = waiting;
  }

  /** Adds a listener, then hands it what {@code alreadyWaiting} gives, oldest first. */
  Subscription add(Consumer<? super PermissionRequest> fn, Executor executor,
      Supplier<List<PermissionRequest>> alreadyWaiting) {
    Listener l = new Listener(fn, executor);
    listeners.add(l); // before the snapshot: a request opened meanwhile is in one of them, or both (offered once)
    for (PermissionRequest r : alreadyWaiting.get()) {
      l.offer(r);
    }
    return l;
  }

  /** Hands a request that has just opened to every listener. */
  void opened(PermissionRequest r) {
    for (Listener l : listeners) {
      l.offer(r);
    }
  }

  /** Forgets a resolved request (it is never offered again: a resolved request is not waiting). */
  void resolved(String requestId) {
    for (Listener l : listeners) {
      l.offered.remove(requestId);
    }
  }

  boolean isEmpty() {
    return listeners.isEmpty();
  }

  void closeAll() {
    for (Listener l : listeners) {
      l.close();
    }
  }

  private final class Listener implements Subscription {
    private final Consumer<? super PermissionRequest> fn;
    private final Executor executor;
    private final Set<String> offered = ConcurrentHashMap.newKeySet();
    private final ArrayDeque<PermissionRequest> queue = new ArrayDeque<>(); // guarded by this
    private boolean draining; // guarded by this
    private volatile boolean closed;

    Listener(Consumer<? super PermissionRequest> fn, Executor executor) {
      this.fn = fn;
      this.executor = executor;
    }

    void offer(PermissionRequest r) {
      if (closed || !offered.add(r.requestId())) {
        return; // once per request, whether it came from the snapshot at subscription or from its opening
      }
      if (waiting.apply(r.requestId()) == null) {
        offered.remove(r.requestId()); // resolved already: resolved() may have run before the add
        return;
      }
      synchronized (this) {
        queue.add(r);
        if (draining) {
          return;
        }
        draining = true;
      }
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        log.warn("request listener's executor rejected a delivery; the listener is removed", e);
        close();
      }
    }

    private void drain() {
      for (;;) {
        PermissionRequest r;
        synchronized (this) {
          r = queue.poll();
          if (r == null || closed) {
            queue.clear();
            draining = false;
            return;
          }
        }
        PermissionRequest now = waiting.apply(r.requestId());
        if (now == null) {
          continue;
        }
        try {
          fn.accept(now);
        } catch (RuntimeException | Error e) { // user code: the listener stays, the request keeps waiting
          log.warn("request listener failed on permission request {}", r.requestId(), e);
        }
      }
    }

    @Override
    public void close() {
      closed = true;
      listeners.remove(this);
    }

    @Override
    public boolean isClosed() {
      return closed;
    }
  }
}
