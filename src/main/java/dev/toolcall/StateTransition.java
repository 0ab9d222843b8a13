package dev.toolcall;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a call's history: a state change, what caused it, when, and how long the call had been in the state
 * it left.
 *
 * @param from the state left
 * @param to the state entered
 * @param change what caused it
 * @param version the version it produced
 * @param at when it happened
 * @param timeInFrom how long the call was in {@code from}
 */
public record StateTransition(ToolCallState from, ToolCallState to, Change change, int version, Instant at,
    Duration timeInFrom) {

  /** Checks the parts. */
  public StateTransition {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(change, "change");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(timeInFrom, "timeInFrom");
  }
}
