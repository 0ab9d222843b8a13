package dev.toolcall.demo;

import java.time.Duration;

/**
 * How fast the demo plays: every pause of the scripted model and the simulated tools is multiplied by
 * {@code factor} (1 for a person watching, small for the tests). Immutable.
 *
 * @param factor the multiplier, positive
 */
record Pace(double factor) {

  /** A person watching. */
  static final Pace NORMAL = new Pace(1.0);

  Pace {
    if (!(factor > 0 && factor <= 10)) {
      throw new IllegalArgumentException("factor must be in (0, 10], was " + factor);
    }
  }

  /** {@code millis} at this pace, at least 1 ms. */
  Duration of(long millis) {
    return Duration.ofNanos(Math.max(1_000_000L, (long) (millis * 1_000_000L * factor)));
  }

  /** Sleeps {@code millis} at this pace. */
  void sleep(long millis) throws InterruptedException {
    Thread.sleep(of(millis).toMillis());
  }
}
