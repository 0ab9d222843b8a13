package dev.toolcall.permission;

import dev.toolcall.DeadlineTimer;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** One waiting request. Immutable after construction except as noted. */
final class Pending {
  final long seq;
  final ToolCall call;
  final Duration timeout;
  /** The request as opened; {@link #request(ToolCallSnapshot)} rebuilds it for newer arguments. */
  final PermissionRequest request;
  /** Completed once, by finish(). */
  final CompletableFuture<ToolCallSnapshot> result = new CompletableFuture<>();
  /** Set once, by finish() (or by ask() when the request never opened). */
  final AtomicBoolean done = new AtomicBoolean();
  /** The deadline task; written by ask() and onDeadline(), read by finish(). */
  volatile DeadlineTimer.Handle timer;
  /**
   * How many times denying the call at its deadline failed on the call store (it was unreachable); racy counter,
   * written by whoever tried to deny it (the timer's retries, a late decision, the shared store's sweep).
   */
  volatile int denyFailures;
  /** The request for the latest arguments seen; racy cache of immutable values. */
  volatile PermissionRequest latest;

  Pending(long seq, ToolCall call, Duration timeout, PermissionRequest request) {
    this.seq = seq;
    this.call = call;
    this.timeout = timeout;
    this.request = request;
    this.latest = request;
  }

  /** The request as it is now, or null once the call left PERMISSION_PENDING. */
  PermissionRequest current() {
    ToolCallSnapshot s = call.snapshot();
    return done.get() || s.state() != ToolCallState.PERMISSION_PENDING ? null : request(s);
  }

  PermissionRequest request(ToolCallSnapshot s) {
    PermissionRequest r = latest;
    if (r.argumentsVersion() != s.argumentsVersion()) {
      r = request.withArguments(s.arguments(), s.argumentsVersion());
      latest = r;
    }
    return r;
  }

  void cancelTimer() {
    DeadlineTimer.Handle h = timer;
    if (h != null) {
      h.cancel();
    }
  }
}
