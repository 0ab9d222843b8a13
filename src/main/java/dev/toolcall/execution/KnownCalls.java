package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The window of known call ids of one scheduler: a second schedule of a (session, call id) already known returns that
 * call while it has not ended, instead of running anything twice; once it has ended the window keeps only the id and
 * the state it ended in, never the call, so the memory it holds does not grow with what the calls produced. It keeps
 * every call not yet ended plus the ids of the last {@code cap} calls; the oldest ended ids are let go first.
 * Thread-safe: every access to the map holds its monitor, briefly.
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
  private final Map<CallKey, Known> map = new LinkedHashMap<>(); // guarded by itself

  KnownCalls(int cap) {
    this.cap = cap;
  }

  /** Reserves {@code key} for {@code mine}, or returns the reservation already known under it. */
  Known reserve(CallKey key, Known mine) {
    synchronized (map) {
      Known existing = map.get(key);
      if (existing != null) {
        return existing;
      }
      map.put(key, mine);
      if (map.size() > cap) {
        var it = map.values().iterator();
        while (map.size() > cap && it.hasNext()) {
          if (it.next().isEnded()) {
            it.remove();
          } else {
            break;
          }
        }
      }
      return null;
    }
  }

  /** Lets go of {@code mine} (its call could not be built) and fails whoever waits for it with {@code cause}. */
  void unreserve(CallKey key, Known mine, Throwable cause) {
    synchronized (map) {
      map.remove(key, mine);
    }
    mine.failed(cause);
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
    List<Known> all;
    synchronized (map) {
      all = new ArrayList<>(map.values());
    }
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
    synchronized (map) {
      return map.get(key);
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
    CallKey key = new CallKey(call.sessionId(), call.callId());
    synchronized (map) {
      Known k = map.get(key);
      if (k == null || k.callNow() != call) {
        return false;
      }
      map.remove(key);
      return true;
    }
  }

  /** How many ids the window holds (for tests). */
  int size() {
    synchronized (map) {
      return map.size();
    }
  }
}
