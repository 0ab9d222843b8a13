package dev.toolcall.permission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The waiting requests of one {@link PermissionService}, first asked first, and the UI's waiters for the next one.
 *
 * <p>Entries are ordered by the instant their request was first asked, then by sequence number (arrival here): a
 * request restored from before a restart, or re-opened from a shared store, keeps its place ahead of the requests
 * asked since, and requests asked at one instant keep their arrival order. A resolved entry may stay until its
 * resolver removes it, so the head is the oldest entry whose call still waits ({@link Pending#current()}). Waiters and the closed flag are guarded by
 * {@code waitLock}; the head handed to waiters is computed under it, so a waiter registered after an entry was put is
 * signalled by that put, and one registered before is found by the head check. Thread-safe.
 */
final class RequestQueue {
  private static final java.util.Comparator<Pending> ASKED_FIRST = (a, b) -> {
    int c = Long.compare(a.createdSeconds, b.createdSeconds);
    if (c == 0) {
      c = Integer.compare(a.createdNanos, b.createdNanos);
    }
    return c != 0 ? c : Long.compare(a.seq, b.seq);
  };
  private final ConcurrentSkipListMap<Pending, Pending> entries = new ConcurrentSkipListMap<>(ASKED_FIRST);
  private final Object waitLock = new Object();
  /** Guarded by waitLock. */
  private final List<CompletableFuture<PermissionRequest>> waiters = new ArrayList<>();
  /** Set once, under waitLock. */
  private volatile boolean closed;

  void put(Pending p) {
    entries.put(p, p);
  }

  void remove(Pending p) {
    entries.remove(p, p);
  }

  int size() {
    return entries.size();
  }

  boolean isClosed() {
    return closed;
  }

  /** The waiting requests, oldest first, as they are now. */
  List<PermissionRequest> pending() {
    List<PermissionRequest> out = new ArrayList<>();
    for (Pending p : entries.values()) {
      PermissionRequest r = p.current();
      if (r != null) {
        out.add(r);
      }
    }
    return List.copyOf(out);
  }

  /** Completes with the oldest waiting request, at once if there is one; fails with cancellation once closed. */
  CompletableFuture<PermissionRequest> next() {
    synchronized (waitLock) {
      if (closed) {
        return CompletableFuture.failedFuture(new CancellationException(PermissionService.CLOSED));
      }
      PermissionRequest head = head();
      if (head != null) {
        return CompletableFuture.completedFuture(head);
      }
      CompletableFuture<PermissionRequest> f = new CompletableFuture<>();
      waiters.add(f);
      return f;
    }
  }

  /** Blocks up to {@code timeout} for {@link #next()}; empty when none came in time or the queue closed. */
  Optional<PermissionRequest> awaitNext(Duration timeout) throws InterruptedException {
    CompletableFuture<PermissionRequest> f = next();
    try {
      return Optional.of(f.get(Math.max(0, Durations.saturatedNanos(timeout)), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      synchronized (waitLock) {
        waiters.remove(f);
      }
      return f.isDone() && !f.isCompletedExceptionally() ? Optional.of(f.join()) : Optional.empty();
    } catch (ExecutionException | CancellationException e) {
      return Optional.empty();
    }
  }

  private PermissionRequest head() {
    for (Pending p : entries.values()) {
      PermissionRequest r = p.current();
      if (r != null) {
        return r;
      }
    }
    return null;
  }

  /** Hands the head, if any, to every waiter. */
  void signalWaiters() {
    List<CompletableFuture<PermissionRequest>> ws;
    PermissionRequest head;
    synchronized (waitLock) {
      if (waiters.isEmpty()) {
        return;
      }
      head = head();
      if (head == null) {
        return;
      }
      ws = new ArrayList<>(waiters);
      waiters.clear();
    }
    for (CompletableFuture<PermissionRequest> f : ws) {
      f.complete(head);
    }
  }

  /** Closes once: every waiter fails with cancellation. False if it was closed already. */
  boolean close() {
    List<CompletableFuture<PermissionRequest>> ws;
    synchronized (waitLock) {
      if (closed) {
        return false;
      }
      closed = true;
      ws = new ArrayList<>(waiters);
      waiters.clear();
    }
    for (CompletableFuture<PermissionRequest> f : ws) {
      f.completeExceptionally(new CancellationException(PermissionService.CLOSED));
    }
    return true;
  }
}
