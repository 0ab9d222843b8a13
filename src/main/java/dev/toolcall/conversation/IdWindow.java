package dev.toolcall.conversation;

/**
 * The last {@code limit} distinct ids added, oldest let go first, in two flat arrays: a ring in arrival order and an
 * open-addressing table (linear probing, at most half full) for {@link #contains}. An id costs two array slots, not a
 * map entry and a table slot (a {@code LinkedHashSet} entry is 40 bytes); an empty window holds no array. Not
 * thread-safe: its owner guards it.
 */
final class IdWindow {
  private final int limit;
  /** The ids in arrival order: {@code size} of them from {@code head}, wrapping; null until the first. */
  private String[] ring;
  private int head;
  private int size;
  /** The same ids by hash; a power of two in length, never more than half full; null until the first. */
  private String[] table;

  /** @param limit how many ids are kept (positive) */
  IdWindow(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    this.limit = limit;
  }

  /** Adds {@code id} unless it is kept already, letting the oldest go when full; whether it was added. */
  boolean add(String id) {
    if (contains(id)) {
      return false;
    }
    if (table == null) {
      ring = new String[Math.min(limit, 8)];
      table = new String[16];
    }
    if (size == limit) {
      remove(ring[head]);
      ring[head] = null;
      head = (head + 1) % ring.length;
      size--;
    }
    if (size == ring.length) {
      String[] bigger = new String[Math.min(limit, ring.length * 2)];
      for (int i = 0; i < size; i++) {
        bigger[i] = ring[(head + i) % ring.length];
      }
      ring = bigger;
      head = 0;
    }
    ring[(head + size) % ring.length] = id;
    size++;
    if (size * 2 > table.length) {
      rehash(table.length * 2);
    }
    insert(table, id);
    return true;
  }

  /** Whether {@code id} is kept. */
  boolean contains(String id) {
    if (table == null) {
      return false;
    }
    int mask = table.length - 1;
    for (int i = slot(id, mask); table[i] != null; i = (i + 1) & mask) {
      if (table[i].equals(id)) {
        return true;
      }
    }
    return false;
  }

  /** How many ids are kept. */
  int size() {
    return size;
  }

  private static int slot(String id, int mask) {
    int h = id.hashCode();
    return (h ^ (h >>> 16)) * 0x9E3779B9 >>> 7 & mask;
  }

  private static void insert(String[] t, String id) {
    int mask = t.length - 1;
    int i = slot(id, mask);
    while (t[i] != null) {
      i = (i + 1) & mask;
    }
    t[i] = id;
  }

  private void rehash(int length) {
    String[] t = new String[length];
    for (String id : table) {
      if (id != null) {
        insert(t, id);
      }
    }
    table = t;
  }

  /** Takes {@code id} out of the table, moving back the ids after it that probed past its slot (no tombstones). */
  private void remove(String id) {
    int mask = table.length - 1;
    int i = slot(id, mask);
    while (!table[i].equals(id)) {
      i = (i + 1) & mask;
    }
    for (int j = (i + 1) & mask; table[j] != null; j = (j + 1) & mask) {
      int home = slot(table[j], mask);
      // table[j] may fill the hole at i unless its home lies cyclically in (i, j]
      boolean homeBetween = i <= j ? i < home && home <= j : i < home || home <= j;
      if (!homeBetween) {
        table[i] = table[j];
        i = j;
      }
    }
    table[i] = null;
  }
}
