package dev.toolcall.bench;

/**
 * One implementation under test, prepared once per trial: {@link #lifecycle()} creates a fresh machine and runs it
 * through PENDING -&gt; PERMISSION_PENDING -&gt; PERMISSION_APPROVED -&gt; RUNNING -&gt; COMPLETED. Every adapter
 * checks that each step took effect and throws otherwise, so a broken adapter cannot report a fast figure.
 */
interface LifecycleAdapter {

  /** Runs one full lifecycle on a new machine and returns something derived from its end (for the blackhole). */
  Object lifecycle();

  /** Releases what {@code create} set up (nothing for most). */
  default void close() {}

  static IllegalStateException broken(String impl, Object where) {
    return new IllegalStateException(impl + ": a lifecycle step did not take effect, at " + where);
  }
}
