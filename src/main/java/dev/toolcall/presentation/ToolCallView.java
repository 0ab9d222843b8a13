package dev.toolcall.presentation;

import dev.toolcall.ToolCallState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a UI shows of one tool call at one moment: an immutable value computed by a {@link Presenter} from a
 * {@link dev.toolcall.ToolCallSnapshot}, a ticker reading ("now") and the call's place in a {@link CallTree}. It
 * holds no reference to the call; drawing it twice draws the same thing (animations aside, which depend on the time
 * of drawing only).
 *
 * @param callId the call id
 * @param toolName the tool's name, as the model sent it
 * @param parentCallId the call this one is nested in, if any
 * @param depth the nesting depth in the tree the view was made from (0 at the root)
 * @param isNested whether the call runs inside another call
 * @param hasNested whether other calls of the tree run inside this one
 * @param arguments the arguments' raw text, exactly as the model (or an editor) wrote it
 * @param argumentsPreview the arguments on one line, whitespace collapsed, cut to the presenter's preview length
 * @param state the call's state
 * @param displayState the state to display ({@link DisplayRules#effectiveState}); icon, colour, animation, label and
 *     visibility follow it
 * @param style the theme's style of {@code displayState}
 * @param showContent whether to show details, output, result and nested calls ({@link DisplayRules#showContent})
 * @param countdown the permission request's countdown, while displayed {@link ToolCallState#PERMISSION_PENDING}
 *     with a deadline
 * @param attempt the execution attempt: 0 before the first, 1 for the first, 2 for the first retry
 * @param retry the latest scheduled retry, while the call is running that attempt
 * @param outputTail the last lines of live output (a carriage return restarts its line), oldest first; at most the
 *     presenter's tail length
 * @param outputDropped how many writes the output buffer dropped in all
 * @param result the result text, when the displayed outcome is a success
 * @param error the error text for the model, when the displayed outcome is a failure, denial or cancellation
 * @param durations the time spent in each state visited, in order; the current non-terminal state last, so far
 * @param timeInState how long the call has been in its state
 * @param elapsed the time from creation to the end (terminal) or to now
 * @param version the snapshot's version
 * @param toolStarted whether the call's tool was started; false for a call that went to RUNNING only to be
 *     validated ({@link dev.toolcall.ToolCallSnapshot#toolStarted()}): its RUNNING segment reads "validating"
 * @param queuePosition the call's place among the calls of the view's tree that wait for a person's answer, while
 *     displayed {@link ToolCallState#PERMISSION_PENDING} (oldest request first); empty for a view made on its own
 * @param providerCallId the id the provider sent for the call when the library minted {@code callId} (a blank,
 *     missing or reused id; {@link dev.toolcall.ToolCallIdentity#label()}); empty when the call id is the provider's
 */
public record ToolCallView(String callId, String toolName, Optional<String> parentCallId, int depth,
    boolean isNested, boolean hasNested, String arguments, String argumentsPreview, ToolCallState state,
    ToolCallState displayState, StateStyle style, boolean showContent, Optional<Countdown> countdown, int attempt,
    Optional<Retry> retry, List<String> outputTail, long outputDropped, Optional<String> result,
    Optional<String> error, List<StateDuration> durations, Duration timeInState, Duration elapsed, int version,
    boolean toolStarted, Optional<QueuePosition> queuePosition, Optional<String> providerCallId) {

  /**
   * A waiting permission request's place in the queue of requests a person answers oldest first.
   *
   * @param position 1 for the oldest waiting request
   * @param waiting how many requests wait in all (at least {@code position})
   */
  public record QueuePosition(int position, int waiting) {
    /** Checks the numbers. */
    public QueuePosition {
      if (position < 1 || waiting < position) {
        throw new IllegalArgumentException("need 1 <= position <= waiting, got position " + position + " of "
            + waiting);
      }
    }
  }

  /** The badge of the displayed state's style ({@link Badge#NONE} for none). */
  public Badge badge() {
    return style.badge();
  }

  /**
   * The countdown of a permission request that is auto-denied at its deadline.
   *
   * @param remaining the time left, never negative (zero once the deadline passed)
   * @param total the time from the request to its deadline
   * @param deadline the wall-clock deadline
   */
  public record Countdown(Duration remaining, Duration total, Instant deadline) {
    /** Checks the parts. */
    public Countdown {
      Objects.requireNonNull(remaining, "remaining");
      Objects.requireNonNull(total, "total");
      Objects.requireNonNull(deadline, "deadline");
      if (remaining.isNegative()) {
        throw new IllegalArgumentException("remaining must not be negative, was " + remaining);
      }
    }

    /** The remaining whole seconds, rounded up (what a countdown shows: 0 only once the deadline passed). */
    public long remainingSeconds() {
      long s = remaining.getSeconds();
      return remaining.getNano() > 0 ? s + 1 : s;
    }

    /** Whether the deadline has passed (the auto-deny is due). */
    public boolean expired() {
      return remaining.isZero();
    }
  }

  /**
   * A retry of a transient failure.
   *
   * @param attempt the attempt that runs after the backoff (2 for the first retry)
   * @param delay the backoff
   * @param remaining the backoff left, never negative (zero once the attempt may have started)
   * @param failure what failed, as the tool said it
   */
  public record Retry(int attempt, Duration delay, Duration remaining, String failure) {
    /** Checks the parts. */
    public Retry {
      Objects.requireNonNull(delay, "delay");
      Objects.requireNonNull(remaining, "remaining");
      Objects.requireNonNull(failure, "failure");
    }

    /** Whether the backoff is still running. */
    public boolean waiting() {
      return !remaining.isZero();
    }
  }

  /**
   * Time spent in one state.
   *
   * @param state the state
   * @param duration how long
   * @param current whether the call is still in it (the duration is then "so far")
   */
  public record StateDuration(ToolCallState state, Duration duration, boolean current) {
    /** Checks the parts. */
    public StateDuration {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(duration, "duration");
    }
  }

  /** Checks the parts and copies the lists. */
  public ToolCallView {
    Objects.requireNonNull(callId, "callId");
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(parentCallId, "parentCallId");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(argumentsPreview, "argumentsPreview");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(displayState, "displayState");
    Objects.requireNonNull(style, "style");
    Objects.requireNonNull(countdown, "countdown");
    Objects.requireNonNull(retry, "retry");
    outputTail = List.copyOf(outputTail);
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(error, "error");
    durations = List.copyOf(durations);
    Objects.requireNonNull(timeInState, "timeInState");
    Objects.requireNonNull(elapsed, "elapsed");
  }

  /** The displayed state's icon. */
  public String icon() {
    return style.icon();
  }

  /** The displayed state's colour. */
  public ColorToken color() {
    return style.color();
  }

  /** The displayed state's animation. */
  public Animation animation() {
    return style.animation();
  }

  /** The displayed state's label. */
  public String label() {
    return style.label();
  }

  /** Whether the displayed state is terminal. */
  public boolean isTerminal() {
    return displayState.isTerminal();
  }

  /**
   * A plain-text copy of the call for the clipboard: tool, call id, parent, arguments, displayed state, attempts
   * (when retried), result or error, and the durations per state. No escape codes; lines end with {@code \n}.
   */
  public String copyText() {
    StringBuilder b = new StringBuilder();
    b.append("Tool: ").append(toolName).append('\n');
    b.append("Call: ").append(callId).append('\n');
    providerCallId.ifPresent(p -> b.append("Provider's id: ").append(p.isEmpty() ? "(none)" : p).append('\n'));
    parentCallId.ifPresent(p -> b.append("Parent: ").append(p).append('\n'));
    b.append("Arguments: ").append(arguments).append('\n');
    b.append("State: ").append(displayState.wireName());
    String said = style.label().isEmpty() ? style.badge().text() : style.label();
    if (!said.isEmpty()) {
      b.append(" (").append(said).append(')');
    }
    b.append('\n');
    if (attempt > 1) {
      b.append("Attempts: ").append(attempt).append('\n');
    }
    result.ifPresent(r -> b.append("Result:\n").append(r).append(r.endsWith("\n") ? "" : "\n"));
    error.ifPresent(e -> b.append("Error: ").append(e).append('\n'));
    b.append("Durations: ");
    for (int i = 0; i < durations.size(); i++) {
      StateDuration d = durations.get(i);
      b.append(i == 0 ? "" : ", ").append(segmentName(d.state())).append(' ')
          .append(Text.formatDuration(d.duration())).append(d.current() ? " so far" : "");
    }
    b.append(durations.isEmpty() ? "" : "; ").append("total ").append(Text.formatDuration(elapsed)).append('\n');
    return b.toString();
  }

  /**
   * The name of a state in the durations: "validating" for the RUNNING segment of a call whose tool never started,
   * the state's wire name otherwise.
   */
  public String segmentName(ToolCallState segment) {
    return segment == ToolCallState.RUNNING && !toolStarted ? "validating" : segment.wireName();
  }
}
