package dev.toolcall.event;

import com.google.common.util.concurrent.MoreExecutors;
import dev.toolcall.ToolCallPublisher;
import dev.toolcall.ToolCallSnapshot;
import java.util.Arrays;
import java.util.Objects;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans events out to subscribed listeners.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Order.</b> Per source (one call), every subscriber sees the events in version order, each exactly once,
 *       even when racing threads made the changes: the source hands its versions to the bus one at a time and in
 *       order (see {@link dev.toolcall.fsm.StateCell}).</li>
 *   <li><b>No gap.</b> A subscriber added while events flow sees every event of a source from its first one on.</li>
 *   <li><b>Close.</b> After {@link Subscription#close()} returns, the listener is not invoked again.</li>
 *   <li><b>Isolation.</b> A listener that throws is logged (SLF4J, with the source id and event type) and skipped;
 *       other listeners, the call, and its own later events go on. This holds for every {@link Throwable}, a
 *       {@link VirtualMachineError} included (a {@link StackOverflowError} from a runaway listener, say): it is
 *       logged at ERROR and never rethrown, because the thread that publishes is the one that changed the call
 *       (a tool's, a timer's, a person's), and a throw there would leave the call's waiters unreleased. A process
 *       that must stop on {@link OutOfMemoryError} should say so to the JVM ({@code -XX:+ExitOnOutOfMemoryError}).
 *       </li>
 *   <li><b>One at a time.</b> A listener is never invoked concurrently with itself, whichever calls and threads
 *       the events come from, so it needs no locking of its own. For an inline listener this is a lock per
 *       subscription: threads publishing to the same inline listener take turns (which is also why one shared
 *       inline subscriber does not scale with publishing threads; give a busy listener an executor, or each
 *       thread's calls their own bus).</li>
 *   <li><b>Two modes.</b> An inline listener runs on the thread that made the change (fast; must not block). A
 *       listener with an executor runs there, in order, through its own serial queue, and never slows the changing
 *       thread. If that executor rejects a task, the event is delivered inline and the rejection is logged: nothing
 *       is lost.</li>
 * </ul>
 *
 * <p>Thread-safe. Subscribing and closing are copy-on-write; publishing reads one volatile array.
 */
public final class EventBus implements ToolCallPublisher {

  private static final Logger log = LoggerFactory.getLogger(EventBus.class);
  private static final Sub[] NONE = new Sub[0];

  /** Copy-on-write; replaced under {@code this}. */
  private volatile Sub[] subs = NONE;

  private EventBus() {}

  /** A new bus with no subscribers. */
  public static EventBus create() {
    return new EventBus();
  }

  /** Subscribes an inline listener: it runs on the changing thread and must be quick. */
  public Subscription subscribe(EventListener listener) {
    return add(new Sub(this, Objects.requireNonNull(listener, "listener"), null));
  }

  /**
   * Subscribes a listener that runs on {@code executor} (a UI thread, say), in event order, one event at a time.
   * The changing thread only enqueues.
   */
  public Subscription subscribe(EventListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    return add(new Sub(this, listener, MoreExecutors.newSequentialExecutor(executor)));
  }

  /** Whether anyone is subscribed; sources skip building events when nobody is. */
  public boolean hasSubscribers() {
    return subs.length != 0;
  }

  /** The number of open subscriptions. */
  public int subscriberCount() {
    return subs.length;
  }

  /**
   * Publishes one version of a tool call as a {@link ToolCallEvent} (the event is built only when someone is
   * subscribed): what a {@link dev.toolcall.ToolCall} publishing on this bus calls. Same guarantees as
   * {@link #publish(Event)}.
   */
  @Override
  public void publish(ToolCallSnapshot version) {
    Objects.requireNonNull(version, "version");
    if (subs.length != 0) {
      publish(ToolCallEvent.of(version));
    }
  }

  /**
   * Delivers {@code event} to every current subscriber. Sources call this once per version, in order, never
   * concurrently for the same source; it never throws because of a listener.
   */
  public void publish(Event event) {
    Objects.requireNonNull(event, "event");
    for (Sub s : subs) {
      s.offer(event);
    }
  }

  private synchronized Subscription add(Sub sub) {
    Sub[] cur = subs;
    Sub[] next = Arrays.copyOf(cur, cur.length + 1);
    next[cur.length] = sub;
    subs = next;
    return sub;
  }

  private synchronized void remove(Sub sub) {
    Sub[] cur = subs;
    for (int i = 0; i < cur.length; i++) {
      if (cur[i] == sub) {
        Sub[] next = new Sub[cur.length - 1];
        System.arraycopy(cur, 0, next, 0, i);
        System.arraycopy(cur, i + 1, next, i, cur.length - i - 1);
        subs = next;
        return;
      }
    }
  }

  static void invokeIsolated(EventListener listener, Event event) {
    try {
      listener.onEvent(event);
    } catch (VirtualMachineError e) { // isolation, Errors of the VM included: never rethrown (see the class doc)
      log.error("event listener {} threw {} on {} v{} of {}; delivery goes on", listener,
          e.getClass().getSimpleName(), event.getClass().getSimpleName(), event.version(), event.sourceId(), e);
    } catch (Throwable t) { // isolation: a listener's failure is its own
      log.warn("event listener {} threw on {} v{} of {}; it stays subscribed", listener,
          event.getClass().getSimpleName(), event.version(), event.sourceId(), t);
    }
  }

  /**
   * One subscription: the listener, its optional serial executor, its closed flag, and the lock that serialises its
   * invocations and its close.
   *
   * <p>The lock is the thread holding it, in {@code owner}: taken by one compare-and-set, released by an ordered store
   * (no atomic operation), re-entrant (a listener that changes another call of the same bus from inside its callback
   * is invoked again at once, as with a JDK monitor). Threads that find it held spin briefly, then queue and park; the
   * releaser wakes the first queued thread. A waiter that queued in the instant the holder released may be missed by
   * that wake-up (the release is not a fence); it then wakes by itself after its park times out (10 µs, doubling up
   * to 1 ms) and tries again, so no wake-up is ever lost for good. The uncontended path is one compare-and-set per
   * event, where a monitor takes two (enter and exit).
   */
  private static final class Sub implements Subscription {
    private static final VarHandle OWNER;
    private static final int SPINS = 64;
    private static final long FIRST_PARK_NANOS = 10_000;
    private static final long MAX_PARK_NANOS = 1_000_000;

    static {
      try {
        OWNER = MethodHandles.lookup().findVarHandle(Sub.class, "owner", Thread.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final EventBus bus;
    private final EventListener listener;
    private final Executor serial; // null for inline
    private volatile boolean closed; // written under the lock
    @SuppressWarnings("unused")
    private volatile Thread owner; // the lock: the thread invoking the listener or closing, or null
    private final ConcurrentLinkedQueue<Thread> waiting = new ConcurrentLinkedQueue<>();

    Sub(EventBus bus, EventListener listener, Executor serial) {
      this.bus = bus;
      this.listener = listener;
      this.serial = serial;
    }

    void offer(Event event) {
      if (serial == null) {
        deliver(event);
        return;
      }
      try {
        serial.execute(() -> deliver(event));
      } catch (RejectedExecutionException e) {
        log.warn("executor of listener {} rejected {} of {}; delivering inline", listener,
            event.getClass().getSimpleName(), event.sourceId(), e);
        deliver(event);
      }
    }

    private void deliver(Event event) {
      Thread me = Thread.currentThread();
      if (owner == me) { // re-entrant: this thread holds the lock further up its stack
        if (!closed) {
          invokeIsolated(listener, event);
        }
        return;
      }
      lock(me);
      try {
        if (!closed) {
          invokeIsolated(listener, event);
        }
      } finally {
        unlock();
      }
    }

    private void lock(Thread me) {
      if (!OWNER.compareAndSet(this, null, me)) {
        lockContended(me);
      }
    }

    private void unlock() {
      OWNER.setRelease(this, null);
      Thread next = waiting.peek();
      if (next != null) {
        LockSupport.unpark(next);
      }
    }

    private void lockContended(Thread me) {
      for (int i = 0; i < SPINS; i++) {
        Thread.onSpinWait();
        if (owner == null && OWNER.compareAndSet(this, null, me)) {
          return;
        }
      }
      waiting.add(me);
      boolean interrupted = false;
      try {
        long park = FIRST_PARK_NANOS;
        while (!(owner == null && OWNER.compareAndSet(this, null, me))) {
          LockSupport.parkNanos(this, park);
          park = Math.min(park * 2, MAX_PARK_NANOS);
          interrupted |= Thread.interrupted(); // as a monitor: waiting is not interruptible; the flag is kept
        }
      } finally {
        waiting.remove(me);
        if (interrupted) {
          me.interrupt();
        }
      }
    }

    @Override
    public void close() {
      Thread me = Thread.currentThread();
      if (owner == me) { // from inside its own callback
        closed = true;
      } else {
        lock(me);
        try {
          closed = true;
        } finally {
          unlock();
        }
      }
      bus.remove(this);
    }

    @Override
    public boolean isClosed() {
      return closed;
    }

    @Override
    public String toString() {
      return "Subscription[" + listener + (serial == null ? ", inline" : ", executor") + "]";
    }
  }
}
