package dev.toolcall.permission;

import dev.toolcall.ToolArguments;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Keeps the grants made by "approve always". The {@link PermissionService} consults it for every call that needs
 * approval and writes to it only when an "approve always" decision won.
 *
 * <p>Implementations must be thread-safe; a change (add, revoke) must be seen by every later {@link #find}. Two ship:
 * {@link #inMemory()} and {@link #jsonFile(Path)}.
 */
public interface GrantStore {

  /** Stores {@code grant} (replacing one with the same id). */
  void add(Grant grant);

  /** Revokes the grant with {@code grantId}; returns whether there was one. */
  boolean revoke(String grantId);

  /** Every stored grant, expired ones included, oldest first. */
  List<Grant> grants();

  /** The first grant that covers a call of {@code toolName} with {@code arguments} at {@code now}. */
  default Optional<Grant> find(String toolName, ToolArguments arguments, Instant now) {
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(now, "now");
    for (Grant g : grants()) {
      if (g.covers(toolName, arguments, now)) {
        return Optional.of(g);
      }
    }
    return Optional.empty();
  }

  /** A store that keeps grants in memory only, for tests and for runtimes that persist nothing. */
  static GrantStore inMemory() {
    return new InMemoryGrantStore();
  }

  /**
   * A store that keeps grants in a JSON file. It reads the file at once if it exists, strictly: a malformed file,
   * or any malformed field of any grant, is an error ({@link java.io.UncheckedIOException} or
   * {@link IllegalArgumentException} naming the file, the entry and the field), so nothing malformed ever widens a
   * grant. Several stores and processes may share the file: each change locks it, re-reads it and merges its change
   * into what it read (see docs/permissions.md). Each change rewrites the
   * whole file atomically: a temporary file in the same directory, then an atomic move over the old one, so a crash
   * leaves either the old or the new file, never a torn one. Expired grants stay in the file (and in
   * {@link #grants()}) until revoked; they approve nothing.
   */
  static GrantStore jsonFile(Path file) {
    return new JsonFileGrantStore(Objects.requireNonNull(file, "file"));
  }
}
