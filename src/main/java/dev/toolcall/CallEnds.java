package dev.toolcall;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What waits for a call's end, kept in its one field {@link ToolCall#ends} with no stage per waiter: null while nothing
 * waits; one waiter (the {@link TerminalStage} of {@link ToolCall#whenTerminal()}, or an action of
 * {@link ToolCall#onTerminal}); an {@code Object[]} of them, oldest first; and, once the waiters were taken out at the
 * end, the stage (completed) or, without one, the terminal snapshot (which the call holds anyway).
 *
 * <p>Exactly once: whoever takes the waiters out of the field by compare-and-set runs them, so each waiter runs once.
 * The end is run by the thread that handed off the terminal version ({@link ToolCall#afterHandOff}) and by every thread
 * that added a waiter and then finds that version handed off ({@link ToolCall#endIfHandedOff}); the drain's release and
 * the adding compare-and-set are both full fences, so at least one of the two sees the other. No state of its own.
 */
final class CallEnds {

  private static final Logger log = LoggerFactory.getLogger(ToolCall.class);
  private static final VarHandle ENDS;

  static {
    try {
      ENDS = MethodHandles.lookup().findVarHandle(ToolCall.class, "ends", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private CallEnds() {}

  /** {@link ToolCall#whenTerminal()}: the call's one stage, made on the first request. */
  static TerminalStage stage(ToolCall call) {
    for (;;) {
      Object e = call.ends;
      TerminalStage f = stageIn(e);
      if (f != null) {
        return f;
      }
      TerminalStage created = new TerminalStage();
      if (e instanceof ToolCallSnapshot t) { // ended, its waiters ran: the stage is complete from the start
        created.release(t);
        if (ENDS.compareAndSet(call, e, created)) {
          return created;
        }
      } else if (ENDS.compareAndSet(call, e, with(e, created))) {
        call.endIfHandedOff();
        return created;
      }
    }
  }

  /** {@link ToolCall#onTerminal}: runs {@code action} at the end, or now when the call has ended. */
  static void add(ToolCall call, Consumer<? super ToolCallSnapshot> action) {
    for (;;) {
      Object e = call.ends;
      ToolCallSnapshot t = ended(e);
      if (t != null) {
        run(call, action, t);
        return;
      }
      if (ENDS.compareAndSet(call, e, with(e, action))) {
        call.endIfHandedOff();
        return;
      }
    }
  }

  /** The terminal version {@code t} has been handed off: runs the waiters not run yet, newest first, each once. */
  static void end(ToolCall call, ToolCallSnapshot t) {
    for (;;) {
      Object e = call.ends;
      if (e == null || ended(e) != null) {
        return; // nothing waits (a waiter added later runs itself), or the waiters were taken already
      }
      TerminalStage f = stageIn(e);
      if (ENDS.compareAndSet(call, e, f != null ? f : t)) {
        if (e instanceof Object[] all) {
          for (int i = all.length - 1; i >= 0; i--) { // newest first, as a stage runs its dependents
            run(call, all[i], t);
          }
        } else {
          run(call, e, t);
        }
        return;
      }
    }
  }

  /** The terminal snapshot when {@code e} says the waiters were taken, else null. */
  private static ToolCallSnapshot ended(Object e) {
    if (e instanceof ToolCallSnapshot t) {
      return t;
    }
    return e instanceof TerminalStage f && f.isDone() ? f.join() : null;
  }

  /** The stage among the waiters {@code e}, or null. */
  private static TerminalStage stageIn(Object e) {
    if (e instanceof TerminalStage f) {
      return f;
    }
    if (e instanceof Object[] all) {
      for (Object w : all) {
        if (w instanceof TerminalStage f) {
          return f;
        }
      }
    }
    return null;
  }

  /** The waiters {@code e} with {@code w} added. */
  private static Object with(Object e, Object w) {
    if (e == null) {
      return w;
    }
    if (e instanceof Object[] all) {
      Object[] more = Arrays.copyOf(all, all.length + 1);
      more[all.length] = w;
      return more;
    }
    return new Object[] {e, w};
  }

  @SuppressWarnings("unchecked")
  private static void run(ToolCall call, Object waiter, ToolCallSnapshot t) {
    if (waiter instanceof TerminalStage f) {
      f.release(t);
      return;
    }
    try {
      ((Consumer<? super ToolCallSnapshot>) waiter).accept(t);
    } catch (RuntimeException | Error ex) { // one action must not keep the others from running
      log.error("an onTerminal action of call {} ({}) failed", call.callId(), call.toolName(), ex);
    }
  }
}
