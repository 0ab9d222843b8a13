package dev.toolcall.presentation;

import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Draws {@link ToolCallView}s as lines of terminal text: per call its icon, colour, label, spinner frame, permission
 * countdown, attempt and duration, nested calls indented under their parent, and (when the call shows content) its
 * details, live output tail, result or error.
 *
 * <h2>Two modes</h2>
 * <ul>
 *   <li><b>ANSI</b>: colours as SGR codes (256-colour palette), animations drawn as a function of the frame's time,
 *       lines cut to the terminal width so none wraps, and {@link #repaint} moves the cursor up over the previous
 *       frame and clears each line it rewrites.</li>
 *   <li><b>Plain</b>: no escape code at all (no ESC character is ever written, tool output included), no
 *       animation, lines never cut; {@link #repaint} appends. Chosen by {@link #detectAnsi} when the output is not
 *       a terminal or {@code NO_COLOR} is set to a non-empty value, or {@code TERM=dumb}.</li>
 * </ul>
 * Text that came from a model or a tool (names, arguments, output, results) is sanitised in both modes: escape
 * sequences are removed and control characters become spaces, so a tool cannot move the cursor or recolour the
 * screen.
 *
 * <p>Immutable and thread-safe; rendering is a pure function of the views and the time given. For a live display
 * that follows an event bus and repaints on its own thread, see {@link #live}.
 */
public final class TerminalRenderer {

  static final String ESC = "\u001b";
  private static final String RESET = ESC + "[0m";
  private static final String BOLD = "1";
  private static final String DIM = "2";
  private static final String[] SPINNER = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  private static final long SPINNER_FRAME_NANOS = 80_000_000L;
  private static final long BLINK_HALF_PERIOD_NANOS = 500_000_000L;
  /** How long a terminal state's {@link Animation#BLINK} blinks after the state is entered. */
  static final Duration BLINK_WINDOW = Duration.ofMillis(1500);
  private static final Map<ColorToken, String> PALETTE = palette();

  private final Presenter presenter;
  private final boolean ansi;
  private final int width;
  private final boolean showOutput;
  private final int resultLines;
  private final int height;

  private TerminalRenderer(Builder b) {
    this.presenter = b.presenter;
    this.ansi = b.ansi;
    this.width = b.width;
    this.height = b.height;
    this.showOutput = b.showOutput;
    this.resultLines = b.resultLines;
  }

  /** Starts a renderer; by default its mode comes from {@link #detectAnsi()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether to draw with escape codes: only on a terminal, and neither when {@code NO_COLOR} is set to a non-empty
   * value (<a href="https://no-color.org">no-color.org</a>) nor when {@code TERM} is {@code dumb}.
   *
   * @param isTerminal whether the output is a terminal
   * @param environment the process environment (for {@code NO_COLOR} and {@code TERM})
   */
  public static boolean detectAnsi(boolean isTerminal, Map<String, String> environment) {
    Objects.requireNonNull(environment, "environment");
    String noColor = environment.get("NO_COLOR");
    return isTerminal && (noColor == null || noColor.isEmpty()) && !"dumb".equals(environment.get("TERM"));
  }

  /** {@link #detectAnsi(boolean, Map)} for this process: {@link #isTerminal()} and {@link System#getenv()}. */
  public static boolean detectAnsi() {
    return detectAnsi(isTerminal(), System.getenv());
  }

  /**
   * Whether this process's standard output is a terminal: {@link System#console()} is present and, on Java 22 and
   * later (where a console exists even when the output is redirected), {@code Console.isTerminal()} says so.
   */
  public static boolean isTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method m = Console.class.getMethod("isTerminal");
      return (Boolean) m.invoke(console);
    } catch (NoSuchMethodException e) {
      return true; // before Java 22 a console exists only on a terminal
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }

  /** The presenter that makes the views. */
  public Presenter presenter() {
    return presenter;
  }

  /** Whether this renderer writes escape codes. */
  public boolean ansi() {
    return ansi;
  }

  /** The width lines are cut to in ANSI mode. */
  public int width() {
    return width;
  }

  /**
   * The terminal height a live display's region is kept within (ANSI mode): 0 for no limit. A region taller than
   * the screen cannot be repainted in place (the cursor cannot move above the screen's top line), so a
   * {@link LiveDisplay} leaves out the earliest lines of a taller frame while it is live.
   */
  public int height() {
    return height;
  }

  /** A frame of {@code snapshots} (arranged as a {@link CallTree}) as of the presenter's ticker reading now. */
  public String renderFrame(Collection<ToolCallSnapshot> snapshots) {
    long now = presenter.ticker().read();
    return renderFrame(presenter.views(CallTree.of(snapshots), now, Map.of()), now);
  }

  /**
   * A frame: the lines of {@code views} (in the depth-first order a {@link Presenter} makes them), each ending in
   * {@code \n}; empty for no views. Descendants of a call that does not show its content are left out, with a
   * line that counts them.
   *
   * @param now the ticker reading animations are drawn at (the one the views were made at, usually)
   */
  public String renderFrame(List<ToolCallView> views, long now) {
    StringBuilder b = new StringBuilder();
    for (String line : lines(views, now)) {
      b.append(line).append('\n');
    }
    return b.toString();
  }

  /** The lines of a frame, without line breaks. */
  public List<String> lines(List<ToolCallView> views, long now) {
    Objects.requireNonNull(views, "views");
    List<String> out = new ArrayList<>();
    int hiddenBelowDepth = Integer.MAX_VALUE;
    for (int i = 0; i < views.size(); i++) {
      ToolCallView v = views.get(i);
      if (v.depth() > hiddenBelowDepth) {
        continue;
      }
      hiddenBelowDepth = Integer.MAX_VALUE;
      out.add(header(v, now, true));
      if (!v.showContent()) {
        if (v.hasNested()) {
          int n = 0;
          for (int j = i + 1; j < views.size() && views.get(j).depth() > v.depth(); j++) {
            n++;
          }
          out.add(body(v, "… " + n + (n == 1 ? " nested call" : " nested calls") + " hidden", null));
          hiddenBelowDepth = v.depth();
        }
        continue;
      }
      content(v, out);
    }
    return out;
  }

  /**
   * The header line of one call: indent, icon, tool, argument preview, label and what ticks (countdown, attempt,
   * retry, time in state, total time).
   *
   * @param withTimes false to leave out every part that changes with time alone (countdown seconds, durations), for
   *     a line that changes only when the call does
   */
  public String header(ToolCallView v, long now, boolean withTimes) {
    Line l = new Line();
    l.add(indent(v.depth()), null);
    StateStyle st = v.style();
    Animation anim = ansi ? st.animation() : Animation.STATIC;
    long half = Math.floorDiv(now, BLINK_HALF_PERIOD_NANOS);
    // seed 02's CycleColors: the icon and label go from color to cycleColor and back, once a blink period
    String color = PALETTE.get(anim.isAnimated() && st.cyclesColor() && (half & 1) == 1 ? st.cycleColor()
        : st.color());
    String icon = st.icon();
    String iconSgr = color;
    switch (anim) {
      case SPINNER:
        icon = SPINNER[(int) Math.floorMod(Math.floorDiv(now, SPINNER_FRAME_NANOS), (long) SPINNER.length)];
        break;
      case BLINK:
        boolean blinking = !v.isTerminal() || v.timeInState().compareTo(BLINK_WINDOW) < 0;
        if (blinking && (half & 1) == 1) {
          icon = " ".repeat(Text.width(st.icon()));
        }
        break;
      case PULSE:
        iconSgr = color + ";" + ((half & 1) == 0 ? BOLD : DIM);
        break;
      default:
        break;
    }
    l.add(icon, iconSgr);
    l.add(" ", null);
    l.add(Text.sanitize(v.toolName()), BOLD);
    String args = Text.sanitize(v.argumentsPreview());
    if (!args.isEmpty() && !args.equals("{}")) {
      l.addShrinkable(" " + args, DIM); // on a narrow screen the arguments give way to label, countdown, attempt
    }
    if (!st.label().isEmpty()) {
      l.add("  " + st.label(), color);
    }
    if (!st.badge().isEmpty()) {
      l.add(" ", null);
      l.add(" " + st.badge().text() + " ", PALETTE.get(st.badge().foreground()) + ";"
          + background(st.badge().background()));
    }
    if (anim == Animation.DOT_BLINK) {
      l.add((half & 1) == 0 ? " •" : "  ", color);
    }
    extras(v, withTimes, color, l);
    return l.render(ansi, ansi ? width - 1 : Integer.MAX_VALUE);
  }

  private void extras(ToolCallView v, boolean withTimes, String color, Line l) {
    if (v.countdown().isPresent()) {
      ToolCallView.Countdown c = v.countdown().get();
      if (withTimes) {
        l.add(c.expired() ? " auto-deny due" : " auto-deny in " + c.remainingSeconds() + "s", color);
      } else {
        l.add(" auto-deny after " + Text.formatDuration(c.total()), color);
      }
    }
    v.queuePosition().filter(q -> q.waiting() > 1)
        .ifPresent(q -> l.add(" · " + q.position() + " of " + q.waiting() + " waiting", color));
    if (v.attempt() > 1 && v.displayState() == ToolCallState.RUNNING) {
      l.add(" attempt " + v.attempt(), color);
      v.retry().filter(ToolCallView.Retry::waiting).ifPresent(r -> {
        l.add(" · retry" + (withTimes ? " in " + Text.formatDuration(r.remaining()) : ""), null);
        l.add(" after: " + Text.sanitize(Text.preview(r.failure(), 60)), DIM);
      });
    } else if (v.attempt() > 1 && v.isTerminal()) {
      l.add(" after " + v.attempt() + " attempts", DIM);
    }
    if (withTimes) {
      if (v.isTerminal()) {
        l.add("  " + Text.formatDuration(v.elapsed()), DIM);
      } else if (v.displayState() != ToolCallState.PERMISSION_PENDING) {
        l.add("  " + Text.formatDuration(v.timeInState()), DIM);
      }
    }
    if (v.outputDropped() > 0 && v.displayState() == ToolCallState.RUNNING) {
      l.add("  (" + v.outputDropped() + " output writes dropped)", DIM);
    }
  }

  private void content(ToolCallView v, List<String> out) {
    switch (v.displayState()) {
      case PERMISSION_PENDING:
      case PERMISSION_APPROVED:
        List<String> argLines = Text.lines(v.arguments());
        int shown = Math.min(argLines.size(), 5);
        for (int i = 0; i < shown; i++) {
          out.add(body(v, Text.sanitize(argLines.get(i)), null));
        }
        if (argLines.size() > shown) {
          out.add(body(v, "… " + (argLines.size() - shown) + " more lines", null));
        }
        break;
      case RUNNING:
        if (showOutput) {
          for (String line : v.outputTail()) {
            out.add(body(v, Text.sanitize(line), null));
          }
        }
        break;
      case COMPLETED:
        if (resultLines > 0 && v.result().isPresent()) {
          List<String> rl = Text.lines(v.result().get());
          for (int i = 0; i < Math.min(resultLines, rl.size()); i++) {
            out.add(body(v, Text.sanitize(rl.get(i)), null));
          }
          if (rl.size() > resultLines) {
            out.add(body(v, "… " + (rl.size() - resultLines) + " more lines", null));
          }
        }
        break;
      default: // failed, cancelled (denied shows no content)
        v.error().ifPresent(e -> out.add(body(v, Text.sanitize(Text.preview(e, 1000)),
            PALETTE.get(v.color()))));
        break;
    }
  }

  String body(ToolCallView v, String text, String sgr) {
    Line l = new Line();
    l.add(indent(v.depth()) + "  ", null);
    l.add("│ ", DIM);
    l.add(text, sgr == null ? DIM : sgr);
    return l.render(ansi, ansi ? width - 1 : Integer.MAX_VALUE);
  }

  /** One line of text of the application's own (a status line, a prompt): sanitised, cut to the width in ANSI mode. */
  String plainLine(String text, String sgr) {
    Line l = new Line();
    l.add(Text.sanitize(text), sgr);
    return l.render(ansi, ansi ? width - 1 : Integer.MAX_VALUE);
  }

  /** The SGR parameters of dim text. */
  static String dim() {
    return DIM;
  }

  private static String indent(int depth) {
    return "  ".repeat(depth);
  }

  /**
   * What to write to replace a frame of {@code previousLineCount} lines (one that ended with a line break, the
   * cursor below it) by {@code frame}. ANSI: cursor to the first line of the previous frame ({@code ESC[nA}), each
   * line cleared before it is rewritten ({@code ESC[2K}), and what is left of a longer previous frame cleared
   * ({@code ESC[J}). Plain: {@code frame} itself, appended.
   */
  public String repaint(int previousLineCount, String frame) {
    if (previousLineCount < 0) {
      throw new IllegalArgumentException("previousLineCount must be >= 0, was " + previousLineCount);
    }
    Objects.requireNonNull(frame, "frame");
    if (!ansi) {
      return frame;
    }
    StringBuilder b = new StringBuilder();
    b.append('\r');
    if (previousLineCount > 0) {
      b.append(ESC).append('[').append(previousLineCount).append('A');
    }
    int start = 0;
    while (start < frame.length()) {
      int nl = frame.indexOf('\n', start);
      int end = nl < 0 ? frame.length() : nl;
      b.append(ESC).append("[2K").append(frame, start, end).append('\n');
      start = end + 1;
    }
    return b.append(ESC).append("[J").toString();
  }

  /** The number of lines of a frame (its line breaks). */
  public static int lineCount(String frame) {
    int n = 0;
    for (int i = 0; i < frame.length(); i++) {
      if (frame.charAt(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  /**
   * A live display on {@code out} that repaints at most every {@code refresh} on a daemon thread of its own. Feed
   * it with {@link LiveDisplay#attach} (an event bus) or {@link LiveDisplay#track} (snapshots); close it to stop.
   *
   * @param refresh the repaint period, 10 ms to 1 s (80 ms is a good default)
   */
  public LiveDisplay live(PrintStream out, Duration refresh) {
    return new LiveDisplay(this, out, refresh);
  }

  /** {@link #live(PrintStream, Duration)} with an 80 ms period. */
  public LiveDisplay live(PrintStream out) {
    return live(out, Duration.ofMillis(80));
  }

  private static Map<ColorToken, String> palette() {
    EnumMap<ColorToken, String> m = new EnumMap<>(ColorToken.class);
    m.put(ColorToken.GRAY_MUTED, "38;5;245");
    m.put(ColorToken.PAPRIKA, "38;5;167");
    m.put(ColorToken.GREEN_DARK, "38;5;28");
    m.put(ColorToken.GREEN, "38;5;40");
    m.put(ColorToken.RED, "38;5;160");
    m.put(ColorToken.ORANGE, "38;5;208");
    m.put(ColorToken.FG_SUBTLE, "38;5;250");
    m.put(ColorToken.BG_BASE_LIGHTER, "38;5;237");
    return m;
  }

  /** The SGR parameters for {@code token} as a background colour. */
  private static String background(ColorToken token) {
    return "48" + PALETTE.get(token).substring(2);
  }

  /** The SGR parameters this renderer draws {@code token} with, for example {@code 38;5;167}. */
  public static String sgr(ColorToken token) {
    return PALETTE.get(Objects.requireNonNull(token, "token"));
  }

  @Override
  public String toString() {
    return "TerminalRenderer[" + (ansi ? "ansi, width " + width : "plain") + ", " + presenter.theme().name() + "]";
  }

  /**
   * A line as styled segments, cut to a width before styling so escape codes never count as columns. One segment
   * may be shrinkable: when the line is too wide it is shortened first (to no less than {@link #MIN_SHRUNK}
   * columns), so what follows it stays visible.
   */
  private static final class Line {
    private static final int MIN_SHRUNK = 12;
    private final List<String> texts = new ArrayList<>();
    private final List<String> sgrs = new ArrayList<>();
    private int shrinkable = -1;

    void add(String text, String sgr) {
      texts.add(text);
      sgrs.add(sgr);
    }

    void addShrinkable(String text, String sgr) {
      shrinkable = texts.size();
      add(text, sgr);
    }

    String render(boolean ansi, int columns) {
      if (shrinkable >= 0) {
        int total = 0;
        for (String t : texts) {
          total += Text.width(t);
        }
        String t = texts.get(shrinkable);
        int w = Text.width(t);
        if (total > columns && w > MIN_SHRUNK) {
          texts.set(shrinkable, Text.truncate(t, Math.max(MIN_SHRUNK, w - (total - columns))));
        }
      }
      StringBuilder b = new StringBuilder();
      int left = columns;
      for (int i = 0; i < texts.size() && left > 0; i++) {
        String t = texts.get(i);
        int w = Text.width(t);
        if (w > left) {
          t = Text.truncate(t, left);
          w = left;
        }
        left -= w;
        if (ansi && sgrs.get(i) != null && !t.isEmpty()) {
          b.append(ESC).append('[').append(sgrs.get(i)).append('m').append(t).append(RESET);
        } else {
          b.append(t);
        }
      }
      return b.toString();
    }
  }

  /** Builds a {@link TerminalRenderer}. Not thread-safe; each setter checks its argument at once. */
  public static final class Builder {
    private Presenter presenter = Presenter.create();
    private boolean ansi;
    private boolean ansiSet;
    private int width;
    private boolean showOutput = true;
    private int resultLines = 1;
    private int height;

    private Builder() {}

    /** The presenter (theme, ticker, output tail length); default {@link Presenter#create()}. */
    public Builder presenter(Presenter presenter) {
      this.presenter = Objects.requireNonNull(presenter, "presenter");
      return this;
    }

    /** Shorthand: the current presenter with {@code theme}. */
    public Builder theme(Theme theme) {
      this.presenter = presenter.withTheme(Objects.requireNonNull(theme, "theme"));
      return this;
    }

    /** ANSI (true) or plain (false); default {@link TerminalRenderer#detectAnsi()}. */
    public Builder ansi(boolean ansi) {
      this.ansi = ansi;
      this.ansiSet = true;
      return this;
    }

    /**
     * The mode from {@link TerminalRenderer#detectAnsi(boolean, Map)} with these inputs, and the width from
     * {@code COLUMNS} when set (for tests and for embedding).
     */
    public Builder detect(boolean isTerminal, Map<String, String> environment) {
      this.ansi = detectAnsi(isTerminal, environment);
      this.ansiSet = true;
      if (width == 0) {
        this.width = columns(environment);
      }
      return this;
    }

    /** The terminal width ANSI lines are cut to, 20 to 1000; default {@code COLUMNS} or 100. */
    public Builder width(int columns) {
      if (columns < 20 || columns > 1000) {
        throw new IllegalArgumentException("width must be between 20 and 1000 columns, was " + columns);
      }
      this.width = columns;
      return this;
    }

    /**
     * The terminal height in rows, 3 to 1000, or 0 for no limit (the default): a {@link LiveDisplay} keeps its live
     * region one row shorter than this, leaving out the earliest lines while it is live (see {@link #height()}).
     */
    public Builder height(int rows) {
      if (rows != 0 && (rows < 3 || rows > 1000)) {
        throw new IllegalArgumentException("height must be 0 (no limit) or between 3 and 1000 rows, was " + rows);
      }
      this.height = rows;
      return this;
    }

    /** Whether running calls show their output tail (default true). */
    public Builder showOutput(boolean show) {
      this.showOutput = show;
      return this;
    }

    /** How many lines of a result a completed call shows, 0 to 100 (default 1). */
    public Builder resultLines(int lines) {
      if (lines < 0 || lines > 100) {
        throw new IllegalArgumentException("resultLines must be between 0 and 100, was " + lines);
      }
      this.resultLines = lines;
      return this;
    }

    /** The renderer. */
    public TerminalRenderer build() {
      if (!ansiSet) {
        detect(isTerminal(), System.getenv());
      }
      if (width == 0) {
        width = 100;
      }
      return new TerminalRenderer(this);
    }

    private static int columns(Map<String, String> environment) {
      try {
        int c = Integer.parseInt(environment.getOrDefault("COLUMNS", "").trim());
        return c >= 20 && c <= 1000 ? c : 100;
      } catch (NumberFormatException e) {
        return 100;
      }
    }
  }
}
