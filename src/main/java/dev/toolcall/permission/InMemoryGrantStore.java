package dev.toolcall.permission;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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
    List<Grant> next = new ArrayList<>(grants.size() + 1);
    for (Grant g : grants) {
      if (!g.id().equals(grant.id())) {
        next.add(g);
      }
    }
    next.add(grant);
    replace(List.copyOf(next));
  }

  @Override
  public synchronized boolean revoke(String grantId) {
    Objects.requireNonNull(grantId, "grantId");
    List<Grant> next = new ArrayList<>(grants);
    if (!next.removeIf(g -> g.id().equals(grantId))) {
      return false;
    }
    replace(List.copyOf(next));
    return true;
  }

  @Override
  public List<Grant> grants() {
    return grants;
  }

  /** Installs {@code next}; called under {@code this}. Subclasses persist first and throw to refuse. */
  void replace(List<Grant> next) {
    grants = next;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + grants.size() + " grants]";
  }
}
