package dev.toolcall.execution;

import dev.toolcall.Outcome;
import dev.toolcall.ToolCallSnapshot;
import java.util.Objects;

/**
 * The end of one call of a batch, for the continuation to the model: the terminal snapshot and its outcome.
 *
 * @param snapshot the terminal snapshot
 */
public record CallResult(ToolCallSnapshot snapshot) {

  /** Checks the snapshot is terminal. */
  public CallResult {
    Objects.requireNonNull(snapshot, "snapshot");
    if (!snapshot.isTerminal()) {
      throw new IllegalArgumentException("a call result needs a terminal snapshot, got " + snapshot.state());
    }
  }

  /** The call id. */
  public String callId() {
    return snapshot.callId();
  }

  /** The tool name as requested. */
  public String toolName() {
    return snapshot.toolName();
  }

  /** How the call ended. */
  public Outcome outcome() {
    return snapshot.outcome();
  }

  /** What the model is told. */
  public String messageForModel() {
    return snapshot.outcome().messageForModel();
  }

  /** Whether the model should see an error. */
  public boolean isError() {
    return snapshot.outcome().isError();
  }
}
