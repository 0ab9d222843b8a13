package dev.toolcall.fsm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One state machine instance: a single reference to an immutable {@link Versioned} snapshot, changed only by
 * compare-and-set, and an ordered hand-off of every installed version to a sink.
 *
 * <h2>Design</h2>
 * Every change reads the current snapshot, checks its precondition, builds the next snapshot with a pure function
 * (no I/O, no listener calls: it may run more than once under contention), and installs it with one
 * compare-and-set. Exactly one of several racing changes from the same version wins; the others re-read and either
 * retry (when their precondition still holds) or return a lost {@link TransitionResult} carrying the winner's snapshot.
 *
 * <p>After a win the changing thread drains: it hands every version not yet handed off to the sink, in version
 * order, each exactly once. Drains never overlap: a thread that finds another draining leaves its version to that
 * thread, which loops until nothing is left (a work-in-progress counter, so no lock and no lost wake-up). Because
 * each snapshot links to the one it replaced, the drainer finds all undelivered versions by walking back from the
 * newest. A sink that changes the same cell again (re-entrancy) neither deadlocks nor reorders: its change is handed
 * off after the current one returns.
 *
 * <h2>Thread safety</h2>
 * All methods may be called from any thread. {@link #get()} is one volatile read and never blocks.
 *
 * @param <S> the state enum
 * @param <V> the snapshot type
 */
public final class StateCell<S extends Enum<S>, V extends Versioned<S, V>> {

  private static final Logger log = LoggerFactory.getLogger(StateCell.class);
  private static final VarHandle CURRENT;
  private static final VarHandle WIP;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      CURRENT = l.findVarHandle(StateCell.class, "current", Versioned.class);
      WIP = l.findVarHandle(StateCell.class, "wip", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final TransitionTable<S> table;
  private final Consumer<? super V> sink;

  /** CAS-updated by any thread. */
  @SuppressWarnings("unused")
  private volatile Versioned<S, V> current;

  /** Drain requests outstanding; the thread that raises it from 0 drains. */
  @SuppressWarnings("unused")
  private volatile int wip;

  /** The last version handed to the sink; read and written only by the draining thread. */
  private int delivered = -1;

  /**
   * Creates a cell holding {@code initial} (version 0, in the table's initial state). Nothing is handed to the sink
   * until {@link #drain()} is called, so the owner can finish construction first.
   *
   * @param sink receives every version once, in order; it should not throw (a throw is logged and skipped)
   */
  public StateCell(TransitionTable<S> table, V initial, Consumer<? super V> sink) {
    this(table, initial, sink, true);
  }

  /**
   * Creates a cell holding {@code initial}, which is handed to the sink on the first {@link #drain()} only when
   * {@code deliverInitial} (false for a snapshot restored from a store: its events went out before).
   */
  public StateCell(TransitionTable<S> table, V initial, Consumer<? super V> sink, boolean deliverInitial) {
    this.table = Objects.requireNonNull(table, "table");
    this.sink = Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(initial, "initial");
    if (initial.version() < 0) {
      throw new IllegalArgumentException("initial version must be >= 0, was " + initial.version());
    }
    this.delivered = deliverInitial ? initial.version() - 1 : initial.version();
    this.current = initial;
  }

  /** The transition table this cell obeys. */
  public TransitionTable<S> table() {
    return table;
  }

  /** The current snapshot: one volatile read. */
  @SuppressWarnings("unchecked")
  public V get() {
    return (V) current;
  }

  /**
   * Moves from {@code expected} to {@code target} if the cell is in {@code expected}.
   *
   * @param next builds the new snapshot from the current one; must return version + 1, state {@code target}, and
   *     the current snapshot as previous. Pure: it may be called more than once.
   * @return won with the new snapshot, or lost with the current one when the cell was not in {@code expected}
   * @throws IllegalTransitionException if {@code expected -> target} is not an edge (nothing changes)
   */
  public TransitionResult<V> transition(S expected, S target, UnaryOperator<V> next) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(next, "next");
    table.check(expected, target);
    for (;;) {
      V cur = get();
      if (cur.state() != expected) {
        return new TransitionResult<>(false, cur);
      }
      V nv = checked(cur, next.apply(cur), target);
      if (CURRENT.compareAndSet(this, cur, nv)) {
        drain();
        return new TransitionResult<>(true, nv);
      }
    }
  }

  /**
   * Moves to {@code target} from whatever state the cell is in, when the table allows that edge and
   * {@code guard} accepts the current snapshot. Used for changes that may come from several states (a cancel).
   *
   * @return won with the new snapshot, or lost with the current one when no edge to {@code target} exists from the
   *     current state or the guard refused it
   */
  public TransitionResult<V> transitionFromCurrent(S target, Predicate<? super V> guard, UnaryOperator<V> next) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(guard, "guard");
    Objects.requireNonNull(next, "next");
    for (;;) {
      V cur = get();
      if (!table.allows(cur.state(), target) || !guard.test(cur)) {
        return new TransitionResult<>(false, cur);
      }
      V nv = checked(cur, next.apply(cur), target);
      if (CURRENT.compareAndSet(this, cur, nv)) {
        drain();
        return new TransitionResult<>(true, nv);
      }
    }
  }

  /**
   * A change that keeps the state (arguments edited, output appended, a retry scheduled): a new version when
   * {@code guard} accepts the current snapshot.
   *
   * @param next builds the new snapshot; must keep the state, return version + 1 and link the current one
   * @return won with the new snapshot, or lost with the current one when the guard refused
   */
  public TransitionResult<V> update(Predicate<? super V> guard, UnaryOperator<V> next) {
    Objects.requireNonNull(guard, "guard");
    Objects.requireNonNull(next, "next");
    for (;;) {
      V cur = get();
      if (!guard.test(cur)) {
        return new TransitionResult<>(false, cur);
      }
      V nv = checked(cur, next.apply(cur), cur.state());
      if (CURRENT.compareAndSet(this, cur, nv)) {
        drain();
        return new TransitionResult<>(true, nv);
      }
    }
  }

  private V checked(V cur, V nv, S target) {
    if (nv == null || nv.version() != cur.version() + 1 || nv.state() != target || nv.previous() != cur) {
      throw new IllegalStateException("snapshot function broke the contract: from version " + cur.version()
          + " in " + cur.state() + " expected version " + (cur.version() + 1) + " in " + target
          + " linked to the current snapshot, got " + (nv == null ? "null" : nv.version() + " in " + nv.state()));
    }
    return nv;
  }

  /**
   * Hands every version not yet handed off to the sink, in order. Called after each win; the owner calls it once
   * after construction to publish version 0. Safe to call from any thread at any time.
   */
  public void drain() {
    if ((int) WIP.getAndAdd(this, 1) != 0) {
      return;
    }
    int missed = 1;
    for (;;) {
      V latest = get();
      int from = delivered;
      if (latest.version() > from) {
        deliverAfter(latest, from);
        delivered = latest.version();
      }
      missed = (int) WIP.getAndAdd(this, -missed) - missed;
      if (missed == 0) {
        return;
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void deliverAfter(V latest, int from) {
    int n = latest.version() - from;
    if (n == 1) {
      deliver(latest);
      return;
    }
    Object[] pending = new Object[n];
    V v = latest;
    for (int i = n - 1; i >= 0; i--) {
      pending[i] = v;
      v = v.previous();
    }
    for (Object o : pending) {
      deliver((V) o);
    }
  }

  private void deliver(V v) {
    try {
      sink.accept(v);
    } catch (Throwable t) { // a sink failure must not wedge the drain: every later version still goes out
      log.error("event sink failed for version {} ({}); delivery goes on", v.version(), v.state(), t);
    }
  }

  @Override
  public String toString() {
    V cur = get();
    return "StateCell[" + cur.state() + " v" + cur.version() + "]";
  }
}
