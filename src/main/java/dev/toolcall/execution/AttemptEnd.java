package dev.toolcall.execution;

import dev.toolcall.Change;
import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.time.Duration;
import java.util.Objects;

/**
 * The end of one attempt of a {@link CallRun}: its result (through the interceptors' {@code after} and the result
 * check) completes the call, a transient failure schedules the next attempt under the tool's retry policy, any other
 * failure or the timeout fails the call with a message for the model. Whichever of the tool and the timeout finishes
 * the attempt first decides ({@link Attempt#finish()}); the other is counted as discarded. Stateless: each method
 * runs on the thread that ended the attempt, for the run it is given.
 */
final class AttemptEnd {

  private AttemptEnd() {
  }

  /** The attempt's timeout fired: unless the tool finished first, the call fails TIMEOUT. */
  static void timedOut(CallRun run, Attempt a, Duration timeout) {
    if (run.current != a || !a.finish()) {
      return;
    }
    failRun(run, FailureKind.TIMEOUT, "The tool did not finish within " + ErrorText.describe(timeout)
        + " and was stopped.");
  }

  /** The tool of attempt {@code a} returned {@code result} or threw {@code error}. */
  static void done(CallRun run, Attempt a, ToolResult result, Throwable error) {
    ToolScheduler sched = run.sched;
    ToolCall call = run.call;
    if (!a.finish()) {
      if (error == null) {
        sched.counters.discarded.increment(); // the timeout won
      }
      return;
    }
    a.timeout.cancel();
    Throwable t = error == null ? null : ErrorText.unwrap(error);
    if (call.isTerminal()) {
      if (t == null) {
        sched.counters.discarded.increment();
      }
      return;
    }
    if (t == null) {
      if (result == null) {
        failRun(run, FailureKind.NULL_RESULT, "The tool returned no result.");
        return;
      }
      ToolResult out = result;
      for (ToolInterceptor i : sched.interceptors) {
        try {
          out = Objects.requireNonNull(i.after(call.snapshot(), out), "interceptor returned null");
        } catch (RuntimeException | Error e) { // user code: an Error ends the call too
          ToolScheduler.log.warn("interceptor {} failed after call {} ({})", i.name(), call.callId(),
              call.toolName(), e);
          finishRun(run, () -> call.fail(FailureKind.TOOL_ERROR, "The tool's result could not be post-processed."));
          return;
        }
      }
      Validator.Invalid bad = sched.validator.checkResult(a.tool, out);
      if (bad != null) {
        finishRun(run, () -> call.fail(bad.kind(), bad.message()));
        return;
      }
      if (sched.store == null) { // the common case: no store, nothing to retry, nothing allocated for it
        RunOutput.flush(run);
        if (!call.complete(out).won()) {
          sched.counters.discarded.increment();
        }
        return;
      }
      ToolResult done = out;
      finishRun(run, () -> {
        if (!call.complete(done).won()) {
          sched.counters.discarded.increment();
        }
      });
      return;
    }
    RetryPolicy policy = a.tool.definition().retryPolicy();
    if (t instanceof TransientToolException && a.number < policy.maxAttempts()) {
      int next = a.number + 1;
      Duration delay = policy.delay(next, sched.random.getAsDouble());
      String why = messageOf(t);
      finishRun(run, () -> { // with a store that fails it, the retry's record is tried again until it lands
        TransitionResult<ToolCallSnapshot> r = call.scheduleRetry(next, delay, why);
        if (r.won()) {
          retryHook(run, () -> run.batch.retries.retryScheduled(call, (Change.RetryScheduled) r.snapshot().change()));
          sched.timer.schedule(() -> {
            retryHook(run, () -> run.batch.retries.retryStarting(call, next)); // published before the attempt starts
            run.attempt(a.tool, a.args, next, false);
          }, delay);
          if (sched.closed && !sched.handedOff) {
            call.cancel("the runtime was closed");
          }
        } else if (r.snapshot().state() == ToolCallState.RUNNING && r.snapshot().attempt() == next - 1) {
          call.fail(FailureKind.TOOL_ERROR, why + " (not tried again: the call has no version left for a retry,"
              + " only the last one, which its end takes)");
        }
      });
      return;
    }
    if (t instanceof dev.toolcall.OutcomeUnknownException) {
      failRun(run, FailureKind.OUTCOME_UNKNOWN, messageOf(t));
    } else if (t instanceof ToolException te) {
      String msg = messageOf(t);
      if (t instanceof TransientToolException && a.number > 1) {
        msg = msg + " (gave up after " + a.number + " attempts)";
      }
      failRun(run, te.kind(), msg); // TOOL_ERROR, or INVALID_ARGUMENTS: the tool found the model's arguments wrong
    } else if (t instanceof InterruptedException) {
      failRun(run, FailureKind.TOOL_ERROR, "The tool was interrupted.");
    } else if (t instanceof Error) {
      ToolScheduler.log.error("tool {} threw an Error on call {}", call.toolName(), call.callId(), t);
      failRun(run, FailureKind.INTERNAL_ERROR, "The tool crashed: " + safeErrorText(sched, t));
    } else {
      ToolScheduler.log.debug("tool {} failed on call {}", call.toolName(), call.callId(), t);
      failRun(run, FailureKind.TOOL_ERROR, safeErrorText(sched, t));
    }
  }

  /** Runs a {@link RetryListener} method (user code): one that throws is logged and the retry goes on. */
  private static void retryHook(CallRun run, Runnable hook) {
    if (run.batch.retries == RetryListener.NONE) {
      return;
    }
    try {
      hook.run();
    } catch (RuntimeException | Error e) {
      ToolScheduler.log.warn("retry listener failed on call {} ({})", run.call.callId(), run.call.toolName(), e);
    }
  }

  /**
   * Fails the call after its tool ran (or was started): each interceptor's {@link ToolInterceptor#afterFailure} may
   * rewrite the message for the model first. An interceptor that throws keeps the message as it was.
   */
  static void failRun(CallRun run, FailureKind kind, String message) {
    ToolCall call = run.call;
    String msg = message;
    for (ToolInterceptor i : run.sched.interceptors) {
      try {
        msg = Objects.requireNonNull(i.afterFailure(call.snapshot(), kind, msg), "interceptor returned null");
      } catch (RuntimeException | Error e) { // user code: the failure stands as it was
        ToolScheduler.log.warn("interceptor {} failed on the failure of call {} ({})", i.name(), call.callId(),
            call.toolName(), e);
      }
    }
    String why = msg;
    finishRun(run, () -> call.fail(kind, why));
  }

  /**
   * Makes an end (or a retry's record) of the call after its tool ran: its pending output is flushed first, so every
   * output event precedes it; with a store, both are tried again until they land (see {@link RunFailures#durably}).
   */
  static void finishRun(CallRun run, Runnable write) {
    if (run.sched.store == null) {
      RunOutput.flush(run);
      write.run();
      return;
    }
    RunFailures.durably(run, () -> {
      RunOutput.flush(run);
      write.run();
    });
  }

  static String messageOf(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  static String safeErrorText(ToolScheduler sched, Throwable t) {
    try {
      String s = sched.errorText.apply(t);
      return s == null || s.isBlank() ? "The tool failed." : s;
    } catch (RuntimeException | Error e) { // user code: an Error ends the call too
      ToolScheduler.log.warn("error-text hook failed", e);
      return "The tool failed.";
    }
  }
}
