package dev.toolcall.permission;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The kinds of {@link Decision}, one per record, with their wire names (the snake_case form, as a remote client
 * posts them). Used to say which decisions a request allows.
 */
public enum DecisionKind {
  /** {@link Decision.ApproveOnce}. */
  APPROVE_ONCE,
  /** {@link Decision.ApproveForSession}. */
  APPROVE_FOR_SESSION,
  /** {@link Decision.ApproveAlways}. */
  APPROVE_ALWAYS,
  /** {@link Decision.ApproveModified}. */
  APPROVE_MODIFIED,
  /** {@link Decision.ModifyAndAsk}. */
  MODIFY_AND_ASK,
  /** {@link Decision.Deny}. */
  DENY;

  /** The wire name: {@code approve_once}, {@code approve_for_session}, ..., {@code deny}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind with wire name {@code wireName}; empty for any other text. */
  public static Optional<DecisionKind> ofWireName(String wireName) {
    Objects.requireNonNull(wireName, "wireName");
    for (DecisionKind k : values()) {
      if (k.wireName().equals(wireName)) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  /** The kind of {@code decision}. */
  public static DecisionKind of(Decision decision) {
    Objects.requireNonNull(decision, "decision");
    if (decision instanceof Decision.ApproveOnce) {
      return APPROVE_ONCE;
    } else if (decision instanceof Decision.ApproveForSession) {
      return APPROVE_FOR_SESSION;
    } else if (decision instanceof Decision.ApproveAlways) {
      return APPROVE_ALWAYS;
    } else if (decision instanceof Decision.ApproveModified) {
      return APPROVE_MODIFIED;
    } else if (decision instanceof Decision.ModifyAndAsk) {
      return MODIFY_AND_ASK;
    }
    return DENY;
  }
}
