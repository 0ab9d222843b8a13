package dev.toolcall;

import dev.toolcall.fsm.TransitionTable;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The eight states of a tool call, with the wire names of the source documents, and the twelve legal edges between
 * them. This enum is the single source of truth: {@link #isTerminal()}, {@link #successors()}, the diagram in
 * {@code docs/state-machine.md} and the property tests all derive from {@link #TABLE}.
 *
 * <pre>
 * PENDING             -&gt; PERMISSION_PENDING, PERMISSION_APPROVED, RUNNING, CANCELLED
 * PERMISSION_PENDING  -&gt; PERMISSION_APPROVED, PERMISSION_DENIED, CANCELLED
 * PERMISSION_APPROVED -&gt; RUNNING, CANCELLED
 * RUNNING             -&gt; COMPLETED, FAILED, CANCELLED
 * PERMISSION_DENIED, COMPLETED, FAILED, CANCELLED: terminal
 * </pre>
 */
public enum ToolCallState {
  /** Created, not started: {@code pending}. */
  PENDING("pending"),
  /** Waiting for a person (or a rule) to decide: {@code permission_pending}. */
  PERMISSION_PENDING("permission_pending"),
  /** Approved, about to run: {@code permission_approved}. */
  PERMISSION_APPROVED("permission_approved"),
  /** Denied by a person, a rule or a timeout (terminal): {@code permission_denied}. */
  PERMISSION_DENIED("permission_denied"),
  /** In the execution pipeline (validation, the tool itself, retries): {@code running}. */
  RUNNING("running"),
  /** Succeeded, with its result (terminal): {@code completed}. */
  COMPLETED("completed"),
  /** Failed, with its failure (terminal): {@code failed}. */
  FAILED("failed"),
  /** Cancelled, with its cause (terminal): {@code cancelled}. */
  CANCELLED("cancelled");

  /** The transition matrix: exactly the twelve edges of the source documents. */
  public static final TransitionTable<ToolCallState> TABLE = TransitionTable.builder(ToolCallState.class, PENDING)
      .edge(PENDING, PERMISSION_PENDING, "permission required")
      .edge(PENDING, PERMISSION_APPROVED, "auto-approved by a rule or grant")
      .edge(PENDING, RUNNING, "no permission needed")
      .edge(PENDING, CANCELLED, "cancelled")
      .edge(PERMISSION_PENDING, PERMISSION_APPROVED, "approved")
      .edge(PERMISSION_PENDING, PERMISSION_DENIED, "denied (user, rule or timeout)")
      .edge(PERMISSION_PENDING, CANCELLED, "cancelled")
      .edge(PERMISSION_APPROVED, RUNNING, "start execution")
      .edge(PERMISSION_APPROVED, CANCELLED, "cancelled before execution")
      .edge(RUNNING, COMPLETED, "succeeded")
      .edge(RUNNING, FAILED, "failed")
      .edge(RUNNING, CANCELLED, "cancelled during execution")
      .build();

  private final String wireName;

  ToolCallState(String wireName) {
    this.wireName = wireName;
  }

  /** The name used on the wire and in the source documents, for example {@code permission_pending}. */
  public String wireName() {
    return wireName;
  }

  /** Whether no transition leaves this state. */
  public boolean isTerminal() {
    return TABLE.isTerminal(this);
  }

  /** Whether {@code this -> target} is an edge of the matrix. */
  public boolean canTransitionTo(ToolCallState target) {
    return TABLE.allows(this, Objects.requireNonNull(target, "target"));
  }

  /** The states this one can move to; empty for terminal states. Immutable. */
  public Set<ToolCallState> successors() {
    return TABLE.successors(this);
  }

  /** The terminal states. */
  public static Set<ToolCallState> terminalStates() {
    EnumSet<ToolCallState> s = EnumSet.noneOf(ToolCallState.class);
    for (ToolCallState st : values()) {
      if (st.isTerminal()) {
        s.add(st);
      }
    }
    return s;
  }

  /**
   * The state with this wire name.
   *
   * @throws IllegalArgumentException naming the valid wire names when {@code wireName} is none of them
   * @throws NullPointerException if {@code wireName} is null
   */
  public static ToolCallState fromWireName(String wireName) {
    Objects.requireNonNull(wireName, "wireName");
    for (ToolCallState s : values()) {
      if (s.wireName.equals(wireName)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown tool call state wire name '" + wireName + "'; valid names are "
        + Arrays.stream(values()).map(ToolCallState::wireName).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return name();
  }
}
