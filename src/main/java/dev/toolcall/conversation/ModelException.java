package dev.toolcall.conversation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * A model request failed. Its {@link Kind} says what the turn does about it:
 * <ul>
 *   <li>{@link #isTransient() transient} (rate limit, network, server overloaded, timeout, a broken stream): the turn
 *       enters {@link dev.toolcall.ConversationState#TRANSIENT_FAILURE} and retries with backoff, up to the limit of
 *       {@link TurnLimits#modelRetry()}, then fails;</li>
 *   <li>{@link #mustNotContinue() must not continue on its own} (the source's model-switch flag: the quota is
 *       exhausted, or the runtime switched to a fallback model): the turn stops, back to the user, with this
 *       exception's message; nothing is retried or continued automatically;</li>
 *   <li>anything else (an invalid request, a refused credential): the turn fails at once.</li>
 * </ul>
 * The message is shown to the user; the cause, if any, is for logs.
 */
public final class ModelException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What kind of failure, and so what the turn does about it. */
  public enum Kind {
    /** Too many requests; retry after a while (transient). */
    RATE_LIMITED(true, false),
    /** The connection failed or broke (transient). */
    NETWORK(true, false),
    /** The provider failed or is overloaded (transient). */
    SERVER_ERROR(true, false),
    /** The request took too long (transient). */
    TIMEOUT(true, false),
    /** The response or stream broke the protocol (transient: a new request may well succeed). */
    MALFORMED_RESPONSE(true, false),
    /** The quota is exhausted: the turn must not continue on its own. */
    QUOTA_EXHAUSTED(false, true),
    /** The runtime switched to a fallback model: the turn must not continue on its own. */
    MODEL_SWITCHED(false, true),
    /** The provider refused the request as invalid (too long, bad parameters). */
    INVALID_REQUEST(false, false),
    /** The credentials were refused. */
    AUTHENTICATION(false, false),
    /** Anything else. */
    OTHER(false, false);

    private final boolean isTransient;
    private final boolean mustNotContinue;

    Kind(boolean isTransient, boolean mustNotContinue) {
      this.isTransient = isTransient;
      this.mustNotContinue = mustNotContinue;
    }

    /** Whether a retry may succeed. */
    public boolean isTransient() {
      return isTransient;
    }

    /** Whether the turn must stop and hand back to the user (the source's model-switch flag). */
    public boolean mustNotContinue() {
      return mustNotContinue;
    }
  }

  private final Kind kind;
  private final Duration retryAfter;

  private ModelException(Kind kind, String message, Duration retryAfter, Throwable cause) {
    super(Objects.requireNonNull(message, "message"), cause);
    this.kind = Objects.requireNonNull(kind, "kind");
    if (retryAfter != null && retryAfter.isNegative()) {
      throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
    }
    this.retryAfter = retryAfter;
  }

  /** A failure of {@code kind} with a message for the user. */
  public static ModelException of(Kind kind, String message) {
    return new ModelException(kind, message, null, null);
  }

  /** A failure of {@code kind} with a message for the user and its cause (for logs). */
  public static ModelException of(Kind kind, String message, Throwable cause) {
    return new ModelException(kind, message, null, cause);
  }

  /** A rate limit; the provider asked to wait {@code retryAfter} (used instead of the backoff when longer). */
  public static ModelException rateLimited(String message, Duration retryAfter) {
    return new ModelException(Kind.RATE_LIMITED, message, Objects.requireNonNull(retryAfter, "retryAfter"), null);
  }

  /**
   * What {@code failure} means as a model error: itself if it is a {@code ModelException} (also inside a
   * {@link CompletionException} or {@link ExecutionException}); {@link Kind#NETWORK} for an I/O failure;
   * {@link Kind#TIMEOUT} for a {@link TimeoutException}; {@link Kind#OTHER} for anything else (a cancellation, an
   * interrupt, a bug in the client), with the type and message of the cause.
   */
  public static ModelException from(Throwable failure) {
    Objects.requireNonNull(failure, "failure");
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof ModelException m) {
      return m;
    }
    if (t instanceof IOException || t instanceof UncheckedIOException) {
      return of(Kind.NETWORK, "model request failed: " + describe(t), t);
    }
    if (t instanceof TimeoutException) {
      return of(Kind.TIMEOUT, "model request timed out: " + describe(t), t);
    }
    if (t instanceof CancellationException) {
      return of(Kind.OTHER, "model request cancelled", t);
    }
    if (t instanceof InterruptedException) {
      return of(Kind.OTHER, "model request interrupted", t);
    }
    return of(Kind.OTHER, "model client failed: " + describe(t), t);
  }

  private static String describe(Throwable t) {
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": "
        + t.getMessage();
  }

  /** What kind of failure. */
  public Kind kind() {
    return kind;
  }

  /** Whether a retry may succeed ({@link Kind#isTransient()}). */
  public boolean isTransient() {
    return kind.isTransient();
  }

  /** The source's model-switch flag: the turn must stop and hand back to the user ({@link Kind#mustNotContinue()}). */
  public boolean mustNotContinue() {
    return kind.mustNotContinue();
  }

  /** How long the provider asked to wait before a retry, if it said. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  @Override
  public String toString() {
    return "ModelException[" + kind + ": " + getMessage() + (retryAfter == null ? "" : ", retry after " + retryAfter)
        + "]";
  }
}
