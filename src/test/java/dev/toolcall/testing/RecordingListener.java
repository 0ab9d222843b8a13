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
 * and no repeat. Thread-safe.
 */
public final class RecordingListener implements EventListener {
  private final List<Event> events = new ArrayList<>();
  private final Map<String, Long> lastVersion = new HashMap<>();
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
      if (requireStartAtZero) {
        assertThat(event.version()).as("first event of %s", event.sourceId()).isZero();
      }
    } else {
      assertThat(event.version()).as("version after %s of %s", last, event.sourceId()).isEqualTo(last + 1);
    }
    lastVersion.put(event.sourceId(), event.version());
    events.add(event);
  }

  public synchronized List<Event> events() {
    return List.copyOf(events);
  }

  public synchronized List<Event> eventsOf(String sourceId) {
    return events.stream().filter(e -> e.sourceId().equals(sourceId)).toList();
  }
}
