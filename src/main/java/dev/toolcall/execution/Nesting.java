package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which running call a nested call belongs to, so that a nested call never outlives its parent: when the parent
 * ends (cancelled, failed, timed out, or completed while its sub-calls still run) its nested calls are cancelled,
 * and theirs in turn.
 *
 * <p>A nested call names its parent by call id only. The parent is the running call of that id in the nested call's
 * own session, or else the only running call of that id in any session (a sub-agent runs in a session of its own).
 * When neither exists (the id is unknown, the parent has not started or has ended, or two other sessions run a call
 * of that id) the nested call is not linked: it runs on its own, as before. Thread-safe.
 */
final class Nesting {

  /**
   * Running calls by call id: a {@link CallRun} when one session runs the id (almost always), a {@code CallRun[]}
   * when several do. One map entry per running call and nothing else: no list per id.
   */
  private final ConcurrentHashMap<String, Object> running = new ConcurrentHashMap<>();

  /** {@code run} has started RUNNING: it may now have nested calls. */
  void started(CallRun run) {
    String id = run.call.callId();
    if (running.putIfAbsent(id, run) != null) {
      running.compute(id, (k, v) -> v == null ? run : with(v, run));
    }
  }

  /** {@code run} has ended (a second report of the same end changes nothing). */
  void ended(CallRun run) {
    String id = run.call.callId();
    if (!running.remove(id, run)) { // CallRun has identity equality: removes only when it runs the id alone
      running.computeIfPresent(id, (k, v) -> without(v, run));
    }
  }

  /** Links {@code child} (a new call with a parent id) to its parent's run, if one can be told apart. */
  void link(ToolCall child) {
    String parentId = child.identity().parentCallId();
    Object v = running.get(parentId);
    if (v == null) {
      return;
    }
    CallRun parent = v instanceof CallRun one ? one : parent((CallRun[]) v, child.sessionId());
    if (parent != null) {
      parent.adopt(child);
    } else {
      ToolScheduler.log.debug("nested call {} names parent {}, which runs in several other sessions: not linked",
          child.callId(), parentId);
    }
  }

  /** The run in {@code sessionId}, else the only run of the others, else null (several other sessions run it). */
  private static CallRun parent(CallRun[] runs, String sessionId) {
    CallRun parent = null;
    int others = 0;
    for (CallRun r : runs) {
      if (r.call.sessionId().equals(sessionId)) {
        return r;
      }
      parent = ++others == 1 ? r : null;
    }
    return parent;
  }

  private static Object with(Object v, CallRun run) {
    CallRun[] runs = v instanceof CallRun one ? new CallRun[] {one} : (CallRun[]) v;
    for (CallRun r : runs) {
      if (r == run) {
        return v; // registered already
      }
    }
    CallRun[] next = java.util.Arrays.copyOf(runs, runs.length + 1);
    next[runs.length] = run;
    return next;
  }

  private static Object without(Object v, CallRun run) {
    if (v == run) {
      return null;
    }
    if (!(v instanceof CallRun[] runs)) {
      return v; // another run of the id; this one was not registered
    }
    int i = 0;
    while (i < runs.length && runs[i] != run) {
      i++;
    }
    if (i == runs.length) {
      return v;
    }
    if (runs.length == 2) {
      return runs[1 - i];
    }
    CallRun[] next = new CallRun[runs.length - 1];
    System.arraycopy(runs, 0, next, 0, i);
    System.arraycopy(runs, i + 1, next, i, runs.length - i - 1);
    return next;
  }

  /** How many runs are registered (for tests). */
  int size() {
    int n = 0;
    for (Object v : running.values()) {
      n += v instanceof CallRun[] runs ? runs.length : 1;
    }
    return n;
  }
}
