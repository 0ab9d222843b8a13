package dev.toolcall.permission;

import java.util.List;
import java.util.Map;

/**
 * Where the grants made by "approve for session" are kept, per session id. The default keeps them in the memory of
 * one {@link PermissionService} ({@link #inMemory()}); a store several runtimes share
 * ({@code dev.toolcall.postgres.PostgresCallStore#sessionGrants()}) lets a grant made on one runtime approve the calls
 * of its session on every runtime, and keeps it across restarts.
 *
 * <p>Implementations are thread-safe. The service reads {@link #of} once per call it authorizes (after its rules, before
 * the grant store); a store that fails there is logged and the person is asked instead.
 */
public interface SessionGrantStore {

  /** The grants of {@code sessionId}, oldest first. */
  List<Grant> of(String sessionId);

  /** Adds {@code grant} to its session's grants (replacing one with the same id). */
  void add(String sessionId, Grant grant);

  /** Removes the grant {@code grantId} of {@code sessionId}; whether there was one. */
  boolean revoke(String sessionId, String grantId);

  /** Forgets every grant of {@code sessionId}. */
  void forget(String sessionId);

  /** Every session's grants, each list oldest first. */
  Map<String, List<Grant>> all();

  /** Grants in memory (the default): gone with the service. */
  static SessionGrantStore inMemory() {
    return new SessionGrants();
  }
}
