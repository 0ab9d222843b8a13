package dev.toolcall.permission;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/** Grants in an immutable list replaced under {@code this}; reads take one volatile read. */
class InMemoryGrantStore implements GrantStore {

  /** Replaced under {@code this}; read by any thread. */
  private volatile List<Grant> grants = List.of();

  InMemoryGrantStore() {}

  InMemoryGrantStore(List<Grant> initial) {
    this.grants = List.copyOf(initial);
  }

  @Override
  public synchronized void add(Grant grant) {
    Objects.requireNonNull(grant, "grant");
    update(current -> {
      List<Grant> next = new ArrayList<>(current.size() + 1);
      for (Grant g : current) {
        if (!g.id().equals(grant.id())) {
          next.add(g);
        }
      }
      next.add(grant);
      return List.copyOf(next);
    });
  }

  @Override
  public synchronized boolean revoke(String grantId) {
    Objects.requireNonNull(grantId, "grantId");
    boolean[] removed = new boolean[1];
    update(current -> {
      List<Grant> next = new ArrayList<>(current);
      removed[0] = next.removeIf(g -> g.id().equals(grantId));
      return removed[0] ? List.copyOf(next) : current;
    });
    return removed[0];
  }

  @Override
  public List<Grant> grants() {
    return grants;
  }

  /**
   * Applies {@code change} to the current grants and installs the result; called under {@code this}. Subclasses
   * that persist apply it to the stored grants (which may hold other writers' changes), persist first, and throw to
   * refuse. {@code change} may run more than once and returns its argument itself when it changes nothing.
   */
  void update(UnaryOperator<List<Grant>> change) {
    grants = change.apply(grants);
  }

  /** Installs {@code next} as the grants in memory. */
  final void install(List<Grant> next) {
    grants = next;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + grants.size() + " grants]";
  }
}
