package dev.toolcall.micrometer;

import dev.toolcall.ToolCallSnapshot;
import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * What an observation of {@link ToolCallObservations} is about: one tool call ({@link ToolCallObservations#TOOL_CALL})
 * or one wait of a permission request of it ({@link ToolCallObservations#PERMISSION_WAIT}). An
 * {@code ObservationHandler} or {@code ObservationFilter} reads the call from it, for example to add a tag of its own.
 *
 * <p>The snapshot is replaced as the call changes (the one at the observation's start, then the one that stopped it);
 * it is written on the thread that published the call's change and read by handlers on that same thread, in the
 * call's order.
 */
public final class ToolCallObservationContext extends Observation.Context {

  private final String toolName;
  private volatile ToolCallSnapshot snapshot;

  ToolCallObservationContext(String toolName, ToolCallSnapshot snapshot) {
    this.toolName = Objects.requireNonNull(toolName, "toolName");
    this.snapshot = Objects.requireNonNull(snapshot, "snapshot");
  }

  /** The tool's name as the metrics record it: the registered name, or {@code _OTHER} for one the runtime lacks. */
  public String toolName() {
    return toolName;
  }

  /** The call as last seen: at the start, then at the change that stopped the observation. */
  public ToolCallSnapshot snapshot() {
    return snapshot;
  }

  void snapshot(ToolCallSnapshot s) {
    this.snapshot = s;
  }
}
