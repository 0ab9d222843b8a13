package dev.toolcall.permission;

import dev.toolcall.DeadlineTimer;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One waiting request. Immutable after construction except as noted. It is also its own deadline task ({@link #run},
 * armed by {@link RequestDeadlines#arm}) and its own callback for the call's end ({@link #accept}), and holds its
 * done flag itself, so that a waiting request allocates no lambda and no flag object of its own.
 */
final class Pending implements Runnable, Consumer<ToolCallSnapshot> {
  private static final VarHandle DONE;

  static {
    try {
      DONE = MethodHandles.lookup().findVarHandle(Pending.class, "done", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final PermissionService svc;
  final long seq;
  final ToolCall call;
  final Duration timeout;
  /** The request as opened; {@link #request(ToolCallSnapshot)} rebuilds it for newer arguments. */
  final PermissionRequest request;
  /** Completed once, by finish(). */
  final DecidedStage result = new DecidedStage();
  /** Set once, by finish() (or by ask() when the request never opened): see {@link #markDone}. */
  @SuppressWarnings("unused")
  private volatile boolean done;
  /** The deadline task; written by ask() and onDeadline(), read by finish(). */
  volatile DeadlineTimer.Handle timer;
  /**
   * How many times denying the call at its deadline failed on the call store (it was unreachable); racy counter,
   * written by whoever tried to deny it (the timer's retries, a late decision, the shared store's sweep).
   */
  volatile int denyFailures;
  /** The request for the latest arguments seen; racy cache of immutable values. */
  volatile PermissionRequest latest;

  Pending(PermissionService svc, long seq, ToolCall call, Duration timeout, PermissionRequest request) {
    this.svc = svc;
    this.seq = seq;
    this.call = call;
    this.timeout = timeout;
    this.request = request;
    this.latest = request;
  }

  /** Whether the request has been resolved (or never opened). */
  boolean isDone() {
    return done;
  }

  /** Marks the request resolved; true for the one caller that did so first. */
  boolean markDone() {
    return DONE.compareAndSet(this, false, true);
  }

  /** The first deadline has come (the task {@link RequestDeadlines#arm} scheduled). */
  @Override
  public void run() {
    svc.timeouts.onDeadline(this, 0);
  }

  /** The call has ended: the request is resolved with {@code terminal}, if nothing resolved it before. */
  @Override
  public void accept(ToolCallSnapshot terminal) {
    svc.finish(this, terminal);
  }

  /** The request as it is now, or null once the call left PERMISSION_PENDING. */
  PermissionRequest current() {
    ToolCallSnapshot s = call.snapshot();
    return done || s.state() != ToolCallState.PERMISSION_PENDING ? null : request(s);
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
