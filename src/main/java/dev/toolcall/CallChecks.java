package dev.toolcall;

import java.util.Objects;

/** The argument checks of {@link ToolCall}'s changes: programming errors, thrown at once, naming the parameter. */
final class CallChecks {

  private CallChecks() {}

  /** The arguments version a change is conditioned on: a snapshot's {@code argumentsVersion()}, never negative. */
  static int requireArgumentsVersion(int argumentsVersion) {
    if (argumentsVersion < 0) {
      throw new IllegalArgumentException("argumentsVersion must be >= 0 (a snapshot's argumentsVersion()), was "
          + argumentsVersion);
    }
    return argumentsVersion;
  }

  /** The parameters of an edit of the arguments: none null, and {@code expected} not terminal. */
  static void requireEdit(ToolCallState expected, ToolArguments arguments, String by) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(by, "by");
    if (expected.isTerminal()) {
      throw new IllegalArgumentException("expected must be a non-terminal state (an ended call never changes), was "
          + expected);
    }
  }

  /** A terminal target comes with its outcome, and only a terminal one. */
  static void requireOutcomeFits(ToolCallState target, Outcome outcome) {
    if (target.isTerminal() != (outcome != null)) {
      throw target.isTerminal() ? new IllegalArgumentException("target " + target
          + " is terminal and needs an outcome: use complete, fail, deny, cancel or terminate")
          : new IllegalArgumentException("target " + target + " is not terminal and takes no outcome");
    }
  }
}
