package dev.toolcall.fsm;

/**
 * An immutable snapshot of a state machine: its state, its version, and the snapshot it replaced.
 *
 * <p>Versions start at 0 and rise by exactly one per change. {@link #previous()} is the snapshot this one replaced
 * (version {@code version() - 1}), or an older one when the history was shortened, or null for version 0 and for a
 * snapshot whose history was not kept (restored, or let go to bound memory). The chain of previous snapshots is the
 * machine's retained history, and it is what lets a {@link StateCell} deliver every version in order without a lock:
 * versions not yet handed off are never left out of it.
 *
 * @param <S> the state enum
 * @param <V> the snapshot type itself
 */
public interface Versioned<S extends Enum<S>, V extends Versioned<S, V>> {

  /** The state in this version. */
  S state();

  /** The version: 0 when created, one more per change. */
  int version();

  /** The snapshot this one replaced (or an older one, when history was shortened); null when none is kept. */
  V previous();
}
