package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.KnownCalls.CallKey;
import dev.toolcall.execution.KnownCalls.Known;
import dev.toolcall.tool.Tool;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls one {@link ToolScheduler} takes over from a runtime snapshot ({@link ToolScheduler#resume}): each keeps
 * its id, versions and attempts and joins one batch in the given order, re-validated against today's tools; by state
 * it is authorized again, re-asked, run once, or (stopped while its tool ran) run again when idempotent and failed
 * {@link FailureKind#OUTCOME_UNKNOWN} otherwise. Thread-safe as the scheduler is.
 */
final class RestoredCalls {

  private final ToolScheduler sched;

  RestoredCalls(ToolScheduler sched) {
    this.sched = sched;
  }

  /**
   * {@link ToolScheduler#resume} ({@code adopting} false) or {@link ToolScheduler#adopt} ({@code adopting} true: an id
   * known here already is left out, publishing nothing), its arguments checked.
   */
  Batch resume(String sessionId, List<ToolCallSnapshot> restored, Authorizer waiting, boolean adopting) {
    List<ToolCallSnapshot> snaps = List.copyOf(restored);
    for (ToolCallSnapshot s : snaps) {
      if (s.isTerminal() || !s.identity().sessionId().equals(sessionId)) {
        throw new IllegalArgumentException("restored must hold calls of session '" + sessionId
            + "' that have not ended; got " + s);
      }
    }
    BatchImpl batch = new BatchImpl(sched, snaps.size(), true);
    for (ToolCallSnapshot s : snaps) {
      Validator.Validation v = sched.validator.validate(s.toolName(), s.arguments().raw());
      ToolCallSnapshot typed = v instanceof Validator.Valid ok ? new ToolCallSnapshot(s.identity(), s.state(),
          s.version(), ok.arguments(), s.argumentsVersion(), s.attempt(), null, s.change(), s.tick(), s.previous())
          : s;
      CallKey key = new CallKey(sessionId, s.callId());
      Known mine = new Known();
      if (sched.known.reserve(key, mine) != null) {
        if (adopting) { // this runtime's own call (held, or ended since the row was read): the row is an older copy
          continue;
        }
        CallRequest req = CallRequest.of(s.callId(), s.toolName(), s.arguments().raw());
        ToolCall dup = sched.claims.duplicate(sessionId, req, "Tool call id '" + s.callId() + "' is already known in this"
            + " session, so the restored call was not run.");
        sched.claims.admit(new Claims.Claim(dup, null, false, null), batch, batch.append(dup), null, null);
        continue;
      }
      if (sched.store != null && !adopting) { // adopted calls were read from the store: nothing to create
        sched.store.create(typed); // false: stored already (restored from this store)
      }
      ToolCall call = ToolCall.restore(typed, sched.bus, sched.ticker, sched.store);
      mine.built(call);
      sched.counters.scheduled.increment();
      CallRun run = new CallRun(sched, call, v, batch, mine);
      Tool tool = v instanceof Validator.Valid ok ? ok.tool() : null;
      if (!typed.canEnd()) { // it could never end by its own path: ended now, before anything moves it
        String why = "The call was at version " + typed.version() + ", too close to the last version a call can"
            + " have (" + Integer.MAX_VALUE + ") to be " + (typed.state() == ToolCallState.RUNNING ? "run again"
            : "approved, run") + " and end, so it was not run" + (typed.state() == ToolCallState.RUNNING ? " again"
            : "") + ".";
        boolean running = typed.state() == ToolCallState.RUNNING;
        RunFailures.durably(run, () -> { // with a store that fails it, tried again until it lands
          if (running) {
            call.fail(FailureKind.OUTCOME_UNKNOWN, "Outcome unknown: the process stopped while the tool ran, so it"
                + " may have partly run. " + why + " Check its effects before calling it again.");
          } else {
            call.cancel(why);
          }
        });
        run.resumedDecision = call.whenTerminal().toCompletableFuture();
        tool = null;
      }
      if (tool != null) {
        switch (typed.state()) {
          case PERMISSION_PENDING -> run.resumedDecision = waiting.authorize(call, tool.definition());
          case PERMISSION_APPROVED -> run.resumedDecision = CompletableFuture.completedFuture(call.snapshot());
          case RUNNING -> { // a store shared with other runtimes lets one of them win each of these changes
            if (tool.definition().idempotent()) {
              run.resumedRunning = call.scheduleRetry(typed.attempt() + 1, Duration.ZERO, "The process stopped"
                  + " while attempt " + typed.attempt() + " ran; the tool is idempotent, so it runs again.").won();
              if (!run.resumedRunning && call.snapshot().state() == ToolCallState.RUNNING) { // no version for it
                call.fail(FailureKind.OUTCOME_UNKNOWN, "Outcome unknown: the process stopped while the tool ran, so"
                    + " it may have partly run. It was not run again: the call is one version short of the last"
                    + " one a call can have, which its end needs. Check its effects before calling it again.");
              }
            } else {
              call.fail(FailureKind.OUTCOME_UNKNOWN, "Outcome unknown: the process stopped while the tool ran, so"
                  + " it may have partly run. It was not run again; check its effects before calling it again.");
            }
            run.resumedDecision = CompletableFuture.completedFuture(call.snapshot());
          }
          default -> { } // PENDING: the authorizer decides, as for a new call
        }
      }
      int index = batch.append(call);
      if (call.identity().parentCallId() != null) {
        sched.nesting.link(call);
      }
      boolean readOnly = tool == null || tool.definition().readOnly();
      int turn = batch.attach(index, sched.order, readOnly, run);
      run.start(turn);
    }
    batch.seal();
    return batch;
  }
}
