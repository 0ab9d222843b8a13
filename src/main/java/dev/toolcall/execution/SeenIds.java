package dev.toolcall.execution;

import java.util.HashSet;
import java.util.Set;

/** The call ids of one batch so far: a linear scan while the batch is small, a hash set beyond. */
final class SeenIds {
  static final int SCAN = 16;
  final String[] ids;
  final Set<String> set;
  int n;

  SeenIds(int size) {
    this.ids = size > 1 && size <= SCAN ? new String[size] : null;
    this.set = size <= SCAN ? null : new HashSet<>();
  }

  /** Adds {@code id}; false if it was seen before. */
  boolean add(String id) {
    if (set != null) {
      return set.add(id);
    }
    if (ids == null) {
      return n++ == 0; // a batch of one
    }
    for (int i = 0; i < n; i++) {
      if (ids[i].equals(id)) {
        return false;
      }
    }
    ids[n++] = id;
    return true;
  }
}
