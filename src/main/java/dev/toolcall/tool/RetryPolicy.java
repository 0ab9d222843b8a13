package dev.toolcall.tool;

import java.time.Duration;
import java.util.Objects;

/**
 * How a tool's transient failures are retried: at most {@code maxAttempts} attempts in all, with exponential backoff
 * {@code initialDelay * multiplier^(n-1)} capped at {@code maxDelay}, each delay spread by up to {@code jitter}
 * (a fraction, 0 to 1) either way. Only failures the tool declares transient (a {@link dev.toolcall.TransientToolException}) are
 * retried; a tool not marked idempotent is never retried after a failure that may have had effects (a timeout, an
 * interrupt). Immutable.
 *
 * @param maxAttempts attempts in all, at least 1 (1 means no retry)
 * @param initialDelay the delay before the first retry, positive
 * @param multiplier growth per retry, at least 1
 * @param maxDelay the cap on any delay, at least {@code initialDelay}
 * @param jitter the random spread, from 0 (none) to 1
 */
public record RetryPolicy(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay,
    double jitter) {

  /** No retries. */
  public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ofMillis(100), 2.0, Duration.ofMillis(100), 0);

  /** Checks every part and names the one that is wrong. */
  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
    Objects.requireNonNull(initialDelay, "initialDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    if (initialDelay.isNegative() || initialDelay.isZero()) {
      throw new IllegalArgumentException("initialDelay must be positive, was " + initialDelay);
    }
    if (maxDelay.compareTo(initialDelay) < 0) {
      throw new IllegalArgumentException("maxDelay must be >= initialDelay (" + initialDelay + "), was " + maxDelay);
    }
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("multiplier must be a finite number >= 1, was " + multiplier);
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new IllegalArgumentException("jitter must be between 0 and 1, was " + jitter);
    }
  }

  /** Exponential backoff from {@code initialDelay}, doubling, capped at 30 s, with 20% jitter. */
  public static RetryPolicy exponential(int maxAttempts, Duration initialDelay) {
    Duration cap = Duration.ofSeconds(30).compareTo(initialDelay) < 0 ? initialDelay : Duration.ofSeconds(30);
    return new RetryPolicy(maxAttempts, initialDelay, 2.0, cap, 0.2);
  }

  /**
   * The delay before {@code nextAttempt} (2 for the first retry), before jitter, saturating at {@code maxDelay}.
   */
  public Duration baseDelay(int nextAttempt) {
    if (nextAttempt < 2) {
      throw new IllegalArgumentException("nextAttempt must be >= 2, was " + nextAttempt);
    }
    double nanos = initialDelay.toNanos() * Math.pow(multiplier, nextAttempt - 2);
    if (!(nanos < maxDelay.toNanos())) {
      return maxDelay;
    }
    return Duration.ofNanos((long) nanos);
  }

  /**
   * The delay before {@code nextAttempt} with jitter applied, where {@code random} is uniform in [0, 1).
   */
  public Duration delay(int nextAttempt, double random) {
    Duration base = baseDelay(nextAttempt);
    if (jitter == 0) {
      return base;
    }
    double factor = 1 + jitter * (2 * random - 1);
    long nanos = (long) (base.toNanos() * factor);
    return Duration.ofNanos(Math.max(1, Math.min(nanos, maxDelay.toNanos())));
  }
}
