package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * How a {@link CallRun} ends when a step of its pipeline fails or its store fails a write: a rejected start fails the
 * call, an internal error fails it with a message for the model, a change that must not be lost is tried again until
 * the store takes it, and a change the store refuses for good ends the call FAILED. Stateless: the failure counts live
 * in the run.
 */
final class RunFailures {

  private RunFailures() {
  }

  /** The reason the model reads when the outcome of a call whose tool ran could not be stored. */
  static final String UNSTORABLE = "The tool ran, but its outcome could not be stored (the store refused it), so it"
      + " is lost. Check the tool's effects before calling it again.";

  /** A step failed with {@code t}: a rejected start fails the call; anything else is an internal error. */
  static void failed(CallRun run, Throwable t) {
    ToolScheduler sched = run.sched;
    ToolCall call = run.call;
    if (sched.handedOff) {
      return; // closed, handing the calls over: the call stays as stored, for another runtime
    }
    Throwable cause = ErrorText.unwrap(t);
    if (cause instanceof RejectedExecutionException) {
      sched.counters.rejections.increment();
      durably(run, () -> failOrCancel(call, FailureKind.EXECUTOR_REJECTED,
          "The tool could not be started: the runtime is overloaded or shutting down."));
    } else if (call.isTerminal()) {
      return; // ended meanwhile: nothing to do
    } else if (cause instanceof dev.toolcall.StaleCallException) { // another runtime moved it on: not ours to end
      ToolScheduler.log.warn("call {} ({}) was not run here: {}", call.callId(), call.toolName(), cause.toString());
    } else {
      ToolScheduler.log.error("scheduling failed for call {} ({})", call.callId(), call.toolName(), cause);
      try { // with a store that fails the write too, tried again until it lands
        durably(run, () -> failOrCancel(call, FailureKind.INTERNAL_ERROR, "The call could not be run: an internal"
            + " error occurred."));
      } catch (RuntimeException e) { // closing, or another runtime moved it on: the call stays as stored
        ToolScheduler.log.error("call {} ({}) could not be ended either: {}", call.callId(), call.toolName(),
            e.toString());
      }
    }
  }

  /** Ends the call whatever state it is in: FAILED when it can (through RUNNING), otherwise CANCELLED. */
  static void failOrCancel(ToolCall call, FailureKind kind, String message) {
    for (int i = 0; i < 4 && !call.isTerminal(); i++) {
      ToolCallSnapshot s = call.snapshot();
      if (s.state() == ToolCallState.RUNNING) {
        call.fail(kind, message);
      } else if (s.state().canTransitionTo(ToolCallState.RUNNING)) {
        call.transition(s.state(), ToolCallState.RUNNING, ToolScheduler.VALIDATING);
      } else {
        call.cancel(message);
      }
    }
  }

  /**
   * The store failed the claim to start the tool (it is down): nothing changed and the tool has not started, so the
   * whole start is tried again on the timer, backing off from 100 ms to 5 s, holding the permit, until the claim lands
   * or the call ends otherwise; closing the scheduler ends it as usual.
   */
  static void retryBegin(CallRun run, RuntimeException e) {
    ToolScheduler sched = run.sched;
    if (run.claimFailures++ == 0) {
      ToolScheduler.log.warn("call {} ({}) could not start: its store failed the write ({}); trying again until it"
          + " lands", run.call.callId(), run.call.toolName(), e.toString());
    }
    sched.timer.schedule(() -> {
      if (!sched.closed) { // closing cancels the call (or hands it over) by itself
        run.submit();
      }
    }, storeBackoff(run.claimFailures - 1));
  }

  /**
   * Makes a change of the call that must not be lost (its end, a retry's record, a cancel): with a store, a write the
   * store fails because it is unreachable (or a commit failed) is tried again on the timer, backing off from 100 ms to
   * 5 s, until it lands, the call ends otherwise (another runtime, a cancel), or the scheduler closes. So a store
   * outage delays the change, keeping the tool's outcome, and never leaves the call unended for good. A failure that
   * trying again cannot fix (the store cannot hold the value, see {@link dev.toolcall.CallStore#retriable}) ends the
   * call FAILED instead, with a reason for the model. Without a store the write cannot fail this way and runs once.
   */
  static void durably(CallRun run, Runnable write) {
    run.sched.writes.durably(run.call, write, 0, e -> unstorable(run, e));
  }

  /**
   * The store refused a change of the call for good: the call ends FAILED (or CANCELLED where it cannot fail) with a
   * reason the model reads, if the store takes that; otherwise it stays at its last stored version, logged.
   */
  static void unstorable(CallRun run, RuntimeException e) {
    ToolCall call = run.call;
    ToolScheduler.log.error("call {} ({}): its store refused the change in a way retrying cannot fix ({}); it ends"
        + " FAILED instead", call.callId(), call.toolName(), e.toString());
    String why = run.startedHere ? UNSTORABLE : "The call could not be stored (the store refused it), so its tool was"
        + " not run.";
    try {
      failOrCancel(call, FailureKind.INTERNAL_ERROR, why);
    } catch (RuntimeException again) {
      ToolScheduler.log.error("call {} ({}) could not be ended either ({}); it stays at its last stored version",
          call.callId(), call.toolName(), again.toString());
    }
  }

  /** The wait before trying a failed store write again after {@code failures} earlier tries: 100 ms doubling to 5 s. */
  static Duration storeBackoff(int failures) {
    return Duration.ofMillis(Math.min(5_000, 100L << Math.min(failures, 6)));
  }
}
