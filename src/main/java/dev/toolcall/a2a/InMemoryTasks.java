package dev.toolcall.a2a;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** {@link TaskStore#inMemory()}: a map under one lock, oldest ended tasks dropped past the bound. */
final class InMemoryTasks implements TaskStore {
  private final int max;
  private final LinkedHashMap<String, StoredTask> tasks = new LinkedHashMap<>(); // guarded by itself

  InMemoryTasks(int max) {
    this.max = max;
  }

  @Override
  public Optional<StoredTask> read(String taskId) {
    Objects.requireNonNull(taskId, "taskId");
    synchronized (tasks) {
      return Optional.ofNullable(tasks.get(taskId));
    }
  }

  @Override
  public boolean create(StoredTask task) {
    Objects.requireNonNull(task, "task");
    if (task.version() != 1) {
      throw new IllegalArgumentException("a new task has version 1, was " + task.version());
    }
    synchronized (tasks) {
      if (tasks.putIfAbsent(task.taskId(), task) != null) {
        return false;
      }
      Iterator<Map.Entry<String, StoredTask>> it = tasks.entrySet().iterator();
      while (tasks.size() > max && it.hasNext()) {
        if (it.next().getValue().state().isTerminal()) {
          it.remove();
        }
      }
      return true;
    }
  }

  @Override
  public boolean replace(StoredTask current, StoredTask next) {
    requireSuccessor(current, next);
    synchronized (tasks) {
      StoredTask now = tasks.get(current.taskId());
      if (now == null || now.version() != current.version()) {
        return false;
      }
      tasks.put(next.taskId(), next);
      return true;
    }
  }

  /** Checks what {@link TaskStore#replace} requires (both stores). */
  static void requireSuccessor(StoredTask current, StoredTask next) {
    Objects.requireNonNull(current, "current");
    Objects.requireNonNull(next, "next");
    if (!next.taskId().equals(current.taskId()) || next.version() != current.version() + 1) {
      throw new IllegalArgumentException("next must be task " + current.taskId() + " at version "
          + (current.version() + 1) + ", was " + next.taskId() + " at " + next.version());
    }
  }

  @Override
  public String toString() {
    synchronized (tasks) {
      return "TaskStore.inMemory[" + tasks.size() + " tasks]";
    }
  }
}
