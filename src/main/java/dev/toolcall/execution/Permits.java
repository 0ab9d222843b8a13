package dev.toolcall.execution;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous counting semaphore: {@link #acquire()} returns a future that completes when a permit is held, in
 * FIFO order, without blocking a thread. A permit is handed straight from a releaser to the next waiter.
 */
final class Permits {
  private final int max;
  private final ArrayDeque<CompletableFuture<Void>> waiters = new ArrayDeque<>(); // guarded by this
  private int used; // guarded by this

  Permits(int max) {
    this.max = max;
  }

  CompletableFuture<Void> acquire() {
    synchronized (this) {
      if (used < max) {
        used++;
        return CompletableFuture.completedFuture(null);
      }
      CompletableFuture<Void> f = new CompletableFuture<>();
      waiters.add(f);
      return f;
    }
  }

  void release() {
    CompletableFuture<Void> next;
    synchronized (this) {
      next = waiters.poll();
      if (next == null) {
        used--;
        return;
      }
    }
    next.complete(null); // the permit passes to the waiter
  }

  synchronized int inUse() {
    return used;
  }
}
