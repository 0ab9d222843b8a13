package dev.toolcall.fsm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mechanism under every state machine of this library: one reference to an immutable {@link Versioned}
 * snapshot, changed only by compare-and-set, and an ordered hand-off of every installed version to
 * {@link #deliver}. {@link StateCell} is the ready-made form that takes a sink and next-functions; an aggregate
 * that changes often (a tool call) extends this class instead, so that its changes allocate nothing but the new
 * snapshot (no next-function, no sink object).
 *
 * <h2>Protocol</h2>
 * A change reads {@link #current()}, checks its precondition against it, builds the next snapshot (version + 1,
 * linked to the current one as {@code previous}) without side effects, and calls {@link #install}: one
 * compare-and-set. Exactly one of several racing changes from the same version wins; a loser re-reads and decides
 * again (retry or report the lost race). The transition matrix is the subclass's to check before building the
 * snapshot; {@link #install} checks only the version link, which is what ordered delivery depends on.
 *
 * <h2>Ordered hand-off</h2>
 * After a win the winning thread drains: it hands every version not yet handed off to {@link #deliver}, in version
 * order, each exactly once. Drains never overlap: a thread that finds another draining leaves its version to that
 * thread, which loops until nothing is left (a work-in-progress counter: no lock, no lost wake-up). Because each
 * snapshot links to the one it replaced, the drainer finds every undelivered version by walking back from the
 * newest. A subclass may bound its history: a new version may link an older version (or a copy, or nothing) in place
 * of the one it replaces, but only when every version it leaves out has been handed off ({@link #isHandedOff}), so the
 * walk back over the versions not yet handed off never meets a gap. A {@code deliver} that changes the same cell again (re-entrancy) neither deadlocks nor reorders: the new
 * version is handed off after the current {@code deliver} returns.
 *
 * <h2>Thread safety</h2>
 * All methods may be called from any thread. {@link #current()} is one volatile read and never blocks.
 *
 * @param <S> the state enum
 * @param <V> the snapshot type
 */
public abstract class AbstractStateCell<S extends Enum<S>, V extends Versioned<S, V>> {

  private static final Logger log = LoggerFactory.getLogger(AbstractStateCell.class);
  private static final VarHandle CURRENT;
  private static final VarHandle WIP;
  private static final VarHandle DELIVERED;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      CURRENT = l.findVarHandle(AbstractStateCell.class, "current", Versioned.class);
      WIP = l.findVarHandle(AbstractStateCell.class, "wip", int.class);
      DELIVERED = l.findVarHandle(AbstractStateCell.class, "delivered", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** CAS-updated by any thread. */
  @SuppressWarnings("unused")
  private volatile Versioned<S, V> current;

  /** Drain requests outstanding; the thread that raises it from 0 drains. */
  @SuppressWarnings("unused")
  private volatile int wip;

  /**
   * The last version handed off; written only by the draining thread (ordered by {@code wip}), with release, so that
   * another thread that reads it with acquire ({@link #isHandedOff}) knows every version up to it has been handed off.
   */
  @SuppressWarnings("unused")
  private int delivered;

  /**
   * Creates a cell holding {@code initial}. Nothing is handed off until {@link #drainPending()} is called, so the
   * subclass can finish its construction first.
   *
   * @param deliverInitial whether {@code initial} itself is handed off on the first drain (false for a snapshot
   *     restored from a store: its events went out before)
   * @throws IllegalArgumentException if the initial version is negative
   */
  protected AbstractStateCell(V initial, boolean deliverInitial) {
    this(initial, deliverInitial, null);
  }

  /**
   * A cell whose every change is first written by {@code durable} (a store's compare-and-set): a change is installed
   * and handed off only after that write returns true; when it throws, nothing changes here. Writes are serialised
   * per cell, so a refusal means another writer outside this cell moved on: {@code durable} then returns the newer
   * version to adopt, or throws (a local race never reaches it).
   *
   * @param durable the write, or null for a cell in memory only; this cell's own (one object per cell), since its
   *     monitor is what serialises the cell's writes (a shared one would serialise the writes of every cell sharing it)
   */
  protected AbstractStateCell(V initial, boolean deliverInitial, Durable<V> durable) {
    Objects.requireNonNull(initial, "initial");
    if (initial.version() < 0) {
      throw new IllegalArgumentException("initial version must be >= 0, was " + initial.version());
    }
    this.delivered = deliverInitial ? initial.version() - 1 : initial.version();
    // A plain store, not a volatile one (which costs a fence): a cell reaches other threads by safe publication,
    // as its plain field delivered already requires.
    CURRENT.set(this, initial);
    this.durable = durable;
  }

  /**
   * Makes a change durable before it is installed.
   *
   * @param <V> the snapshot type
   */
  @FunctionalInterface
  public interface Durable<V> {
    /**
     * Writes {@code next} over {@code expected}. Returns null when written; when another writer outside this cell
     * moved on first, the newer version it read back (version above {@code expected}'s, linked back to
     * {@code expected}), which the cell adopts (see {@link #adopt}). Throws, changing nothing, when it can do neither.
     */
    V write(V expected, V next);

    /**
     * Writes {@code current} as it stands, when this cell's store does not hold it yet (a cell created to be stored
     * with its first change, which then has to wait); returns null when written or when nothing needed writing, else
     * the newer version to adopt instead (linked back to {@code current}). The default writes nothing.
     */
    default V flush(V current) {
      return null;
    }

    /**
     * Whether {@code next} is installed without being written now: it is written with the next change that is not
     * deferred (or a {@link AbstractStateCell#flush}), as part of that version's history. Asked under the write
     * lock. The default defers nothing.
     */
    default boolean defers(V expected, V next) {
      return false;
    }

    /**
     * Whether this cell's versions are held back from the hand-off: nothing of it is stored yet, so nothing may be
     * seen. Once false it stays false. The default holds nothing back.
     */
    default boolean holds() {
      return false;
    }
  }

  /**
   * The durable write of every change, or null (memory only). Its monitor serialises this cell's durable writes (no
   * lock object of its own per cell).
   */
  private final Durable<V> durable;

  /** The durable write this cell was made with, or null: for a subclass that keeps what it writes to there. */
  protected final Durable<V> durable() {
    return durable;
  }

  /** The current snapshot: one volatile read. */
  @SuppressWarnings("unchecked")
  protected final V current() {
    return (V) current;
  }

  /**
   * Installs {@code next} if the cell still holds {@code expected}, and on success hands it (and anything not yet
   * handed off) to {@link #deliver} before returning.
   *
   * @param expected the snapshot {@code next} was built from, read from {@link #current()}
   * @param next version {@code expected.version() + 1}, linked to {@code expected} (or, once {@code expected} has
   *     been handed off, to an older version, a copy of {@code expected} or nothing: a shortened history)
   * @return whether this change won; on false nothing changed and the caller re-reads
   * @throws IllegalStateException if {@code next} is not linked to {@code expected} as the next version (a bug in
   *     the subclass; nothing changes)
   */
  protected final boolean install(V expected, V next) {
    if (compareAndSet(expected, next)) {
      drainPending();
      return true;
    }
    return false;
  }

  /**
   * The compare-and-set of {@link #install} without the hand-off, for a subclass that keeps its change loop small
   * (so the JIT can inline it into the caller): after every {@code true} the caller must call
   * {@link #drainPending()} before it returns, or the version is handed off only with the next change.
   *
   * @throws IllegalStateException if {@code next} is not linked to {@code expected} as the next version
   */
  protected final boolean compareAndSet(V expected, V next) {
    if (next.previous() != expected && !shortened(expected, next) || next.version() != expected.version() + 1) {
      throw brokenLink(expected, next);
    }
    return durable == null ? CURRENT.compareAndSet(this, expected, next) : durableCompareAndSet(expected, next);
  }

  /**
   * With a durable write: under the cell's write lock, the write first, then the install (which cannot lose). When
   * the write lost to a writer outside this cell, the version it read back is adopted and handed off, and the caller
   * re-reads, as after a local lost race.
   */
  private boolean durableCompareAndSet(V expected, V next) {
    V newer;
    synchronized (durable) {
      if (current != expected) {
        return false; // a local writer won first: the caller re-reads, as without a store
      }
      if (durable.defers(expected, next)) {
        CURRENT.setVolatile(this, next); // written with the next change; held from the hand-off until then
        return true;
      }
      newer = durable.write(expected, next);
      if (newer == null) {
        CURRENT.setVolatile(this, next);
        return true;
      }
      checkAdoptable(expected, newer);
      CURRENT.setVolatile(this, newer);
    }
    drainPending();
    return false;
  }

  /**
   * Makes the current version durable when the store does not hold it yet ({@link Durable#flush}), and hands off
   * what that installed; does nothing without a durable write. Serialised with the cell's writes.
   */
  protected final void flush() {
    if (durable == null) {
      return;
    }
    synchronized (durable) {
      V cur = current();
      V newer = durable.flush(cur);
      if (newer != null) {
        checkAdoptable(cur, newer);
        CURRENT.setVolatile(this, newer);
      }
    }
    drainPending();
  }

  /**
   * Installs {@code newer}, a version another writer stored outside this cell (another runtime sharing the store),
   * if the cell still holds {@code expected}, and hands it off with every version linked between it and
   * {@code expected}. Nothing is written: the version is durable already. Versions the chain leaves out (changes
   * made elsewhere that this cell never held) are never handed off here; the hand-off stays in version order, each
   * version at most once.
   *
   * @param newer a version above {@code expected}'s whose chain of previous versions reaches {@code expected}
   * @return whether it was installed; false when this cell changed meanwhile (the caller re-reads)
   * @throws IllegalStateException if {@code newer} is not above {@code expected} or does not link back to it
   */
  protected final boolean adopt(V expected, V newer) {
    checkAdoptable(expected, newer);
    if (durable == null) {
      if (!CURRENT.compareAndSet(this, expected, newer)) {
        return false;
      }
    } else {
      synchronized (durable) {
        if (current != expected) {
          return false;
        }
        CURRENT.setVolatile(this, newer);
      }
    }
    drainPending();
    return true;
  }

  private static <S extends Enum<S>, V extends Versioned<S, V>> void checkAdoptable(V expected, V newer) {
    V v = newer;
    while (v != null && v.version() > expected.version()) {
      v = v.previous();
    }
    if (v != expected || newer.version() <= expected.version()) {
      throw new IllegalStateException("an adopted version must be above version " + expected.version()
          + " and link back to it; got version " + newer.version() + " in " + newer.state());
    }
  }

  /**
   * Whether {@code next} leaves out of its history only versions already handed off: its previous is older than
   * {@code expected} (or a copy of it, or absent) and {@code expected} itself has been handed off. The drain walks
   * back only over versions not yet handed off, so such a shortened chain keeps ordered delivery intact.
   */
  private boolean shortened(V expected, V next) {
    V p = next.previous();
    return (p == null || p.version() <= expected.version()) && isHandedOff(expected);
  }

  /**
   * Whether {@code version} (a version of this cell) has been handed to {@link #deliver}. Once true it stays true.
   * A subclass that bounds its history uses it: a new version may leave out of its chain ({@link Versioned#previous})
   * the versions already handed off, and only those.
   */
  protected final boolean isHandedOff(V version) {
    return version.version() <= (int) DELIVERED.getAcquire(this);
  }

  /**
   * Hands off the initial version from the constructor of the subclass, before {@code this} is visible to any other
   * thread: no drain protocol is needed then. Does nothing when the initial version was not to be delivered or is
   * already delivered.
   *
   * @throws IllegalStateException if a change was already installed (then use {@link #drainPending()})
   */
  protected final void deliverInitial() {
    V v = current();
    if (delivered >= v.version()) {
      return;
    }
    if (v.version() != delivered + 1 || wip != 0) {
      throw new IllegalStateException("deliverInitial after a change; use drainPending");
    }
    DELIVERED.setRelease(this, v.version());
    deliverIsolated(v);
  }

  private static IllegalStateException brokenLink(Versioned<?, ?> expected, Versioned<?, ?> next) {
    return new IllegalStateException("next snapshot must be version " + (expected.version() + 1)
        + " linked to the current one; got version " + next.version() + " in " + next.state());
  }

  /**
   * Receives every installed version exactly once, in version order, never concurrently for this cell. It should
   * not throw: a throw is logged and the version counts as handed off.
   */
  protected abstract void deliver(V version);

  /**
   * Hands every version not yet handed off to {@link #deliver}, in order. Called after each win; the subclass calls
   * it once after construction to hand off version 0. Safe to call from any thread at any time.
   */
  protected final void drainPending() {
    if (durable != null && durable.holds()) {
      return; // nothing stored yet: the write that stores the first version drains after it
    }
    if ((int) WIP.getAndAdd(this, 1) != 0) {
      return;
    }
    int missed = 1;
    for (;;) {
      V latest = current();
      int from = delivered;
      if (latest.version() > from) {
        if (latest.version() == from + 1) {
          deliverIsolated(latest);
        } else {
          deliverRange(latest, from);
        }
        DELIVERED.setRelease(this, latest.version());
      }
      missed = (int) WIP.getAndAdd(this, -missed) - missed;
      if (latest.version() > from) {
        afterHandOff(latest);
      }
      if (missed == 0) {
        return;
      }
    }
  }

  /**
   * Called by the draining thread after it handed off versions up to {@code latest} and released the drain. The
   * release, an atomic add, is a full fence: a waiter that announces itself with a compare-and-set and then checks
   * {@link #isHandedOff} either sees the hand-off there or is seen by the reads made here. Runs outside the drain, so
   * possibly beside the next drainer's {@link #deliver}; for completing what waits for a version, such as a terminal
   * one. Does nothing by default; it should not throw.
   */
  protected void afterHandOff(V latest) {}

  /**
   * Hands off the versions above {@code from} linked back from {@code latest}, oldest first. They are usually every
   * version from {@code from + 1} on; an adopted chain may skip versions made elsewhere (see {@link #adopt}).
   */
  @SuppressWarnings("unchecked")
  private void deliverRange(V latest, int from) {
    int n = 0;
    for (V v = latest; v != null && v.version() > from; v = v.previous()) {
      n++;
    }
    Object[] pending = new Object[n];
    V v = latest;
    for (int i = n - 1; i >= 0; i--) {
      pending[i] = v;
      v = v.previous();
    }
    for (Object o : pending) {
      deliverIsolated((V) o);
    }
  }

  private void deliverIsolated(V v) {
    try {
      deliver(v);
    } catch (Throwable t) { // a failing hand-off must not wedge the drain: every later version still goes out
      log.error("hand-off failed for version {} ({}); delivery goes on", v.version(), v.state(), t);
    }
  }
}
