package dev.toolcall.bench;

import java.time.Clock;
import java.time.Instant;

/**
 * Not a state machine: only the time reads that {@code TOOLCALL_REAL_TIME} makes per lifecycle and
 * {@code TOOLCALL_FIXED_TIME} does not: one {@link Clock#instant()} of {@link Clock#systemUTC()} at creation and one
 * {@link System#nanoTime()} per version (five). Measured in the same run, it is what "real time minus fixed time"
 * should come to when the call takes one time read per change and nothing else.
 */
final class TimeReadsOnly implements LifecycleAdapter {

  private final Clock clock = Clock.systemUTC();

  @Override
  public Object lifecycle() {
    Instant created = clock.instant();
    long ticks = System.nanoTime();
    ticks += System.nanoTime();
    ticks += System.nanoTime();
    ticks += System.nanoTime();
    ticks += System.nanoTime();
    return ticks == 0 ? null : created;
  }
}
