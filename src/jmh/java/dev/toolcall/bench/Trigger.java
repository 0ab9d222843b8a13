package dev.toolcall.bench;

import dev.toolcall.ToolCallState;

/**
 * The events that drive the other libraries' machines: one per target state, so that every edge of
 * {@link ToolCallState#TABLE} becomes one (from, trigger) pair in their configuration.
 */
enum Trigger {
  ASK, APPROVE, DENY, START, COMPLETE, FAIL, CANCEL;

  /** The trigger that moves a machine into {@code target}; PENDING is never a target. */
  static Trigger into(ToolCallState target) {
    return switch (target) {
      case PERMISSION_PENDING -> ASK;
      case PERMISSION_APPROVED -> APPROVE;
      case PERMISSION_DENIED -> DENY;
      case RUNNING -> START;
      case COMPLETED -> COMPLETE;
      case FAILED -> FAIL;
      case CANCELLED -> CANCEL;
      case PENDING -> throw new IllegalArgumentException("PENDING is never a target");
    };
  }
}
