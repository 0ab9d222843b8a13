package dev.toolcall.presentation;

import dev.toolcall.Change;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.Subscription;
import dev.toolcall.event.ToolCallEvent;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A live list of tool calls on a {@link PrintStream}, drawn by a {@link TerminalRenderer} on one daemon thread this
 * display owns ({@code toolcall-live-display}).
 *
 * <h2>Feeding it</h2>
 * {@link #attach(EventBus)} subscribes to a bus with the display's own thread as the listener's executor (the
 * threads that change calls only enqueue); {@link #track(ToolCallSnapshot)} hands it a snapshot directly. Of
 * several snapshots of one call the highest version wins, whatever order they arrive in.
 *
 * <h2>Drawing</h2>
 * <ul>
 *   <li>ANSI: every {@code refresh} period the frame of all calls is drawn as of the presenter's ticker; when it
 *       differs from the last one written, it replaces it in place ({@link TerminalRenderer#repaint}). So the screen
 *       is repainted at most once a period, however many events arrive.</li>
 *   <li>Plain: an append-only log. Every version of every call is written once, in version order per call: a line
 *       per state change, retry and argument change, and each complete line of live output (a partial last line is
 *       written when the call ends). Nothing is ever rewritten, and no escape code is written.</li>
 * </ul>
 * {@link #pause()} freezes the display (for a prompt below it), {@link #resume()} starts a fresh region below
 * whatever was printed meanwhile, {@link #printAbove(String)} prints text and redraws the list under it.
 *
 * <h2>Closing</h2>
 * {@link #close()} takes the events published before it was called, closes the subscriptions, draws a last frame (plain: writes what was not yet written), stops the
 * thread and waits for it to end (bounded: 5 s; not when called on the display's own thread, which cannot wait for
 * itself). It is idempotent; snapshots tracked after it are ignored.
 *
 * <p>All methods are thread-safe. A listener exception cannot stop the display: a failing repaint is logged and the
 * next period tries again.
 */
public final class LiveDisplay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LiveDisplay.class);
  private static final long WAIT_SECONDS = 5;

  private final TerminalRenderer renderer;
  private final PrintStream out;
  private final ScheduledThreadPoolExecutor exec;
  private final Thread thread;
  private final Map<String, ToolCallSnapshot> latest = new ConcurrentHashMap<>();
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  // Touched by the display thread only (or by close() after that thread has ended).
  private int previousLines;
  private String previousFrame = "";
  private boolean paused;
  private final Map<String, Integer> loggedVersion = new HashMap<>();
  private final Map<String, StringBuilder> partialOutput = new HashMap<>();
  private boolean failedOnce;

  LiveDisplay(TerminalRenderer renderer, PrintStream out, Duration refresh) {
    this.renderer = Objects.requireNonNull(renderer, "renderer");
    this.out = Objects.requireNonNull(out, "out");
    Objects.requireNonNull(refresh, "refresh");
    if (refresh.compareTo(Duration.ofMillis(10)) < 0 || refresh.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("refresh must be between 10 ms and 1 s, was " + refresh);
    }
    Thread[] made = new Thread[1];
    this.exec = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "toolcall-live-display");
      t.setDaemon(true);
      made[0] = t;
      return t;
    });
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    exec.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    exec.prestartCoreThread();
    this.thread = made[0];
    long period = refresh.toNanos();
    exec.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
  }

  /**
   * Follows every call published on {@code bus} from now on; the subscription runs on this display's thread and is
   * closed with the display.
   *
   * @return this display
   * @throws IllegalStateException if the display is closed
   */
  public LiveDisplay attach(EventBus bus) {
    Objects.requireNonNull(bus, "bus");
    if (closed.get()) {
      throw new IllegalStateException("the live display is closed");
    }
    Subscription s = bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event event) {
        if (event instanceof ToolCallEvent e) {
          merge(e.snapshot()); // not track(): events published before close() still count
        }
      }

      @Override
      public String toString() {
        return "LiveDisplay listener";
      }
    }, exec);
    subscriptions.add(s);
    if (closed.get()) {
      s.close();
    }
    return this;
  }

  /** Shows {@code snapshot}'s call, unless a higher version of it is already shown or the display is closed. */
  public void track(ToolCallSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    if (!closed.get()) {
      merge(snapshot);
    }
  }

  private void merge(ToolCallSnapshot snapshot) {
    latest.merge(snapshot.callId(), snapshot, (a, b) -> b.version() > a.version() ? b : a);
  }

  /** The latest snapshot of every call shown, in no particular order. */
  public List<ToolCallSnapshot> snapshots() {
    return List.copyOf(latest.values());
  }

  /** Draws now instead of at the next period; returns once drawn. */
  public void refresh() {
    onDisplayThread(this::draw);
  }

  /** Stops drawing; what is on the screen stays. Returns once no more drawing happens. */
  public void pause() {
    onDisplayThread(() -> {
      draw();
      paused = true;
    });
  }

  /** Draws again, in a fresh region below whatever was printed while paused. */
  public void resume() {
    onDisplayThread(() -> {
      paused = false;
      previousLines = 0;
      previousFrame = "";
      draw();
    });
  }

  /**
   * Prints {@code text} (a line break is added if it lacks one) above the list: in ANSI mode the list is cleared,
   * the text printed and the list drawn again below it; in plain mode the text is appended after the log so far.
   */
  public void printAbove(String text) {
    Objects.requireNonNull(text, "text");
    String t = text.endsWith("\n") ? text : text + "\n";
    onDisplayThread(() -> {
      if (renderer.ansi() && previousLines > 0 && !paused) {
        out.print("\r" + TerminalRenderer.ESC + "[" + previousLines + "A" + TerminalRenderer.ESC + "[J");
        previousLines = 0;
        previousFrame = "";
      } else if (!renderer.ansi()) {
        draw();
      }
      out.print(t);
      out.flush();
      draw();
    });
  }

  /** Whether {@link #close()} has been called. */
  public boolean isClosed() {
    return closed.get();
  }

  /** Closes the subscriptions, draws the last frame, and stops the display's thread, waiting for it (5 s at most). */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (Thread.currentThread() != thread) {
      // Events published before close() sit in the display thread's queue (a bus subscription's serial executor
      // runs on it): a barrier behind them lets them arrive before the subscriptions close.
      try {
        exec.submit(() -> { }).get(WAIT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
        log.warn("live display did not take the events published before close", e);
      }
    }
    for (Subscription s : subscriptions) {
      s.close();
    }
    if (Thread.currentThread() == thread) { // closed from a listener or task: finish here, cannot wait for itself
      paused = false;
      draw();
      flushPartialOutput();
      out.flush();
      exec.shutdown();
      return;
    }
    try {
      Future<?> last = exec.submit(() -> {
        paused = false;
        draw();
        flushPartialOutput();
        out.flush();
      });
      exec.shutdown();
      last.get(WAIT_SECONDS, TimeUnit.SECONDS);
      if (exec.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)) {
        thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exec.shutdownNow();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      log.warn("live display did not draw its last frame", e);
      exec.shutdownNow();
    }
  }

  /** The display's thread, for tests that check it ends. */
  Thread thread() {
    return thread;
  }

  private void onDisplayThread(Runnable task) {
    if (Thread.currentThread() == thread) {
      task.run();
      return;
    }
    if (closed.get()) {
      return;
    }
    try {
      exec.submit(task).get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RejectedExecutionException e) {
      // closed meanwhile: close() drew the last frame
    } catch (ExecutionException | TimeoutException e) {
      log.warn("live display task failed", e);
    }
  }

  private void tick() {
    try {
      draw();
    } catch (RuntimeException e) { // never let one bad frame end the periodic task
      if (!failedOnce) {
        failedOnce = true;
        log.warn("live display could not draw a frame; it keeps trying", e);
      }
    }
  }

  private void draw() {
    if (paused || latest.isEmpty()) {
      return;
    }
    CallTree tree = CallTree.of(latest.values());
    if (renderer.ansi()) {
      long now = renderer.presenter().ticker().read();
      String frame = renderer.renderFrame(renderer.presenter().views(tree, now, Map.of()), now);
      if (!frame.equals(previousFrame)) {
        out.print(renderer.repaint(previousLines, frame));
        out.flush();
        previousLines = TerminalRenderer.lineCount(frame);
        previousFrame = frame;
      }
    } else {
      logNewVersions(tree);
    }
  }

  /** Plain mode: writes every version not yet written, per call in tree order, oldest first. */
  private void logNewVersions(CallTree tree) {
    StringBuilder b = new StringBuilder();
    Presenter p = renderer.presenter();
    for (CallTree.Node n : tree.nodes()) {
      ToolCallSnapshot cur = n.snapshot();
      int done = loggedVersion.getOrDefault(n.callId(), -1);
      if (cur.version() <= done) {
        continue;
      }
      List<ToolCallSnapshot> fresh = new ArrayList<>();
      for (ToolCallSnapshot s = cur; s != null && s.version() > done; s = s.previous()) {
        fresh.add(s);
      }
      for (int i = fresh.size() - 1; i >= 0; i--) {
        ToolCallSnapshot s = fresh.get(i);
        ToolCallView v = p.view(s, s.tick(), n.depth(), n.hasNested(), null);
        Change c = s.change();
        if (c instanceof Change.OutputAppended o) {
          StringBuilder partial = partialOutput.computeIfAbsent(s.callId(), k -> new StringBuilder());
          partial.append(o.chunk());
          int nl;
          while ((nl = partial.indexOf("\n")) >= 0) {
            for (String line : Text.lines(partial.substring(0, nl + 1))) {
              b.append(renderer.body(v, Text.sanitize(line), null)).append('\n');
            }
            partial.delete(0, nl + 1);
          }
          continue;
        }
        if (s.isTerminal()) {
          flushPartial(s.callId(), v, b);
        }
        boolean withTimes = v.isTerminal() || v.countdown().isPresent() || c instanceof Change.RetryScheduled;
        b.append(renderer.header(v, s.tick(), withTimes)).append('\n');
        if (c instanceof Change.ArgumentsModified m) {
          b.append(renderer.body(v, "arguments modified by " + Text.sanitize(m.by()), null)).append('\n');
        }
        if (s.isTerminal()) {
          if (v.error().isPresent() && v.showContent()) {
            b.append(renderer.body(v, Text.sanitize(Text.preview(v.error().get(), 1000)), null)).append('\n');
          } else if (v.result().isPresent()) {
            List<String> rl = Text.lines(v.result().get());
            if (!rl.isEmpty()) {
              b.append(renderer.body(v, Text.sanitize(rl.get(0)) + (rl.size() > 1 ? " …" : ""), null))
                  .append('\n');
            }
          }
        }
      }
      loggedVersion.put(n.callId(), cur.version());
    }
    if (b.length() > 0) {
      out.print(b);
      out.flush();
    }
  }

  private void flushPartialOutput() {
    if (renderer.ansi()) {
      return;
    }
    StringBuilder b = new StringBuilder();
    for (CallTree.Node n : CallTree.of(latest.values()).nodes()) {
      flushPartial(n.callId(), renderer.presenter().view(n.snapshot(), n.snapshot().tick(), n.depth(),
          n.hasNested(), null), b);
    }
    out.print(b);
  }

  private void flushPartial(String callId, ToolCallView v, StringBuilder b) {
    StringBuilder partial = partialOutput.remove(callId);
    if (partial != null && partial.length() > 0) {
      for (String line : Text.lines(partial.toString())) {
        b.append(renderer.body(v, Text.sanitize(line), null)).append('\n');
      }
    }
  }

  @Override
  public String toString() {
    return "LiveDisplay[" + renderer + ", " + latest.size() + " calls" + (closed.get() ? ", closed" : "") + "]";
  }
}
