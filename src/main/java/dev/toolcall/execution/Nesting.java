package dev.toolcall.execution;

import dev.toolcall.ToolCall;

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
   * The window of known calls, which already holds each call's run by session and id: a run is registered by a flag
   * on itself ({@link CallRun#nestable}), so a call that has no nested call costs no map entry, and a nested call
   * finds its parent there.
   */
  private final KnownCalls known;

  Nesting(KnownCalls known) {
    this.known = known;
  }

  /** {@code run} has started RUNNING: it may now have nested calls. */
  void started(CallRun run) {
    run.nestable = true;
  }

  /** {@code run} has ended (a second report of the same end changes nothing). */
  void ended(CallRun run) {
    run.nestable = false;
  }

  /**
   * Links {@code child} (a new call with a parent id) to its parent's run, if one can be told apart: the running call
   * of that id in the child's session (one lookup), else the only one in any other session (a scan of the window,
   * paid only by a nested call whose parent runs in another session, such as a sub-agent's).
   */
  void link(ToolCall child) {
    String parentId = child.identity().parentCallId();
    CallRun parent = known.runOf(child.sessionId(), parentId);
    if (parent == null || !parent.nestable) {
      int[] others = {0};
      parent = known.onlyRunOf(parentId, others);
      if (parent == null) {
        if (others[0] > 1) {
          ToolScheduler.log.debug("nested call {} names parent {}, which runs in several other sessions: not linked",
              child.callId(), parentId);
        }
        return;
      }
    }
    parent.adopt(child);
  }

  /** How many runs are registered (for tests). */
  int size() {
    return known.nestableRuns();
  }
}
