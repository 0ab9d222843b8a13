package dev.toolcall.presentation;

import dev.toolcall.Change;
import dev.toolcall.Outcome;
import dev.toolcall.StateTransition;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolArguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns call snapshots into {@link ToolCallView}s: the view model of the source documents for a {@link Theme}, as of
 * a reading of a {@link Ticker}.
 *
 * <p>The ticker must be the one the calls were made with (the runtime's): countdowns and durations compare its
 * readings with the ticks recorded in the snapshots. The default, {@link Ticker#system()}, is also the calls'
 * default.
 *
 * <p>Immutable and thread-safe; computing a view reads the snapshot's history (allocation is proportional to the
 * call's number of versions) and never blocks.
 */
public final class Presenter {

  private final Theme theme;
  private final Ticker ticker;
  private final int outputTailLines;
  private final int argumentsPreviewLength;

  private Presenter(Builder b) {
    this.theme = b.theme;
    this.ticker = b.ticker;
    this.outputTailLines = b.outputTailLines;
    this.argumentsPreviewLength = b.argumentsPreviewLength;
  }

  /** A presenter with the emoji theme, the system ticker, 5 output lines and 80-character argument previews. */
  public static Presenter create() {
    return builder().build();
  }

  /** Starts a presenter. */
  public static Builder builder() {
    return new Builder();
  }

  /** The theme. */
  public Theme theme() {
    return theme;
  }

  /** The ticker "now" is read from. */
  public Ticker ticker() {
    return ticker;
  }

  /** How many lines of live output a view keeps. */
  public int outputTailLines() {
    return outputTailLines;
  }

  /** This presenter with another theme. */
  public Presenter withTheme(Theme theme) {
    return builder().theme(theme).ticker(ticker).outputTailLines(outputTailLines)
        .argumentsPreviewLength(argumentsPreviewLength).build();
  }

  /** Views of every call of {@code tree}, depth first (each parent before its children), as of now. */
  public List<ToolCallView> views(CallTree tree) {
    return views(tree, ticker.read(), Map.of());
  }

  /** Views of {@code snapshots} arranged as a {@link CallTree}, as of now. */
  public List<ToolCallView> views(Collection<ToolCallSnapshot> snapshots) {
    return views(CallTree.of(snapshots));
  }

  /**
   * Views of every call of {@code tree}, depth first, as of the ticker reading {@code now}.
   *
   * @param arrivedResults results the UI already has by call id, ahead of the calls' states (usually empty); see
   *     {@link DisplayRules#effectiveState}
   */
  public List<ToolCallView> views(CallTree tree, long now, Map<String, Outcome> arrivedResults) {
    Objects.requireNonNull(tree, "tree");
    Objects.requireNonNull(arrivedResults, "arrivedResults");
    List<ToolCallView> out = new ArrayList<>(tree.size());
    Map<String, ToolCallView.QueuePosition> queue = queue(tree, now, arrivedResults);
    for (CallTree.Node n : tree.nodes()) {
      out.add(view(n.snapshot(), now, n.depth(), n.hasNested(), arrivedResults.get(n.callId()),
          Optional.ofNullable(queue.get(n.callId()))));
    }
    return Collections.unmodifiableList(out);
  }

  /** The view of one call on its own (depth 0, no nested calls), as of now. */
  public ToolCallView view(ToolCallSnapshot snapshot) {
    return view(snapshot, ticker.read(), 0, false, null);
  }

  /**
   * The view of one call.
   *
   * @param snapshot the call
   * @param now a reading of this presenter's ticker
   * @param depth its depth in the tree (0 at the root)
   * @param hasNested whether other calls run inside it ({@code isNested} comes from the call's identity)
   * @param arrivedResult a result the UI already has ahead of the state, or null
   */
  public ToolCallView view(ToolCallSnapshot snapshot, long now, int depth, boolean hasNested,
      Outcome arrivedResult) {
    return view(snapshot, now, depth, hasNested, arrivedResult, Optional.empty());
  }

  /**
   * The places of the tree's calls displayed PERMISSION_PENDING, oldest request first (the one that has waited
   * longest; ties by call id), by call id.
   */
  private static Map<String, ToolCallView.QueuePosition> queue(CallTree tree, long now,
      Map<String, Outcome> arrivedResults) {
    List<ToolCallSnapshot> waiting = new ArrayList<>();
    for (CallTree.Node n : tree.nodes()) {
      ToolCallSnapshot s = n.snapshot();
      Outcome o = arrivedResults.get(n.callId());
      if (DisplayRules.effectiveState(s.state(), o != null ? o : s.outcome()) == ToolCallState.PERMISSION_PENDING) {
        waiting.add(s);
      }
    }
    if (waiting.isEmpty()) {
      return Map.of();
    }
    waiting.sort(java.util.Comparator.comparing((ToolCallSnapshot s) -> s.timeInState(now)).reversed()
        .thenComparing(ToolCallSnapshot::callId));
    Map<String, ToolCallView.QueuePosition> out = new java.util.HashMap<>();
    for (int i = 0; i < waiting.size(); i++) {
      out.put(waiting.get(i).callId(), new ToolCallView.QueuePosition(i + 1, waiting.size()));
    }
    return out;
  }

  private ToolCallView view(ToolCallSnapshot snapshot, long now, int depth, boolean hasNested,
      Outcome arrivedResult, Optional<ToolCallView.QueuePosition> queuePosition) {
    Objects.requireNonNull(snapshot, "snapshot");
    if (depth < 0) {
      throw new IllegalArgumentException("depth must be >= 0, was " + depth);
    }
    ToolCallState state = snapshot.state();
    Outcome outcome = arrivedResult != null ? arrivedResult : snapshot.outcome();
    ToolCallState display = DisplayRules.effectiveState(state, outcome);
    boolean isNested = snapshot.identity().parentCallId() != null;
    boolean show = DisplayRules.showContent(display, isNested, hasNested);

    Optional<ToolCallView.Countdown> countdown = display == ToolCallState.PERMISSION_PENDING
        ? countdown(snapshot, now) : Optional.empty();
    Optional<ToolCallView.Retry> retry = display == ToolCallState.RUNNING ? retry(snapshot, now) : Optional.empty();

    List<String> tail = new ArrayList<>();
    long dropped = output(snapshot, tail);

    Optional<String> result = Optional.empty();
    Optional<String> error = Optional.empty();
    if (outcome instanceof Outcome.Completed c) {
      result = Optional.of(c.content());
    } else if (outcome != null) {
      error = Optional.of(outcome.messageForModel());
    }

    List<ToolCallView.StateDuration> durations = new ArrayList<>();
    Duration elapsed = Duration.ZERO;
    for (StateTransition t : snapshot.history()) {
      durations.add(new ToolCallView.StateDuration(t.from(), t.timeInFrom(), false));
      elapsed = elapsed.plus(t.timeInFrom());
    }
    Duration inState = snapshot.timeInState(now);
    if (!state.isTerminal()) {
      durations.add(new ToolCallView.StateDuration(state, inState, true));
      elapsed = elapsed.plus(inState);
    }

    String raw = snapshot.arguments().raw();
    return new ToolCallView(snapshot.callId(), snapshot.toolName(), snapshot.identity().parent(), depth, isNested,
        hasNested, raw, Text.preview(previewSource(snapshot.arguments()), argumentsPreviewLength), state, display,
        theme.style(display), show, countdown, snapshot.attempt(), retry, tail, dropped, result, error, durations,
        inState, elapsed, snapshot.version(), snapshot.toolStarted(), queuePosition,
        snapshot.identity().label().equals(snapshot.callId()) ? Optional.empty()
            : Optional.of(snapshot.identity().label()));
  }

  private static String previewSource(ToolArguments a) {
    if (a instanceof ToolArguments.Text t) {
      return t.value();
    }
    if (a instanceof ToolArguments.TextList l) {
      return String.join(" ", l.values());
    }
    return a.raw();
  }

  /** The latest permission request of the current PERMISSION_PENDING stretch, as a countdown. */
  private static Optional<ToolCallView.Countdown> countdown(ToolCallSnapshot snapshot, long now) {
    for (ToolCallSnapshot s = snapshot; s != null && s.state() == ToolCallState.PERMISSION_PENDING;
        s = s.previous()) {
      if (s.change() instanceof Change.PermissionAsked asked) {
        Duration remaining = Duration.ofNanos(Math.max(0, asked.deadlineTick() - now));
        Duration total = Duration.ofNanos(Math.max(0, asked.deadlineTick() - s.tick()));
        return Optional.of(new ToolCallView.Countdown(remaining, total, asked.deadline()));
      }
    }
    return Optional.empty();
  }

  /** The latest retry scheduled in the current RUNNING stretch, if it is for the current attempt. */
  private static Optional<ToolCallView.Retry> retry(ToolCallSnapshot snapshot, long now) {
    for (ToolCallSnapshot s = snapshot; s != null && s.state() == ToolCallState.RUNNING; s = s.previous()) {
      if (s.change() instanceof Change.RetryScheduled r) {
        if (r.nextAttempt() != snapshot.attempt()) {
          return Optional.empty();
        }
        long waited = Math.max(0, now - s.tick());
        Duration remaining = r.delay().minusNanos(Math.min(waited, r.delay().toNanos()));
        return Optional.of(new ToolCallView.Retry(r.nextAttempt(), r.delay(), remaining, r.failure()));
      }
    }
    return Optional.empty();
  }

  /** Fills {@code tail} with the last output lines and returns the number of writes dropped in all. */
  private long output(ToolCallSnapshot snapshot, List<String> tail) {
    Change.OutputAppended last = null;
    for (ToolCallSnapshot s = snapshot; s != null; s = s.previous()) {
      if (s.change() instanceof Change.OutputAppended o) {
        last = o;
        break;
      }
    }
    if (last == null) {
      return 0;
    }
    if (outputTailLines > 0) {
      List<String> lines = Text.lines(last.tail());
      if (last.tail().length() < last.outputChars() && lines.size() > 1) {
        lines = lines.subList(1, lines.size()); // the first line of a cut tail is a line's end only
      }
      tail.addAll(lines.subList(Math.max(0, lines.size() - outputTailLines), lines.size()));
    }
    return last.droppedTotal();
  }

  @Override
  public String toString() {
    return "Presenter[" + theme.name() + ", " + outputTailLines + " output lines]";
  }

  /** Builds a {@link Presenter}. Not thread-safe; each setter checks its argument at once. */
  public static final class Builder {
    private Theme theme = Theme.emoji();
    private Ticker ticker = Ticker.system();
    private int outputTailLines = 5;
    private int argumentsPreviewLength = 80;

    private Builder() {}

    /** The theme (default {@link Theme#emoji()}). */
    public Builder theme(Theme theme) {
      this.theme = Objects.requireNonNull(theme, "theme");
      return this;
    }

    /** The ticker the calls were made with (default {@link Ticker#system()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** How many of the last output lines a view keeps, 0 to 1000 (default 5). */
    public Builder outputTailLines(int lines) {
      if (lines < 0 || lines > 1000) {
        throw new IllegalArgumentException("outputTailLines must be between 0 and 1000, was " + lines);
      }
      this.outputTailLines = lines;
      return this;
    }

    /** The longest argument preview, in code points, at least 8 (default 80). */
    public Builder argumentsPreviewLength(int length) {
      if (length < 8) {
        throw new IllegalArgumentException("argumentsPreviewLength must be at least 8, was " + length);
      }
      this.argumentsPreviewLength = length;
      return this;
    }

    /** The presenter. */
    public Presenter build() {
      return new Presenter(this);
    }
  }
}
