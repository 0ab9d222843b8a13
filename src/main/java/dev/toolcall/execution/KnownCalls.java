package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The window of known call ids of one scheduler: a second schedule of a (session, call id) already known returns that
 * call instead of running anything twice. It keeps the last {@code cap} calls plus every call not yet ended; the
 * oldest are let go once they have ended. Thread-safe: every access to the map holds its monitor, briefly.
 */
final class KnownCalls {

  /** The key of a call id in a session. */
  record CallKey(String sessionId, String callId) {}

  /**
   * A call id reserved in the window: completes with the call once it is built (a second schedule of the same id
   * waits for that). {@link #ended} is set by the call's terminal hook, so trimming the window reads this one object
   * rather than the call's state (which would be four objects long out of the cache).
   */
  static final class Known extends CompletableFuture<ToolCall> {
    volatile boolean ended;
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
          if (it.next().ended) {
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
    mine.completeExceptionally(cause);
  }

  /** The calls of every reservation in the window, built ones only (for close). */
  List<ToolCall> calls() {
    List<Known> all;
    synchronized (map) {
      all = new ArrayList<>(map.values());
    }
    List<ToolCall> calls = new ArrayList<>(all.size());
    for (Known k : all) {
      ToolCall c = k.getNow(null);
      if (c != null) {
        calls.add(c);
      }
    }
    return calls;
  }
}
