package dev.toolcall.fsm;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The legal edges of a finite state machine over an enum, declared once and queried everywhere.
 *
 * <p>A table is immutable and thread-safe once built. Every derived fact ({@link #isTerminal terminal states},
 * {@link #successors successors}, the {@link #toMermaid diagram} in the docs) comes from the same edges, so they
 * cannot disagree. An edge outside the table is a programming error: {@link #check} throws an
 * {@link IllegalTransitionException} naming from, to and the allowed targets.
 *
 * @param <S> the state enum
 */
public final class TransitionTable<S extends Enum<S>> {

  private final Class<S> type;
  private final Map<S, Set<S>> edges;
  private final Map<S, Map<S, String>> labels;
  private final S initial;
  /**
   * Bit {@code to.ordinal()} of {@code masks[from.ordinal()]} is set for each edge: the hot-path form of
   * {@link #edges} (two array reads, no boxing or wrapper calls). Null when the enum has more than 64 constants.
   */
  private final long[] masks;

  private TransitionTable(Builder<S> b) {
    this.type = b.type;
    this.initial = b.initial;
    EnumMap<S, Set<S>> copy = new EnumMap<>(type);
    EnumMap<S, Map<S, String>> labelCopy = new EnumMap<>(type);
    for (S s : type.getEnumConstants()) {
      copy.put(s, Collections.unmodifiableSet(EnumSet.copyOf(b.edges.get(s))));
      labelCopy.put(s, Collections.unmodifiableMap(new EnumMap<>(b.labels.get(s))));
    }
    this.edges = Collections.unmodifiableMap(copy);
    this.labels = Collections.unmodifiableMap(labelCopy);
    S[] constants = type.getEnumConstants();
    if (constants.length <= Long.SIZE) {
      long[] m = new long[constants.length];
      for (S from : constants) {
        for (S to : copy.get(from)) {
          m[from.ordinal()] |= 1L << to.ordinal();
        }
      }
      this.masks = m;
    } else {
      this.masks = null;
    }
  }

  /**
   * Starts a table for {@code type} whose machines begin in {@code initial}.
   *
   * @throws NullPointerException if an argument is null
   */
  public static <S extends Enum<S>> Builder<S> builder(Class<S> type, S initial) {
    return new Builder<>(type, initial);
  }

  /** The enum this table is over. */
  public Class<S> stateType() {
    return type;
  }

  /** The state every machine of this table starts in. */
  public S initial() {
    return initial;
  }

  /** Whether {@code from -> to} is an edge of the table. */
  public boolean allows(S from, S to) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (masks != null) {
      return (masks[from.ordinal()] & (1L << to.ordinal())) != 0;
    }
    return edges.get(from).contains(to);
  }

  /** The states reachable from {@code from} in one step; empty exactly when {@code from} is terminal. */
  public Set<S> successors(S from) {
    return edges.get(Objects.requireNonNull(from, "from"));
  }

  /** Whether {@code state} has no outgoing edge. */
  public boolean isTerminal(S state) {
    if (masks != null) {
      return masks[Objects.requireNonNull(state, "state").ordinal()] == 0;
    }
    return successors(state).isEmpty();
  }

  /** The number of edges in the table. */
  public int edgeCount() {
    int n = 0;
    for (Set<S> targets : edges.values()) {
      n += targets.size();
    }
    return n;
  }

  /** The label given to an edge when the table was built, or the empty string. */
  public String label(S from, S to) {
    return labels.get(from).getOrDefault(to, "");
  }

  /**
   * Throws unless {@code from -> to} is an edge.
   *
   * @throws IllegalTransitionException naming from, to and the allowed targets
   * @throws NullPointerException if an argument is null
   */
  public void check(S from, S to) {
    if (!allows(from, to)) {
      throw new IllegalTransitionException(from, to, successors(from));
    }
  }

  /**
   * A mermaid {@code stateDiagram-v2} of the table: the initial state, every edge with its label, and every terminal
   * state's exit. Deterministic (enum order), so a test can compare it with the committed docs.
   *
   * @param name how a state is written in the diagram (for example its wire name)
   */
  public String toMermaid(Function<? super S, String> name) {
    StringBuilder sb = new StringBuilder("stateDiagram-v2\n");
    sb.append("    [*] --> ").append(name.apply(initial)).append('\n');
    for (S from : type.getEnumConstants()) {
      for (S to : edges.get(from)) {
        sb.append("    ").append(name.apply(from)).append(" --> ").append(name.apply(to));
        String label = label(from, to);
        if (!label.isEmpty()) {
          sb.append(" : ").append(label);
        }
        sb.append('\n');
      }
    }
    for (S s : type.getEnumConstants()) {
      if (isTerminal(s)) {
        sb.append("    ").append(name.apply(s)).append(" --> [*]\n");
      }
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "TransitionTable[" + type.getSimpleName() + ", " + edgeCount() + " edges]";
  }

  /**
   * Collects edges; not thread-safe. Each call to {@link #edge} adds one edge; a duplicate or a self-loop is a
   * programming error.
   */
  public static final class Builder<S extends Enum<S>> {
    private final Class<S> type;
    private final S initial;
    private final EnumMap<S, EnumSet<S>> edges;
    private final EnumMap<S, EnumMap<S, String>> labels;

    private Builder(Class<S> type, S initial) {
      this.type = Objects.requireNonNull(type, "type");
      this.initial = Objects.requireNonNull(initial, "initial");
      this.edges = new EnumMap<>(type);
      this.labels = new EnumMap<>(type);
      for (S s : type.getEnumConstants()) {
        edges.put(s, EnumSet.noneOf(type));
        labels.put(s, new EnumMap<>(type));
      }
    }

    /** Adds the edge {@code from -> to}, described by {@code label} in diagrams. */
    public Builder<S> edge(S from, S to, String label) {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(to, "to");
      Objects.requireNonNull(label, "label");
      if (from == to) {
        throw new IllegalArgumentException("self-loop " + from + " -> " + to + " is not a transition");
      }
      if (!edges.get(from).add(to)) {
        throw new IllegalArgumentException("duplicate edge " + from + " -> " + to);
      }
      labels.get(from).put(to, label);
      return this;
    }

    /** Adds {@code from -> to} for every state in {@code targets}, each with the same label. */
    public Builder<S> edges(S from, Set<S> targets, String label) {
      for (S to : targets) {
        edge(from, to, label);
      }
      return this;
    }

    /** The immutable table. */
    public TransitionTable<S> build() {
      return new TransitionTable<>(this);
    }
  }
}
