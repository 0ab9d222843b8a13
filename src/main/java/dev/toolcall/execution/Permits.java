package dev.toolcall.execution;

import java.util.ArrayDeque;

/**
 * An asynchronous counting semaphore: {@link #acquire} either takes a permit at once (and says so) or queues the
 * waiter, which is granted one later, in FIFO order, without blocking a thread. A permit is handed straight from a
 * releaser to the next waiter, whose {@link Waiter#granted()} runs on the releasing thread, outside the lock.
 */
final class Permits {

  /** Who waits for a permit. */
  interface Waiter {
    /** The permit is now held by this waiter; must not throw. */
    void granted();
  }

  private final int max;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>(); // guarded by this
  private int used; // guarded by this

  Permits(int max) {
    this.max = max;
  }

  /**
   * Takes a permit if one is free (returns true, {@code waiter} is not called) or queues {@code waiter} (returns
   * false; it is granted a permit later).
   */
  synchronized boolean acquire(Waiter waiter) {
    if (used < max) {
      used++;
      return true;
    }
    waiters.add(waiter);
    return false;
  }

  void release() {
    Waiter next;
    synchronized (this) {
      next = waiters.poll();
      if (next == null) {
        used--;
        return;
      }
    }
    next.granted(); // the permit passes to the waiter
  }

  synchronized int inUse() {
    return used;
  }
}
