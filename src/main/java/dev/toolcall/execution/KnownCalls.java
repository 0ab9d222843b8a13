package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The window of known call ids of one scheduler: a second schedule of a (session, call id) already known returns that
 * call while it has not ended, instead of running anything twice; once it has ended the window keeps only the id and
 * the state it ended in, never the call, so the memory it holds does not grow with what the calls produced. It keeps
 * every call not yet ended plus the ids of the last {@code cap} calls; the oldest ended ids are let go first.
 * Thread-safe: every access holds this object's monitor, briefly. The window lives in flat arrays (a ring in the order
 * of reservation and an open-addressed table), so keeping an id allocates nothing beyond the reservation itself.
 */
final class KnownCalls {
  /** How many ended calls the window keeps by default (every call not yet ended is kept too). */
  static final int DEFAULT_CAP = 4_096;

  /** The key of a call id in a session. */
  record CallKey(String sessionId, String callId) {}

  /**
   * A call id reserved in the window. A second schedule of the same id waits until the call is built ({@link #await});
   * the call's terminal hook calls {@link #ended}, which lets go of the call and keeps the state it ended in, so
   * trimming the window reads this one object rather than the call.
   */
  static final class Known extends CompletableFuture<Void> { // completes once the call is built (one object an id)
    private volatile ToolCall call;
    private volatile ToolCallState endedIn;
    /** The run of the call, set when it is made; null for a call that never runs here (a duplicate). */
    volatile CallRun run;

    /** The call was built: waiters get it. */
    void built(ToolCall c) {
      call = c;
      complete(null);
    }

    /** The call could not be built: waiters fail with {@code cause}. */
    void failed(Throwable cause) {
      completeExceptionally(cause);
    }

    /** The call ended in {@code state}: keep the id and the state, let go of the call. */
    void ended(ToolCallState state) {
      endedIn = state;
      call = null;
      run = null;
    }

    boolean isEnded() {
      return endedIn != null;
    }

    /** The state the call ended in, or null while it has not ended. */
    ToolCallState endedIn() {
      return endedIn;
    }

    /**
     * Waits until the call is built; returns it, or null once it has ended (then {@link #endedIn} says how).
     *
     * @throws java.util.concurrent.CompletionException if the call could not be built
     */
    ToolCall await() {
      join();
      return call;
    }

    /** The call if it is built and has not ended, else null; does not wait. */
    ToolCall callNow() {
      return call;
    }
  }

  private final int cap;
  // The window in flat arrays, guarded by this: a ring of reservations in the order they were made (session, id, hash
  // and reservation per slot; a slot let go of in the middle is a hole, skipped) between the sequence numbers head
  // and tail, and an open-addressed table (linear probing) of ring slots + 1 (0: empty) by the key's hash. Neither
  // allocates per call; the ring grows (and drops its holes) only while calls not yet ended fill it.
  private String[] sessions;
  private String[] ids;
  private int[] hashes;
  private Known[] knowns;
  private int[] table;
  private long head;
  private long tail;
  private int live;

  KnownCalls(int cap) {
    this.cap = cap;
    allocate(16);
  }

  private void allocate(int ringSize) {
    sessions = new String[ringSize];
    ids = new String[ringSize];
    hashes = new int[ringSize];
    knowns = new Known[ringSize];
    table = new int[ringSize * 2];
  }

  private static int hash(String sessionId, String callId) {
    int h = java.util.Objects.hashCode(sessionId) * 31 + callId.hashCode();
    h *= 0x9E3779B9;
    return h ^ (h >>> 16);
  }

  /** The table position holding {@code sessionId}/{@code callId}, or -1. Holds the monitor. */
  private int find(String sessionId, String callId, int h) {
    int mask = table.length - 1;
    for (int i = h & mask; ; i = (i + 1) & mask) {
      int v = table[i];
      if (v == 0) {
        return -1;
      }
      int slot = v - 1;
      if (hashes[slot] == h && ids[slot].equals(callId) && java.util.Objects.equals(sessions[slot], sessionId)) {
        return i;
      }
    }
  }

