package dev.toolcall;

import java.time.Duration;
import java.time.Instant;

/**
 * A call's durable writes through a {@link CallStore}, and the adoption of a version another runtime sharing the store
 * wrote: the chain of versions this runtime rebuilds from what the store holds. Used by {@link ToolCall} only; no
 * state of its own.
 */
final class StoreAdoption {

  private StoreAdoption() {}

  /**
   * Writes {@code next} over {@code expected} through {@code store}. Returns null when written. A write another runtime
   * beat reads the call back and returns the chain to adopt (the caller then sees a lost race, as in memory); a store
   * that cannot read back, or holds nothing newer, makes it a {@link StaleCallException}.
   */
  static ToolCallSnapshot write(CallStore store, ToolCallSnapshot expected, ToolCallSnapshot next) {
    if (store.compareAndSet(expected, next)) {
      return null;
    }
    ToolCallIdentity id = expected.identity();
    CallRecord stored = store.read(id.sessionId(), id.callId()).orElse(null);
    if (stored == null || stored.version() <= expected.version()) {
      throw new StaleCallException(id.sessionId() + "/" + id.callId(), expected.version());
    }
    return adopted(expected, stored);
  }

  /**
   * Brings {@code call} up to the version {@code store} holds (see {@link ToolCall#refresh()}): adopts the chain
   * rebuilt from it, unless the call is at that version or past it, or has ended.
   */
  static ToolCallSnapshot refresh(ToolCall call, CallStore store) {
    ToolCallIdentity id = call.identity();
    CallRecord stored = store.read(id.sessionId(), id.callId()).orElse(null);
    for (;;) {
      ToolCallSnapshot cur = call.snapshot();
      if (stored == null || stored.version() <= cur.version() || cur.isTerminal()) {
        return cur;
      }
      if (call.adoptStored(cur, adopted(cur, stored))) {
        return call.snapshot();
      }
    }
  }

  /**
   * The chain from {@code cur} to the stored version {@code c}: one version per state change the store's path records
   * above {@code cur}'s version, the last being {@code c} itself (versions made elsewhere without a state change, such
   * as output, are not rebuilt).
   */
  static ToolCallSnapshot adopted(ToolCallSnapshot cur, CallRecord c) {
    ToolCallIdentity id = cur.identity();
    if (!id.sessionId().equals(c.sessionId()) || !id.callId().equals(c.callId())) {
      throw new IllegalArgumentException("stored call " + c.sessionId() + "/" + c.callId() + " is not call "
          + id.sessionId() + "/" + id.callId());
    }
    ToolArguments args = c.argumentsVersion() == cur.argumentsVersion() ? cur.arguments()
        : ToolArguments.ofText(c.arguments());
    ToolCallSnapshot s = cur;
    for (CallRecord.Step step : c.path()) {
      if (step.version() > s.version() && step.version() < c.version()) {
        s = new ToolCallSnapshot(id, step.state(), step.version(), args,
            Math.min(c.argumentsVersion(), step.version()), Math.max(s.attempt(),
            step.state() == ToolCallState.RUNNING ? 1 : 0), null, Reason.CHANGED_ELSEWHERE, tickOf(id, step.at()), s);
      }
    }
    CallRecord.Step last = c.path().get(c.path().size() - 1);
    Change change = Reason.CHANGED_ELSEWHERE;
    if (c.permission() != null) {
      change = new Change.PermissionAsked(c.permission().requestId(), c.argumentsVersion(), c.permission().deadline(),
          tickOf(id, c.permission().deadline()));
    } else if (c.state() == s.state() && c.state() == ToolCallState.RUNNING && c.attempt() > Math.max(1, s.attempt())) {
      change = new Change.RetryScheduled(c.attempt(), Duration.ZERO, "attempt " + c.attempt() + " was started by"
          + " another runtime sharing the store");
    } else if (c.state() == s.state() && c.argumentsVersion() != s.argumentsVersion()) {
      change = new Change.ArgumentsModified(s.arguments(), "another runtime sharing the store");
    }
    long tick = last.version() == c.version() ? tickOf(id, last.at()) : Math.max(s.tick(), tickOf(id, last.at()));
    return new ToolCallSnapshot(id, c.state(), c.version(), args, c.argumentsVersion(), c.attempt(), c.outcome(),
        change, tick, s);
  }

  private static long tickOf(ToolCallIdentity id, Instant at) {
    return CallRecord.tickAt(id.createdAt(), id.createdTick(), at);
  }
}
