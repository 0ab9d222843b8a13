package dev.toolcall.fsm;

import java.util.Set;

/**
 * Thrown when code asks for an edge that the state machine's {@link TransitionTable} does not have. It is a
 * programming error, never a lost race: nothing was changed when it is thrown.
 */
public final class IllegalTransitionException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient Enum<?> from;
  private final transient Enum<?> to;
  private final transient Set<? extends Enum<?>> allowed;

  /** Creates the exception for the refused edge {@code from -> to}; {@code allowed} are the legal targets. */
  public IllegalTransitionException(Enum<?> from, Enum<?> to, Set<? extends Enum<?>> allowed) {
    super(message(from, to, allowed));
    this.from = from;
    this.to = to;
    this.allowed = Set.copyOf(allowed);
  }

  private static String message(Enum<?> from, Enum<?> to, Set<? extends Enum<?>> allowed) {
    String type = from.getDeclaringClass().getSimpleName();
    if (allowed.isEmpty()) {
      return "illegal " + type + " transition " + from + " -> " + to + ": " + from
          + " is terminal and allows no transition";
    }
    return "illegal " + type + " transition " + from + " -> " + to + ": from " + from + " the allowed targets are "
        + allowed;
  }

  /** The state the transition was asked from. */
  public Enum<?> from() {
    return from;
  }

  /** The target that was refused. */
  public Enum<?> to() {
    return to;
  }

  /** The targets that {@link #from()} does allow (empty when it is terminal). */
  public Set<? extends Enum<?>> allowed() {
    return allowed;
  }
}
