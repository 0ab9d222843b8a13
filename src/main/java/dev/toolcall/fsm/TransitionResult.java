package dev.toolcall.fsm;

import java.util.Objects;

/**
 * What a compare-and-set change of a {@link StateCell} did: whether this caller's change won, and the snapshot that
 * is current after it. A lost race is normal life, not an error: the loser reads here what won.
 *
 * @param won whether the change was applied by this call
 * @param snapshot the snapshot this call installed when it won; the current one (the winner's) when it lost
 * @param <V> the snapshot type
 */
public record TransitionResult<V>(boolean won, V snapshot) {

  /** Checks the snapshot is present. */
  public TransitionResult {
    Objects.requireNonNull(snapshot, "snapshot");
  }

  /** Whether this call lost the race (the opposite of {@link #won()}). */
  public boolean lost() {
    return !won;
  }
}
