package dev.toolcall;

import java.util.Objects;

/**
 * How a call ended. Installed in the same compare-and-set as the terminal state, so a terminal snapshot always has
 * its outcome and a non-terminal one never has one. Each outcome says what the model should be told about it.
 *
 * <p>Outcomes are immutable values with no live references (an exception is kept as its kind and message only).
 */
public sealed interface Outcome permits Outcome.Completed, Outcome.Failed, Outcome.Denied, Outcome.Cancelled {

  /** The terminal state this outcome belongs to. */
  ToolCallState state();

  /** A plain text for the model's tool-result message. */
  String messageForModel();

  /** Whether the model should see this result as an error. */
  default boolean isError() {
    return !(this instanceof Completed);
  }

  /**
   * The tool succeeded.
   *
   * @param result what the tool returned: its parts and structured value, shared, never copied; the model reads
   *     {@link #content()}
   */
  record Completed(dev.toolcall.ToolResult result) implements Outcome {
    /** Checks the result is present. */
    public Completed {
      Objects.requireNonNull(result, "result");
    }

    /** A result of one text part, {@code content} (an empty string is a valid result). */
    public Completed(String content) {
      this(dev.toolcall.ToolResult.of(content));
    }

    /** The text the model reads: {@link dev.toolcall.ToolResult#content()}. */
    public String content() {
      return result.content();
    }

    @Override
    public ToolCallState state() {
      return ToolCallState.COMPLETED;
    }

    @Override
    public String messageForModel() {
      return result.content();
    }

    @Override
    public String toString() {
      return "Completed[" + (result.isTextOnly() && result.structured().isEmpty() ? result.content() : result)
          + "]";
    }
  }

  /**
   * The call failed.
   *
   * @param kind what kind of failure
   * @param message written for the model: what was wrong and, where possible, what would be right
   */
  record Failed(FailureKind kind, String message) implements Outcome {
    /** Checks the parts. */
    public Failed {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public ToolCallState state() {
      return ToolCallState.FAILED;
    }

    @Override
    public String messageForModel() {
      return "Error (" + kind.name().toLowerCase(java.util.Locale.ROOT) + "): " + message;
    }
  }

  /**
   * Permission was denied.
   *
   * @param source a person, a policy, or a timeout nobody answered
   * @param reason the reason for the model (a person's words, or the rule)
   */
  record Denied(DenialSource source, String reason) implements Outcome {
    /** Checks the parts. */
    public Denied {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public ToolCallState state() {
      return ToolCallState.PERMISSION_DENIED;
    }

    @Override
    public String messageForModel() {
      switch (source) {
        case TIMEOUT:
          return "The tool call was not run: nobody answered the permission request in time."
              + (reason.isEmpty() ? "" : " " + reason);
        case POLICY:
          return "The tool call was not run: it is denied by policy." + (reason.isEmpty() ? "" : " " + reason);
        default:
          return "The user denied this tool call." + (reason.isEmpty() ? "" : " Reason: " + reason);
      }
    }
  }

  /**
   * The call was cancelled before it finished. If the tool was running, any result it produces later is discarded.
   *
   * @param reason why (for example "cancelled by the user", "runtime closed")
   */
  record Cancelled(String reason) implements Outcome {
    /** Checks the reason is present. */
    public Cancelled {
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public ToolCallState state() {
      return ToolCallState.CANCELLED;
    }

    @Override
    public String messageForModel() {
      return "The tool call was cancelled" + (reason.isEmpty() ? "." : ": " + reason + ".");
    }
  }
}
