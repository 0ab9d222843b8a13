package dev.toolcall.bench;

import static dev.toolcall.ToolCallState.PENDING;
import static dev.toolcall.ToolCallState.PERMISSION_APPROVED;
import static dev.toolcall.ToolCallState.PERMISSION_PENDING;
import static dev.toolcall.ToolCallState.RUNNING;

import dev.toolcall.Reason;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * Our {@link ToolCall}: built per lifecycle on a bus shared by all calls of the trial, which has one inline no-op
 * subscriber (so every version is turned into an event and delivered), then three transitions and
 * {@link ToolCall#complete}. With a fixed time source the clock and ticker cost nothing; with the real one the call
 * reads {@link Clock#systemUTC()} once at creation and {@link System#nanoTime()} once per change.
 */
final class ToolCallLifecycle implements LifecycleAdapter {

  static final Clock FIXED_CLOCK = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
  static final Ticker FIXED_TICKER = () -> 42L;

  private final EventBus bus;
  private final Clock clock;
  private final Ticker ticker;

  ToolCallLifecycle(boolean realTime) {
    this(newBusWithNoOpSubscriber(), realTime);
  }

  ToolCallLifecycle(EventBus bus, boolean realTime) {
    this.bus = bus;
    this.clock = realTime ? Clock.systemUTC() : FIXED_CLOCK;
    this.ticker = realTime ? Ticker.system() : FIXED_TICKER;
  }

  /** A bus with one inline listener that does nothing (every event still goes through dispatch). */
  static EventBus newBusWithNoOpSubscriber() {
    EventBus bus = EventBus.create();
    bus.subscribe(new EventListener() {});
    return bus;
  }

  static ToolCallSnapshot run(EventBus bus, Clock clock, Ticker ticker) {
    ToolCall call = ToolCall.builder("call_0", "read_file").eventBus(bus).clock(clock).ticker(ticker).build();
    if (call.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED).lost()
        || call.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE).lost()
        || call.transition(PERMISSION_APPROVED, RUNNING, Reason.STARTED).lost()
        || call.complete("ok").lost()) {
      throw LifecycleAdapter.broken("ToolCall", call);
    }
    return call.snapshot();
  }

  @Override
  public Object lifecycle() {
    return run(bus, clock, ticker);
  }
}
