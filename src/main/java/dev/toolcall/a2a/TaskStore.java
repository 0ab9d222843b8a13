package dev.toolcall.a2a;

import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Where the A2A server keeps its tasks, so that any instance can answer for a task another one started: a row per
 * task ({@link StoredTask}), written only by compare-and-set on its version (an SPI; {@link #inMemory()} for one
 * process, {@link #jdbc} for instances sharing a database). The conversation a task's turn runs in is not here: it is
 * the {@link dev.toolcall.conversation.AgentDirectory}'s, in its own store.
 *
 * <p>The compare-and-set is what makes a task answered once: two messages answering one {@code input-required} task
 * (two clients, two instances) both read version n, and only one moves it to version n + 1; the other is told the task
 * no longer waits for input.
 *
 * <p>Implementations are thread-safe; every method is one atomic operation on the store, and a failure of the store
 * is a {@link RuntimeException} after which nothing was written.
 */
public interface TaskStore {

  /** The task {@code taskId}, as last written; empty when there is none. */
  Optional<StoredTask> read(String taskId);

  /**
   * Stores a new task (its version 1).
   *
   * @return false, writing nothing, when a task with its id exists
   * @throws IllegalArgumentException if {@code task.version()} is not 1
   */
  boolean create(StoredTask task);

  /**
   * Replaces {@code current} with {@code next} if the stored task is still at {@code current}'s version.
   *
   * @return false, writing nothing, when another write came first
   * @throws IllegalArgumentException if {@code next} is another task or its version is not {@code current}'s + 1
   */
  boolean replace(StoredTask current, StoredTask next);

  /**
   * Tasks in this process's memory: at most 10,000, the oldest ended ones dropped first when there are more (a
   * dropped task is answered "task not found"). For one instance, or for tests.
   */
  static TaskStore inMemory() {
    return new InMemoryTasks(10_000);
  }

  /**
   * Tasks in a table {@code toolcall_a2a_task} of the database {@code dataSource} reaches (created when absent; SQL
   * every common database runs, tested on PostgreSQL): one row per task with its id, context id, version, state, the
   * task's JSON and when it was last written. Every instance of a server given the same database sees the same
   * tasks. Each operation takes its own connection. Old rows are the application's to delete (by
   * {@code updated_at}).
   *
   * @throws RuntimeException if the table could not be created
   */
  static TaskStore jdbc(DataSource dataSource) {
    return new JdbcTasks(Objects.requireNonNull(dataSource, "dataSource"));
  }
}
