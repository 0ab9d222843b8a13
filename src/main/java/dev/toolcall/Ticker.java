package dev.toolcall;

/**
 * A monotonic nanosecond time source. Durations and deadlines are measured on it, never on the wall clock, so a
 * wall-clock jump neither fires nor delays anything. Only differences between two readings mean anything.
 *
 * <p>Implementations must be thread-safe and cheap: one reading is taken per change of a call.
 */
@FunctionalInterface
public interface Ticker {

  /** Nanoseconds since an arbitrary origin; never decreases. */
  long read();

  /** {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
