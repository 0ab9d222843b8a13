package dev.toolcall.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock the test moves ({@link #advance}); thread-safe. */
public final class MovableClock extends Clock {
  private volatile Instant now;

  public MovableClock(Instant now) {
    this.now = now;
  }

  /** Moves the clock on by {@code d}. */
  public void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
