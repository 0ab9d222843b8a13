package dev.toolcall.presentation;

import dev.toolcall.Change;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventBus;
import dev.toolcall.ToolArguments;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** Calls on a hand-moved ticker and a fixed clock, for the presentation tests. */
final class Calls {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  final AtomicLong ticks = new AtomicLong(1_000_000_000L);
  final Clock clock = Clock.fixed(T0, ZoneOffset.UTC);
  final EventBus bus = EventBus.create();

  long now() {
    return ticks.get();
  }

  void advance(Duration d) {
    ticks.addAndGet(d.toNanos());
  }

  ToolCall call(String id, String tool, String args) {
    return ToolCall.builder(id, tool).sessionId("s").clock(clock).ticker(ticks::get).eventBus(bus)
        .arguments(ToolArguments.ofText(args)).build();
  }

  ToolCall nested(String id, String tool, String parent) {
    return ToolCall.builder(id, tool).sessionId("s").clock(clock).ticker(ticks::get).eventBus(bus)
        .parentCallId(parent).build();
  }

  /** PENDING -> PERMISSION_PENDING with a request whose deadline is {@code timeout} from now. */
  void ask(ToolCall call, Duration timeout) {
    long deadlineTick = ticks.get() + timeout.toNanos();
    call.transition(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING, new Change.PermissionAsked("req-"
        + call.callId(), 0, call.identity().instantOf(deadlineTick), deadlineTick));
  }

  void run(ToolCall call) {
    call.transition(call.state(), ToolCallState.RUNNING,
        call.state() == ToolCallState.PENDING ? Reason.NO_PERMISSION_NEEDED : Reason.STARTED);
  }

  Presenter presenter(Theme theme) {
    return Presenter.builder().theme(theme).ticker(ticks::get).outputTailLines(3).build();
  }
}
