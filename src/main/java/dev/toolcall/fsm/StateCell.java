package dev.toolcall.fsm;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

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
public final class StateCell<S extends Enum<S>, V extends Versioned<S, V>> extends AbstractStateCell<S, V> {

  private final TransitionTable<S> table;
  private final Consumer<? super V> sink;

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
    super(initial, deliverInitial);
    this.table = Objects.requireNonNull(table, "table");
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  /** The transition table this cell obeys. */
  public TransitionTable<S> table() {
    return table;
  }

  /** The current snapshot: one volatile read. */
  public V get() {
    return current();
  }

  /**
   * Whether {@code version}, a version of this cell, has been handed to the sink; once true it stays true. A
   * next-function may then link an older version, a copy of it without history, or nothing, in place of it (see
   * {@link AbstractStateCell}): the way an owner bounds the history its snapshots keep.
   */
  public boolean isDelivered(V version) {
    return isHandedOff(Objects.requireNonNull(version, "version"));
  }

  /**
   * Moves from {@code expected} to {@code target} if the cell is in {@code expected}.
   *
   * @param next builds the new snapshot from the current one; must return version + 1, state {@code target}, and
   *     the current snapshot as previous (or a shorter history, see {@link #isDelivered}). Pure: it may be called
   *     more than once.
   * @return won with the new snapshot, or lost with the current one when the cell was not in {@code expected}
   * @throws IllegalTransitionException if {@code expected -> target} is not an edge (nothing changes)
   */
  public TransitionResult<V> transition(S expected, S target, UnaryOperator<V> next) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(next, "next");
    table.check(expected, target);
    for (;;) {
      V cur = current();
      if (cur.state() != expected) {
        return new TransitionResult<>(false, cur);
      }
      V nv = checked(cur, next.apply(cur), target);
      if (install(cur, nv)) {
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
      V cur = current();
      if (!table.allows(cur.state(), target) || !guard.test(cur)) {
        return new TransitionResult<>(false, cur);
      }
      V nv = checked(cur, next.apply(cur), target);
      if (install(cur, nv)) {
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
      V cur = current();
      if (!guard.test(cur)) {
        return new TransitionResult<>(false, cur);
      }
      V nv = checked(cur, next.apply(cur), cur.state());
      if (install(cur, nv)) {
        return new TransitionResult<>(true, nv);
      }
    }
  }

  /** The next-function's result has the target state; {@link #install} checks its version link. */
  private V checked(V cur, V nv, S target) {
    if (nv == null || nv.state() != target) {
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
    drainPending();
  }

  @Override
  protected void deliver(V version) {
    sink.accept(version);
  }

  @Override
  public String toString() {
    V cur = current();
    return "StateCell[" + cur.state() + " v" + cur.version() + "]";
  }
}
