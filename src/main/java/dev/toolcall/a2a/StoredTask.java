package dev.toolcall.a2a;

import java.util.Objects;

/**
 * One A2A task as a {@link TaskStore} holds it: its ids, its version (raised by every write), its state, and the task
 * itself as the A2A 1.0 JSON {@code GetTask} answers ({@code id}, {@code contextId}, {@code status}, {@code history},
 * {@code artifacts}, {@code metadata}). Immutable.
 *
 * @param taskId the task's id
 * @param contextId the task's context: the conversation id the turn runs in
 * @param version 1 when created, one more per write
 * @param state the task's state (also in {@code json})
 * @param json the task's A2A 1.0 JSON
 */
public record StoredTask(String taskId, String contextId, long version, TaskState state, String json) {
  /** Checks the parts. */
  public StoredTask {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(contextId, "contextId");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(json, "json");
    if (version < 1) {
      throw new IllegalArgumentException("version must be >= 1, was " + version);
    }
  }
}
