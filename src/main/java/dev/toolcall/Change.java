package dev.toolcall;

import dev.toolcall.tool.ToolArguments;
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
   * Live output of a running tool: one chunk (possibly several writes coalesced).
   *
   * @param chunk the text written
   * @param sequence 1 for the first chunk of the call, one more for each
   * @param dropped writes dropped since the last chunk because the output buffer was full
   */
  record OutputAppended(String chunk, long sequence, long dropped) implements Change {
    /** Checks the parts. */
    public OutputAppended {
      Objects.requireNonNull(chunk, "chunk");
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
