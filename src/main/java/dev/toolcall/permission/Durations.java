package dev.toolcall.permission;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

/** Duration arithmetic and wording of the permission package: never throws on huge values. */
final class Durations {
  private Durations() {}

  /** {@code d} in nanoseconds, saturated at the long range. */
  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** {@code t + d}, or {@link Instant#MAX} past the range of instants. */
  static Instant saturatedPlus(Instant t, Duration d) {
    try {
      return t.plus(d);
    } catch (DateTimeException | ArithmeticException e) {
      return Instant.MAX;
    }
  }

  /** {@code d} for a person or a model: "30 s", "2 min", "1500 ms", "3 days". */
  static String format(Duration d) {
    if (d.compareTo(Duration.ofDays(1)) >= 0) {
      return d.toDays() + " days";
    }
    if (d.toMillis() % 1000 == 0) {
      long s = d.getSeconds();
      return s % 60 == 0 && s >= 60 ? (s / 60) + " min" : s + " s";
    }
    return d.toMillis() + " ms";
  }
}
