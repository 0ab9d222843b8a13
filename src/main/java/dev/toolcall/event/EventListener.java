package dev.toolcall.event;

import java.util.List;
import java.util.Objects;

/**
 * Receives events. Override {@link #onEvent} to see everything, or the typed methods for what you need; each
 * defaults to doing nothing, so new event types added later never break a listener.
 *
 * <p>A listener is never invoked concurrently with itself for one subscription. An inline listener (subscribed
 * without an executor) runs on a thread that changed a call: it must be quick and must not block. A listener that
 * throws is logged and skipped; it keeps receiving later events.
 */
public interface EventListener {

  /** A listener that ignores everything. */
  EventListener NONE = new EventListener() {};

  /** Called for every event; by default dispatches to the typed methods below. */
  default void onEvent(Event event) {
    if (event instanceof ToolCallEvent.CallCreated e) {
      onCallCreated(e);
    } else if (event instanceof ToolCallEvent.StateChanged e) {
      onStateChanged(e);
    } else if (event instanceof ToolCallEvent.ArgumentsModified e) {
      onArgumentsModified(e);
    } else if (event instanceof ToolCallEvent.OutputAppended e) {
      onOutputAppended(e);
    } else if (event instanceof ToolCallEvent.RetryScheduled e) {
      onRetryScheduled(e);
    } else if (event instanceof ConversationEvent e) {
      onConversationEvent(e);
    } else if (event instanceof ToolSetEvent e) {
      onToolSetChanged(e);
    }
  }

  /** A call was created. */
  default void onCallCreated(ToolCallEvent.CallCreated event) {}

  /** A call changed state. */
  default void onStateChanged(ToolCallEvent.StateChanged event) {}

  /** A call's arguments were replaced. */
  default void onArgumentsModified(ToolCallEvent.ArgumentsModified event) {}

  /** A running call wrote output. */
  default void onOutputAppended(ToolCallEvent.OutputAppended event) {}

  /** A call will be retried. */
  default void onRetryScheduled(ToolCallEvent.RetryScheduled event) {}

  /** A conversation was created or changed state. */
  default void onConversationEvent(ConversationEvent event) {}

  /** The runtime's tool set changed. */
  default void onToolSetChanged(ToolSetEvent event) {}

  /** A listener that passes every event to {@code onEvent}. */
  static EventListener of(java.util.function.Consumer<? super Event> onEvent) {
    Objects.requireNonNull(onEvent, "onEvent");
    return new EventListener() {
      @Override
      public void onEvent(Event event) {
        onEvent.accept(event);
      }
    };
  }

  /**
   * One listener that calls each of {@code listeners} in order. A throw from one is logged and isolated: the ones
   * after it still see the event.
   */
  static EventListener all(EventListener... listeners) {
    Objects.requireNonNull(listeners, "listeners");
    for (EventListener l : listeners) {
      Objects.requireNonNull(l, "listener"); // before List.of, whose own null check names nothing
    }
    List<EventListener> copy = List.of(listeners);
    return new EventListener() {
      @Override
      public void onEvent(Event event) {
        for (EventListener l : copy) {
          EventBus.invokeIsolated(l, event);
        }
      }
    };
  }
}
