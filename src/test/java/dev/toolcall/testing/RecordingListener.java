package dev.toolcall.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Records every event and checks, on each one, that the events of each source arrive in version order with no gap
 * and no repeat. A violation cannot be thrown from {@link #onEvent} (the bus isolates listener failures, so the
 * test would never see it); it is recorded instead, and {@link #events()} and {@link #eventsOf} fail with it.
 * Thread-safe.
 */
public final class RecordingListener implements EventListener {
  private final List<Event> events = new ArrayList<>();
  private final Map<String, Long> lastVersion = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private final boolean requireStartAtZero;

  public RecordingListener() {
    this(true);
  }

  /** @param requireStartAtZero false for a listener subscribed mid-stream (its first version may be anything) */
  public RecordingListener(boolean requireStartAtZero) {
    this.requireStartAtZero = requireStartAtZero;
  }

  @Override
  public synchronized void onEvent(Event event) {
    Long last = lastVersion.get(event.sourceId());
    if (last == null) {
      if (requireStartAtZero && event.version() != 0) {
        violations.add("first event of " + event.sourceId() + " has version " + event.version() + ", not 0");
      }
    } else if (event.version() != last + 1) {
      violations.add("version " + event.version() + " of " + event.sourceId() + " came after " + last);
    }
    lastVersion.put(event.sourceId(), event.version());
    events.add(event);
  }

  /** Every event so far; fails if any arrived out of order. */
  public synchronized List<Event> events() {
    assertInOrder();
    return List.copyOf(events);
  }

  /** The events of one source; fails if any event arrived out of order. */
  public synchronized List<Event> eventsOf(String sourceId) {
    assertInOrder();
    return events.stream().filter(e -> e.sourceId().equals(sourceId)).toList();
  }

  /** Fails with every order violation seen so far. */
  public synchronized void assertInOrder() {
    assertThat(violations).as("events out of version order, gapped or repeated").isEmpty();
  }
}
