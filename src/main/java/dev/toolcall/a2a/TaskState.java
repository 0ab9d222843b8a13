package dev.toolcall.a2a;

import java.util.Locale;

/**
 * The states of an A2A task this server writes: A2A's {@code TaskState} less {@code auth-required} (credentials are
 * checked per request, never asked for inside a task). Each has its A2A 1.0 name ({@code TASK_STATE_WORKING}) and its
 * 0.3 name ({@code working}).
 */
public enum TaskState {
  /** Accepted, not yet started. */
  SUBMITTED,
  /** A turn runs. */
  WORKING,
  /** The turn ended interrupted: its requests wait for a person's decisions, sent as a message on the same task. */
  INPUT_REQUIRED,
  /** The turn ended with an answer. Terminal. */
  COMPLETED,
  /** The turn failed. Terminal. */
  FAILED,
  /** The task was cancelled ({@code CancelTask}); its turn was aborted. Terminal. */
  CANCELED,
  /** The task was refused before its turn started (the context had a turn under way). Terminal. */
  REJECTED;

  /** Whether nothing follows this state. */
  public boolean isTerminal() {
    return this == COMPLETED || this == FAILED || this == CANCELED || this == REJECTED;
  }

  /** The A2A 1.0 name, e.g. {@code TASK_STATE_INPUT_REQUIRED}. */
  public String wireName() {
    return "TASK_STATE_" + name();
  }

  /** The A2A 0.3 name, e.g. {@code input-required}. */
  public String legacyName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The state of a 1.0 or 0.3 name.
   *
   * @throws IllegalArgumentException if {@code name} is neither
   */
  public static TaskState ofName(String name) {
    for (TaskState s : values()) {
      if (s.wireName().equals(name) || s.legacyName().equals(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException("not a task state: " + name);
  }
}
