package dev.toolcall;

import dev.toolcall.fsm.TransitionResult;

/**
 * The changes of a {@link ToolCall} that make a new version without changing its state: edited arguments, live
 * output, a scheduled retry. Each is a compare-and-set loop on the call's snapshot, as a change of state is, and is
 * handed off in version order with the others. None is made when the call could not end after it
 * ({@link ToolCallSnapshot#canEnd()}): the change loses, the call as it is. Used by {@link ToolCall} only; no state of
 * its own.
 */
final class CallVersions {

  private CallVersions() {}

  /** Replaces the arguments while the call is in {@code expected} (and at {@code argumentsVersion}, unless any). */
  static TransitionResult<ToolCallSnapshot> replaceArguments(ToolCall call, ToolCallState expected,
      int argumentsVersion, ToolArguments arguments, String by) {
    for (;;) {
      ToolCallSnapshot cur = call.snapshot();
      if (cur.state() != expected
          || (argumentsVersion != ToolCall.ANY_ARGUMENTS && cur.argumentsVersion() != argumentsVersion)) {
        return new TransitionResult<>(false, cur);
      }
      ToolCallSnapshot nv = cur.withArguments(arguments, by, call.ticker().read());
      if (!nv.canEnd()) { // the call could not end after it: refused, the call as it is
        return new TransitionResult<>(false, cur);
      }
      if (call.installVersion(cur, nv)) {
        return new TransitionResult<>(true, nv);
      }
    }
  }

  /**
   * Records a chunk of live output while the call is RUNNING. When the version it replaces is itself live output that
   * has been handed off, the new version takes its place in the history ({@link CallHistory#outputLink}).
   */
  static TransitionResult<ToolCallSnapshot> appendOutput(ToolCall call, String chunk, long sequence, long dropped) {
    for (;;) {
      ToolCallSnapshot cur = call.snapshot();
      if (cur.state() != ToolCallState.RUNNING || cur.version() >= Integer.MAX_VALUE - 1) {
        return new TransitionResult<>(false, cur); // not running, or its last version is kept for its end
      }
      Change.OutputAppended c = Change.OutputAppended.after(CallHistory.lastOutput(cur), chunk, sequence, dropped);
      ToolCallSnapshot link = CallHistory.outputLink(cur, cur.change() instanceof Change.OutputAppended
          && call.handedOff(cur));
      ToolCallSnapshot nv = new ToolCallSnapshot(cur.identity(), cur.state(), cur.version() + 1, cur.arguments(),
          cur.argumentsVersion(), cur.attempt(), null, c, call.ticker().read(), link);
      if (call.installVersion(cur, nv)) {
        return new TransitionResult<>(true, nv);
      }
    }
  }

  /** Records retry {@code c} while the call is RUNNING in the attempt before {@code c.nextAttempt()}. */
  static TransitionResult<ToolCallSnapshot> scheduleRetry(ToolCall call, Change.RetryScheduled c) {
    for (;;) {
      ToolCallSnapshot cur = call.snapshot();
      if (cur.state() != ToolCallState.RUNNING || cur.attempt() != c.nextAttempt() - 1) {
        return new TransitionResult<>(false, cur);
      }
      if (cur.version() >= Integer.MAX_VALUE - 1) {
        return new TransitionResult<>(false, cur); // its last version is kept for its end
      }
      ToolCallSnapshot nv = call.bounded(cur, cur.withChange(c, c.nextAttempt(), call.ticker().read()));
      if (call.installVersion(cur, nv)) {
        return new TransitionResult<>(true, nv);
      }
    }
  }
}
