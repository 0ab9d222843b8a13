package dev.toolcall.a2a;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/** {@link TaskStore#jdbc}: one row per task; every write is one statement, compare-and-set by version. */
final class JdbcTasks implements TaskStore {
  private final DataSource db;

  JdbcTasks(DataSource db) {
    this.db = db;
    try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS toolcall_a2a_task (task_id VARCHAR(200) PRIMARY KEY,"
          + " context_id VARCHAR(200) NOT NULL, version BIGINT NOT NULL, state VARCHAR(40) NOT NULL,"
          + " body TEXT NOT NULL, updated_at TIMESTAMP NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException("could not create the table toolcall_a2a_task: " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<StoredTask> read(String taskId) {
    Objects.requireNonNull(taskId, "taskId");
    try (Connection c = db.getConnection(); PreparedStatement p = c.prepareStatement(
        "SELECT context_id, version, state, body FROM toolcall_a2a_task WHERE task_id = ?")) {
      p.setString(1, taskId);
      try (ResultSet r = p.executeQuery()) {
        if (!r.next()) {
          return Optional.empty();
        }
        return Optional.of(new StoredTask(taskId, r.getString(1), r.getLong(2), TaskState.valueOf(r.getString(3)),
            r.getString(4)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading task " + taskId + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean create(StoredTask task) {
    Objects.requireNonNull(task, "task");
    if (task.version() != 1) {
      throw new IllegalArgumentException("a new task has version 1, was " + task.version());
    }
    try (Connection c = db.getConnection(); PreparedStatement p = c.prepareStatement(
        "INSERT INTO toolcall_a2a_task (task_id, context_id, version, state, body, updated_at)"
            + " SELECT ?, ?, 1, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM toolcall_a2a_task WHERE task_id = ?)")) {
      p.setString(1, task.taskId());
      p.setString(2, task.contextId());
      p.setString(3, task.state().name());
      p.setString(4, task.json());
      p.setTimestamp(5, Timestamp.from(Instant.now()));
      p.setString(6, task.taskId());
      return p.executeUpdate() == 1;
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())) { // a racing insert of the same id
        return false;
      }
      throw new IllegalStateException("creating task " + task.taskId() + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean replace(StoredTask current, StoredTask next) {
    InMemoryTasks.requireSuccessor(current, next);
    try (Connection c = db.getConnection(); PreparedStatement p = c.prepareStatement(
        "UPDATE toolcall_a2a_task SET version = ?, state = ?, body = ?, updated_at = ?"
            + " WHERE task_id = ? AND version = ?")) {
      p.setLong(1, next.version());
      p.setString(2, next.state().name());
      p.setString(3, next.json());
      p.setTimestamp(4, Timestamp.from(Instant.now()));
      p.setString(5, current.taskId());
      p.setLong(6, current.version());
      return p.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IllegalStateException("writing task " + current.taskId() + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "TaskStore.jdbc[toolcall_a2a_task]";
  }
}