  /** The table position of ring slot {@code slot}, which is in the table: found by its hash, no key compared. */
  private int position(int slot) {
    int mask = table.length - 1;
    int i = hashes[slot] & mask;
    while (table[i] != slot + 1) {
      i = (i + 1) & mask;
    }
    return i;
  }

  /** Empties table position {@code pos}, moving later entries of its probe run back (no tombstones). */
  private void tableRemove(int pos) {
    int mask = table.length - 1;
    int i = pos;
    table[i] = 0;
    for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
      int ideal = hashes[table[j] - 1] & mask;
      boolean stays = i <= j ? (i < ideal && ideal <= j) : (i < ideal || ideal <= j);
      if (!stays) {
        table[i] = table[j];
        table[j] = 0;
        i = j;
      }
    }
  }

  private void tableInsert(int slot) {
    int mask = table.length - 1;
    int i = hashes[slot] & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = slot + 1;
  }

  /** Lets go of the reservation in ring slot {@code slot}, found at table position {@code pos}. */
  private void removeAt(int pos, int slot) {
    tableRemove(pos);
    sessions[slot] = null;
    ids[slot] = null;
    knowns[slot] = null;
    live--;
    dropLeadingHoles();
  }

  private void dropLeadingHoles() {
    int mask = knowns.length - 1;
    while (head < tail && knowns[(int) head & mask] == null) {
      head++;
    }
    if (head == tail) {
      head = tail = 0;
    }
  }

  /** Copies the reservations, in order and without holes, into a ring of {@code size} slots. */
  private void rebuild(int size) {
    String[] oldSessions = sessions;
    String[] oldIds = ids;
    int[] oldHashes = hashes;
    Known[] oldKnowns = knowns;
    int oldMask = oldKnowns.length - 1;
    long from = head;
    long to = tail;
    allocate(size);
    int n = 0;
    for (long q = from; q < to; q++) {
      int o = (int) q & oldMask;
      if (oldKnowns[o] != null) {
        sessions[n] = oldSessions[o];
        ids[n] = oldIds[o];
        hashes[n] = oldHashes[o];
        knowns[n] = oldKnowns[o];
        tableInsert(n);
        n++;
      }
    }
    head = 0;
    tail = n;
  }

  /** Reserves {@code key} for {@code mine}, or returns the reservation already known under it. */
  Known reserve(CallKey key, Known mine) {
    String sessionId = key.sessionId();
    String callId = key.callId();
    int h = hash(sessionId, callId);
    synchronized (this) {
      int pos = find(sessionId, callId, h);
      if (pos >= 0) {
        return knowns[table[pos] - 1];
      }
      if (tail - head == knowns.length) { // full: drop the holes, and double when most slots are reservations
        rebuild(live + 1 > knowns.length / 2 ? knowns.length * 2 : knowns.length);
      }
      int slot = (int) tail & (knowns.length - 1);
      sessions[slot] = sessionId;
      ids[slot] = callId;
      hashes[slot] = h;
      knowns[slot] = mine;
      tableInsert(slot);
      tail++;
      live++;
      // trim: the oldest ended ids go first; a call not yet ended stops the trim (it and what follows are kept)
      int mask = knowns.length - 1;
      while (live > cap && head < tail) {
        int s = (int) head & mask;
        Known k = knowns[s];
        if (!k.isEnded()) {
          break;
        }
        removeAt(position(s), s);
      }
      return null;
    }
  }

  /** Lets go of {@code mine} (its call could not be built) and fails whoever waits for it with {@code cause}. */
  void unreserve(CallKey key, Known mine, Throwable cause) {
    int h = hash(key.sessionId(), key.callId());
    synchronized (this) {
      int pos = find(key.sessionId(), key.callId(), h);
      if (pos >= 0 && knowns[table[pos] - 1] == mine) {
        removeAt(pos, table[pos] - 1);
      }
    }
    mine.failed(cause);
  }

  /** The reservations in the window, in the order they were made. */
  private synchronized List<Known> all() {
    List<Known> all = new ArrayList<>(live);
    int mask = knowns.length - 1;
    for (long q = head; q < tail; q++) {
      Known k = knowns[(int) q & mask];
      if (k != null) {
        all.add(k);
      }
    }
    return all;
  }

  /** The calls of every reservation in the window that are built and have not ended (for close). */
  List<ToolCall> calls() {
    List<ToolCall> calls = new ArrayList<>();
    for (List<ToolCall> batch : callsByBatch()) {
      calls.addAll(batch);
    }
    return calls;
  }

  /**
   * The calls not ended, grouped by the batch that runs them (a call with no run here is a batch of its own), batches
   * in the order of their first call, calls in the order they were reserved.
   */
  List<List<ToolCall>> callsByBatch() {
    List<Known> all = all();
    java.util.Map<Object, List<ToolCall>> batches = new java.util.IdentityHashMap<>();
    List<List<ToolCall>> out = new ArrayList<>();
    for (Known k : all) {
      ToolCall c = k.callNow();
      if (c != null) {
        CallRun run = k.run;
        List<ToolCall> batch = batches.computeIfAbsent(run == null ? k : run.batch, b -> {
          List<ToolCall> l = new ArrayList<>();
          out.add(l);
          return l;
        });
        batch.add(c);
      }
    }
    return out;
  }

  /** The reservation of {@code key}, or null. */
  Known get(CallKey key) {
    int h = hash(key.sessionId(), key.callId());
    synchronized (this) {
      int pos = find(key.sessionId(), key.callId(), h);
      return pos < 0 ? null : knowns[table[pos] - 1];
    }
  }

  /** The call {@code key} names if it is built and has not ended, else null. */
  ToolCall callNow(CallKey key) {
    Known k = get(key);
    return k == null ? null : k.callNow();
  }

  /** {@link ToolScheduler#takeOver}: the run of {@code call}, if it is this one's and runs here, takes it over. */
  boolean takeOver(ToolCall call) {
    Known k = get(new CallKey(call.sessionId(), call.callId()));
    CallRun run = k == null ? null : k.run;
    return run != null && run.call == call && run.takeOver();
  }

  /**
   * Lets go of {@code call} entirely (its id included) when it is the built, not ended call of its reservation: it
   * was handed over to the store, and may come back into this scheduler by a restore as any call of another runtime.
   */
  boolean forget(ToolCall call) {
    String sessionId = call.sessionId();
    String callId = call.callId();
    int h = hash(sessionId, callId);
    synchronized (this) {
      int pos = find(sessionId, callId, h);
      if (pos < 0) {
        return false;
      }
      int slot = table[pos] - 1;
      if (knowns[slot].callNow() != call) {
        return false;
      }
      removeAt(pos, slot);
      return true;
    }
  }

  /** The run of the call {@code sessionId}/{@code callId} runs here, or null. */
  CallRun runOf(String sessionId, String callId) {
    int h = hash(sessionId, callId);
    synchronized (this) {
      int pos = find(sessionId, callId, h);
      return pos < 0 ? null : knowns[table[pos] - 1].run;
    }
  }

  /**
   * The one run of call id {@code callId} that is registered for nesting ({@link CallRun#nestable}) in any session, or
   * null when none is or several are; {@code count[0]} is set to how many are. A scan of the window.
   */
  synchronized CallRun onlyRunOf(String callId, int[] count) {
    CallRun only = null;
    int n = 0;
    int mask = knowns.length - 1;
    for (long q = head; q < tail; q++) {
      int s = (int) q & mask;
      Known k = knowns[s];
      if (k != null && ids[s].equals(callId)) {
        CallRun r = k.run;
        if (r != null && r.nestable) {
          only = ++n == 1 ? r : null;
        }
      }
    }
    count[0] = n;
    return only;
  }

  /** How many runs are registered for nesting (for tests). */
  synchronized int nestableRuns() {
    int n = 0;
    int mask = knowns.length - 1;
    for (long q = head; q < tail; q++) {
      Known k = knowns[(int) q & mask];
      CallRun r = k == null ? null : k.run;
      if (r != null && r.nestable) {
        n++;
      }
    }
    return n;
  }

  /** How many ids the window holds (for tests). */
  synchronized int size() {
    return live;
  }
}
