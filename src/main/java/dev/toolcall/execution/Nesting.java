package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

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

  /** Running calls by call id: almost always one per id. */
  private final ConcurrentHashMap<String, List<CallRun>> running = new ConcurrentHashMap<>();

  /** {@code run} has started RUNNING: it may now have nested calls. */
  void started(CallRun run) {
    running.computeIfAbsent(run.call.callId(), k -> new CopyOnWriteArrayList<>()).add(run);
  }

  /** {@code run} has ended. */
  void ended(CallRun run) {
    running.computeIfPresent(run.call.callId(), (k, list) -> {
      list.remove(run);
      return list.isEmpty() ? null : list;
    });
  }

  /** Links {@code child} (a new call with a parent id) to its parent's run, if one can be told apart. */
  void link(ToolCall child) {
    String parentId = child.identity().parentCallId();
    List<CallRun> runs = running.get(parentId);
    if (runs == null) {
      return;
    }
    CallRun parent = null;
    int others = 0;
    for (CallRun r : runs) {
      if (r.call.sessionId().equals(child.sessionId())) {
        parent = r;
        break;
      }
      others++;
      if (others == 1) {
        parent = r;
      } else {
        parent = null;
      }
    }
    if (parent != null) {
      parent.adopt(child);
    } else {
      ToolScheduler.log.debug("nested call {} names parent {}, which runs in several other sessions: not linked",
          child.callId(), parentId);
    }
  }
}
