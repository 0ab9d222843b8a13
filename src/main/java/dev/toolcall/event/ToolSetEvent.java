package dev.toolcall.event;

import dev.toolcall.tool.ToolDefinition;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The runtime's tool set changed: tools were added, removed or replaced between batches (see
 * {@code ToolCallRuntime.updateTools}). Immutable.
 *
 * <p>The tool set is one source, {@link #SOURCE_ID}, of no session ({@link #sessionId()} is empty); its version
 * starts at 0 with the tools the runtime was built with (no event) and grows by one per change, so every subscriber
 * sees the changes in order, each once. A call validated before a change keeps the tool it was validated with.
 *
 * @param version the tool set's version after the change
 * @param timestamp when it changed
 * @param added names that were not in the set before
 * @param removed names that are no longer in the set
 * @param replaced names whose tool was replaced by another tool of the same name
 * @param definitions every definition of the set after the change, in registration order
 */
public record ToolSetEvent(long version, Instant timestamp, List<String> added, List<String> removed,
    List<String> replaced, List<ToolDefinition> definitions) implements Event {

  /** The source id of every tool-set event. */
  public static final String SOURCE_ID = "tool-set";

  /** Checks the parts and copies the lists. */
  public ToolSetEvent {
    if (version < 1) {
      throw new IllegalArgumentException("version must be at least 1, was " + version);
    }
    Objects.requireNonNull(timestamp, "timestamp");
    added = List.copyOf(added);
    removed = List.copyOf(removed);
    replaced = List.copyOf(replaced);
    definitions = List.copyOf(definitions);
  }

  @Override
  public String sourceId() {
    return SOURCE_ID;
  }

  /** Empty: the tool set belongs to no session. */
  @Override
  public String sessionId() {
    return "";
  }
}
