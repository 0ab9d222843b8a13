package dev.toolcall.permission;

import dev.toolcall.Change;
import dev.toolcall.DeadlineTimer;
import dev.toolcall.OwnedStage;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * One waiting request. Immutable after construction except as noted. It is also the stage {@link
 * PermissionService#authorize} returned for it (completed only by {@link #release}, once resolved), its own deadline
 * task ({@link #run}, armed by {@link RequestDeadlines#arm}) and its own end action of the call ({@link #accept}), and
 * holds its done flag itself, so that a waiting request allocates no stage, lambda or flag object of its own. It keeps
 * no {@link PermissionRequest} either: the request's id, deadline and deadline tick are the call's
 * {@link Change.PermissionAsked}, its arguments the call's, so {@link #request} builds one when asked.
 */
final class Pending extends OwnedStage implements Runnable, Consumer<ToolCallSnapshot> {
  private static final VarHandle DONE;
  private static final VarHandle SETTLED;
  /** What {@link #settledAction} holds once its action was taken (or the stage completed with none). */
  private static final Object TAKEN = new Object();

  static {
    try {
      DONE = MethodHandles.lookup().findVarHandle(Pending.class, "done", boolean.class);
      SETTLED = MethodHandles.lookup().findVarHandle(Pending.class, "settledAction", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final PermissionService svc;
  final long seq;
  final ToolCall call;
  /** What the call recorded when the request opened: its id, deadline and deadline tick. */
  final Change.PermissionAsked asked;
  /** When the request was first opened, {@link PermissionRequest#createdAt()}: seconds and nanos, not an object. */
  final long createdSeconds;
  final int createdNanos;
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
  /**
   * The first {@link #onSettled} action (the scheduler's run waiting for the decision), kept here instead of in a
   * dependent stage: null, the action, or {@link #TAKEN} once whoever took it ran it. CAS-updated by any thread.
   */
  @SuppressWarnings("unused")
  private volatile Object settledAction;

  Pending(PermissionService svc, long seq, ToolCall call, Change.PermissionAsked asked, Instant createdAt) {
    super("an authorize stage completes only when the permission service decides");
    this.svc = svc;
    this.seq = seq;
    this.call = call;
    this.asked = asked;
    this.createdSeconds = createdAt.getEpochSecond();
    this.createdNanos = createdAt.getNano();
  }

  /** The request's id. */
  String id() {
    return asked.requestId();
  }

  /**
   * How long the request waits for a decision: from its opening to its deadline (the tool's or the service's
   * timeout), kept as those two instants, not as a field of its own.
   */
  Duration timeout() {
    return Duration.between(Instant.ofEpochSecond(createdSeconds, createdNanos), asked.deadline());
  }

  /** The request's deadline on the service's ticker. */
  long deadlineTick() {
    return asked.deadlineTick();
  }

  /** Whether the request has been resolved (or never opened). */
  boolean isResolved() {
    return done;
  }

  /** Marks the request resolved; true for the one caller that did so first. */
  boolean markDone() {
    return DONE.compareAndSet(this, false, true);
  }

  /** Completes the authorize stage with {@code s}; by the service only. Later calls do nothing. */
  void release(ToolCallSnapshot s) {
    settle(s);
    runSettled();
  }

  /** Keeps the first action in this request; a later one waits as on any stage. */
  @Override
  public void onSettled(Consumer<? super ToolCallSnapshot> action) {
    java.util.Objects.requireNonNull(action, "action");
    if (SETTLED.compareAndSet(this, null, action)) {
      if (isDone()) { // completed meanwhile: the completing thread may have found the slot empty
        runSettled();
      }
      return;
    }
    super.onSettled(action);
  }

  /** Runs the kept action, if any and not run yet: whoever takes it out of the slot runs it, once. */
  @SuppressWarnings("unchecked")
  private void runSettled() {
    Object a = SETTLED.getAndSet(this, TAKEN);
    if (a != null && a != TAKEN) {
      ToolCallSnapshot s = join();
      try {
        ((Consumer<? super ToolCallSnapshot>) a).accept(s);
      } catch (RuntimeException | Error e) { // the service's resolution goes on, as a stage's would
        org.slf4j.LoggerFactory.getLogger(dev.toolcall.OwnedStage.class).error(
            "an onSettled action failed for call {} ({})", s.callId(), s.toolName(), e);
      }
    }
  }

  /** The first deadline has come (the task {@link RequestDeadlines#arm} scheduled). */
  @Override
  public void run() {
    svc.timeouts.onDeadline(this, 0);
  }

  /**
   * The call has ended: the request is resolved with {@code terminal}, if nothing resolved it before. Only the call's
   * own terminal snapshot counts (this object is also the stage handed to the caller of authorize).
   */
  @Override
  public void accept(ToolCallSnapshot terminal) {
    if (terminal.isTerminal() && terminal == call.snapshot()) {
      svc.finish(this, terminal);
    }
  }

  /** The request as it is now, or null once the call left PERMISSION_PENDING. */
  PermissionRequest current() {
    ToolCallSnapshot s = call.snapshot();
    return done || s.state() != ToolCallState.PERMISSION_PENDING ? null : request(s);
  }

  /** The request with the arguments of {@code s}, a version of the call. */
  PermissionRequest request(ToolCallSnapshot s) {
    return new PermissionRequest(asked.requestId(), call.callId(), call.sessionId(), call.toolName(), s.arguments(),
        s.argumentsVersion(), Instant.ofEpochSecond(createdSeconds, createdNanos), asked.deadline(),
        asked.deadlineTick());
  }

  void cancelTimer() {
    DeadlineTimer.Handle h = timer;
    if (h != null) {
      h.cancel();
    }
  }
}
