package dev.toolcall;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What produced one version of a call: every {@link ToolCallSnapshot} records the change that made it. A version
 * whose state differs from the one before is a state transition, and its change says why (usually a
 * {@link Reason}); the others keep the state and change something else (arguments, output, the attempt).
 *
 * <p>All changes are immutable values with no live references, so a snapshot can be stored and restored.
 */
public sealed interface Change
    permits Change.Created, Reason, Change.PermissionAsked, Change.ArgumentsModified, Change.OutputAppended,
    Change.RetryScheduled {

  /** Version 0: the call was created, in {@link ToolCallState#PENDING}. */
  record Created() implements Change {
    /** The one instance. */
    public static final Created INSTANCE = new Created();
  }

  /**
   * The transition to {@link ToolCallState#PERMISSION_PENDING}: a permission request was opened.
   *
   * @param requestId the permission request's id
   * @param argumentsVersion the version of the arguments the request shows
   * @param deadline when the request is auto-denied if nobody answers
   * @param deadlineTick the same deadline on the call's monotonic ticker
   */
  record PermissionAsked(String requestId, int argumentsVersion, Instant deadline, long deadlineTick)
      implements Change {
    /** Checks the parts. */
    public PermissionAsked {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(deadline, "deadline");
    }
  }

  /**
   * The arguments were replaced (a person edited them while asked, or an interceptor rewrote them). The state does
   * not change; the arguments version is the new snapshot's version.
   *
   * @param previous the arguments before
   * @param by who changed them, for the record ("user", an interceptor's name)
   */
  record ArgumentsModified(ToolArguments previous, String by) implements Change {
    /** Checks the parts. */
    public ArgumentsModified {
      Objects.requireNonNull(previous, "previous");
      Objects.requireNonNull(by, "by");
    }
  }

  /**
   * Live output of a running tool: one chunk (possibly several writes coalesced), with the totals of the call's
   * output so far and its tail. Listeners see every chunk as it is appended, whole. The call's history keeps only
   * the latest chunk of a stretch of output (see {@link ToolCallSnapshot}), and once the call moves on, only the last
   * {@link #TAIL_CHARS} chars of that chunk: what a call retains of its output is at most twice {@code TAIL_CHARS}
   * chars, whatever it printed.
   *
   * @param chunk the text written
   * @param sequence 1 for the first chunk of the call, one more for each
   * @param dropped writes dropped since the last chunk because the output buffer was full
   * @param outputChars the chars of output so far, this chunk included
   * @param droppedTotal writes dropped so far, {@code dropped} included
   * @param tail the last chars of the output so far, this chunk included: at most {@link #TAIL_CHARS}, fewer only
   *     when the output is shorter (or when cutting there would split a surrogate pair)
   */
  record OutputAppended(String chunk, long sequence, long dropped, long outputChars, long droppedTotal, String tail)
      implements Change {

    /** The most chars {@link #tail()} keeps. */
    public static final int TAIL_CHARS = 4_096;

    /** Checks the parts. */
    public OutputAppended {
      Objects.requireNonNull(chunk, "chunk");
      Objects.requireNonNull(tail, "tail");
      if (sequence < 0 || dropped < 0 || droppedTotal < dropped || outputChars < chunk.length()
          || tail.length() > TAIL_CHARS || tail.length() > outputChars) {
        throw new IllegalArgumentException("inconsistent output chunk: sequence " + sequence + ", dropped "
            + dropped + " of " + droppedTotal + ", " + chunk.length() + " chars of " + outputChars + ", tail of "
            + tail.length());
      }
    }

    /** The first chunk of a call's output. */
    public static OutputAppended first(String chunk, long dropped) {
      return after(null, chunk, 1, dropped);
    }

    /**
     * The chunk that follows {@code last} (null for the first): totals carried on, tail extended.
     *
     * @param sequence its sequence number
     */
    public static OutputAppended after(OutputAppended last, String chunk, long sequence, long dropped) {
      Objects.requireNonNull(chunk, "chunk");
      String before = last == null ? "" : last.tail;
      String tail;
      if (chunk.length() >= TAIL_CHARS) {
        tail = cut(chunk, chunk.length() - TAIL_CHARS);
      } else if (before.length() + chunk.length() <= TAIL_CHARS) {
        tail = before.concat(chunk);
      } else {
        tail = cut(before, before.length() + chunk.length() - TAIL_CHARS).concat(chunk);
      }
      return new OutputAppended(chunk, sequence, dropped, (last == null ? 0 : last.outputChars) + chunk.length(),
          (last == null ? 0 : last.droppedTotal) + dropped, tail);
    }

    /** {@code s} from {@code from}, one char later when {@code from} would split a surrogate pair. */
    private static String cut(String s, int from) {
      if (from > 0 && from < s.length() && Character.isLowSurrogate(s.charAt(from))
          && Character.isHighSurrogate(s.charAt(from - 1))) {
        from++;
      }
      return s.substring(from);
    }

    @Override
    public String toString() {
      return "OutputAppended[#" + sequence + ", " + chunk.length() + " chars of " + outputChars
          + (droppedTotal == 0 ? "" : ", " + droppedTotal + " writes dropped") + "]";
    }
  }

  /**
   * A transient failure will be retried: the call stays {@link ToolCallState#RUNNING}.
   *
   * @param nextAttempt the attempt that will run (2 for the first retry)
   * @param delay the backoff before it
   * @param failure what failed, as the tool said it
   */
  record RetryScheduled(int nextAttempt, Duration delay, String failure) implements Change {
    /** Checks the parts. */
    public RetryScheduled {
      if (nextAttempt < 2) {
        throw new IllegalArgumentException("nextAttempt must be >= 2, was " + nextAttempt);
      }
      Objects.requireNonNull(delay, "delay");
      Objects.requireNonNull(failure, "failure");
    }
  }
}
