package dev.toolcall.jcstress;

import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** Shared set-up of the jcstress races: a call with a recording subscriber. */
final class Races {
  private static final Clock CLOCK = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);

  private Races() {}

  /** A call and the recorder subscribed to its bus. */
  record Fixture(ToolCall call, Recorder recorder, EventBus bus) {}

  /** A call moved PENDING -> RUNNING, with a recorder that saw both events. */
  static Fixture runningCall() {
    EventBus bus = EventBus.create();
    Recorder rec = new Recorder();
    bus.subscribe(rec);
    ToolCall call = ToolCall.builder("call", "tool").clock(CLOCK).ticker(() -> 0L).eventBus(bus).build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.STARTED);
    return new Fixture(call, rec, bus);
  }

  /** 1 when the call ended with an outcome of {@code first}, 2 of {@code second}, 9 otherwise. */
  static int finalState(ToolCall call, Class<? extends Outcome> first, Class<? extends Outcome> second) {
    ToolCallSnapshot s = call.snapshot();
    if (first.isInstance(s.outcome())) {
      return 1;
    }
    return second.isInstance(s.outcome()) ? 2 : 9;
  }

  /** Counts events and keeps the last; inline delivery, so no two invocations overlap. */
  static final class Recorder implements EventListener {
    private int count;
    private long lastVersion = -1;
    private boolean inOrder = true;
    private ToolCallSnapshot last;

    @Override
    public synchronized void onEvent(Event event) {
      if (event.version() != lastVersion + 1) {
        inOrder = false;
      }
      lastVersion = event.version();
      last = ((ToolCallEvent) event).snapshot();
      count++;
    }

    synchronized int count() {
      return count;
    }

    /** Created, running and one terminal event, in order, the last being {@code end}. */
    synchronized boolean sawLifecycleEndingIn(ToolCallSnapshot end) {
      return inOrder && count == 3 && last == end;
    }
  }
}
