package dev.toolcall.event;

/**
 * A listener's registration on an {@link EventBus}. Closing it is idempotent; once {@link #close()} returns, the
 * listener is not invoked again (an invocation already running on another thread finishes first; a listener may
 * close its own subscription from inside a callback).
 */
public interface Subscription extends AutoCloseable {

  /** Stops delivery to the listener. Never throws. */
  @Override
  void close();

  /** Whether {@link #close()} has been called. */
  boolean isClosed();
}
