package dev.toolcall;

/**
 * Where a {@link ToolCall} hands each version it installs, to be published as an event.
 * {@code dev.toolcall.event.EventBus} is the one the library provides (it wraps each version in a
 * {@code ToolCallEvent} for its subscribers); this seam keeps the call free of the event types above it.
 *
 * <p>A call calls {@link #publish} from the thread that drains its versions: one version at a time, in version
 * order, each exactly once, never after the terminal version. An implementation must not block and should not throw;
 * what it throws is not the call's failure (the call goes on, and its {@code whenTerminal} still completes).
 */
@FunctionalInterface
public interface ToolCallPublisher {

  /** A publisher that drops every version: what a call built without a bus publishes to. */
  ToolCallPublisher NONE = version -> {};

  /**
   * Publishes one version of a call.
   *
   * @param version the version just installed
   */
  void publish(ToolCallSnapshot version);
}
