package dev.toolcall.presentation;

import dev.toolcall.Change;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
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
import java.util.function.Supplier;
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
 * {@link #footer(Supplier)} adds lines of the application's own below the list (a status line, a prompt with what
 * has been typed so far): they are part of the region repainted in place, so nothing typed or printed there is torn
 * by a repaint. With a {@linkplain TerminalRenderer#height() height}, the live region (list and footer) is kept one
 * row shorter than the screen: the earliest lines of the list are left out, with a line that counts them, until the
 * last frame, which {@link #close()} draws in full and without the footer.
 *
 * <h2>Closing</h2>
 * {@link #close()} takes the events published before it was called, closes the subscriptions, draws a last frame
 * (plain: writes what was not yet written), stops the thread and waits for it to end (bounded: 5 s; not when called
 * on the display's own thread, which cannot wait for itself). It is idempotent; snapshots tracked after it are
 * ignored.
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
  private volatile Supplier<? extends List<String>> footer = List::of;

  // Touched by the display thread only (or by close() after that thread has ended).
  private int previousLines;
  private String previousFrame = "";
  private boolean paused;
  private final Map<String, Integer> loggedVersion = new HashMap<>();
  private final Map<String, StringBuilder> partialOutput = new HashMap<>();
  private final Map<String, Long> loggedChars = new HashMap<>();
  private boolean failedOnce;
  private boolean footerFailedOnce;

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

  /**
   * Lines to draw below the list in ANSI mode, asked for at every frame on the display's thread (so it must be quick
   * and must not block; it may be called concurrently with the application's threads changing what it returns).
   * Each line is sanitised like tool text and cut to the width. An exception or null counts as no lines (logged
   * once). Ignored in plain mode, where an application prints such lines itself ({@link #printAbove}).
   *
   * @return this display
   */
  public LiveDisplay footer(Supplier<? extends List<String>> lines) {
    this.footer = Objects.requireNonNull(lines, "lines");
    return this;
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
      draw(false);
      flushPartialOutput();
      out.flush();
      exec.shutdown();
      return;
    }
    try {
      Future<?> last = exec.submit(() -> {
        paused = false;
        draw(false);
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
    draw(true);
  }

  /**
   * Draws a frame. {@code live}: with the footer and within the height; otherwise the last frame: the whole list,
   * no footer.
   */
  private void draw(boolean live) {
    if (paused) {
      return;
    }
    if (!renderer.ansi()) {
      if (!latest.isEmpty()) {
        logNewVersions(CallTree.of(latest.values()));
      }
      return;
    }
    List<String> foot = live ? footerLines() : List.of();
    if (latest.isEmpty() && foot.isEmpty() && previousLines == 0) {
      return;
    }
    long now = renderer.presenter().ticker().read();
    List<String> lines = new ArrayList<>(latest.isEmpty() ? List.of()
        : renderer.lines(renderer.presenter().views(CallTree.of(latest.values()), now, Map.of()), now));
    if (live && renderer.height() > 0) {
      fit(lines, foot, renderer.height() - 1);
    } else {
      lines.addAll(foot);
    }
    StringBuilder b = new StringBuilder();
    for (String line : lines) {
      b.append(line).append('\n');
    }
    String frame = b.toString();
    if (!frame.equals(previousFrame)) {
      out.print(renderer.repaint(previousLines, frame));
      out.flush();
      previousLines = lines.size();
      previousFrame = frame;
    }
  }

  /**
   * Makes {@code lines} the list's lines followed by the footer's, at most {@code max} in all: the footer's last
   * lines are kept first, then the list's last lines under a line that counts the ones left out.
   */
  private void fit(List<String> lines, List<String> foot, int max) {
    if (foot.size() >= max) {
      lines.clear();
      lines.addAll(foot.subList(foot.size() - max, foot.size()));
      return;
    }
    int room = max - foot.size();
    if (lines.size() > room) {
      int keep = room - 1;
      int hidden = lines.size() - keep;
      List<String> tail = new ArrayList<>(lines.subList(lines.size() - keep, lines.size()));
      lines.clear();
      lines.add(renderer.plainLine("… " + hidden + (hidden == 1 ? " line" : " lines") + " above",
          TerminalRenderer.dim()));
      lines.addAll(tail);
    }
    lines.addAll(foot);
  }

  private List<String> footerLines() {
    List<String> raw;
    try {
      raw = footer.get();
    } catch (RuntimeException e) {
      if (!footerFailedOnce) {
        footerFailedOnce = true;
        log.warn("live display footer failed; drawn without it", e);
      }
      return List.of();
    }
    if (raw == null || raw.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>(raw.size());
    for (String line : raw) {
      out.add(renderer.plainLine(line == null ? "" : line, null));
    }
    return out;
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
          long missed = o.outputChars() - o.chunk().length() - loggedChars.getOrDefault(s.callId(), 0L);
          loggedChars.put(s.callId(), o.outputChars());
          if (missed > 0) { // chunks the call's history let go before this display got to them: the tail has the end
            int inTail = Math.max(0, o.tail().length() - o.chunk().length());
            if (missed > inTail) {
              flushPartial(s.callId(), v, b);
              b.append(renderer.body(v, "… " + (missed - inTail) + " chars of output not shown", null)).append('\n');
              partial = partialOutput.computeIfAbsent(s.callId(), k -> new StringBuilder());
              missed = inTail;
            }
            partial.append(o.tail(), (int) (inTail - missed), inTail);
          }
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
        if (c instanceof Change.ArgumentsModified && s.state() == ToolCallState.PENDING) {
          continue; // arguments still arriving from the model's stream: the next state's line shows them whole
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
