package dev.toolcall.permission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The grants made by "approve for session", per session id: immutable lists replaced atomically, so a reader never
 * sees a list being changed. Thread-safe.
 */
final class SessionGrants implements SessionGrantStore {
  private final ConcurrentHashMap<String, List<Grant>> bySession = new ConcurrentHashMap<>();

  /** The grants of {@code sessionId}, oldest first. */
  @Override
  public List<Grant> of(String sessionId) {
    return bySession.getOrDefault(sessionId, List.of());
  }

  /** Adds {@code grant} to its session's list. */
  @Override
  public void add(String sessionId, Grant grant) {
    bySession.merge(sessionId, List.of(grant), SessionGrants::concat);
  }

  /** Every session's grants, sessions in no particular order, each list oldest first. */
  @Override
  public Map<String, List<Grant>> all() {
    return Map.copyOf(bySession);
  }

  /** Removes the grant {@code grantId} of {@code sessionId}; whether there was one. */
  @Override
  public boolean revoke(String sessionId, String grantId) {
    AtomicBoolean removed = new AtomicBoolean();
    bySession.computeIfPresent(sessionId, (k, list) -> {
      List<Grant> next = new ArrayList<>(list);
      removed.set(next.removeIf(g -> g.id().equals(grantId)));
      return next.isEmpty() ? null : List.copyOf(next);
    });
    return removed.get();
  }

  /** Forgets every grant of {@code sessionId}. */
  @Override
  public void forget(String sessionId) {
    bySession.remove(sessionId);
  }

  private static List<Grant> concat(List<Grant> a, List<Grant> b) {
    List<Grant> all = new ArrayList<>(a.size() + b.size());
    all.addAll(a);
    all.addAll(b);
    return List.copyOf(all);
  }
}
