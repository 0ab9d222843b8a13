package dev.toolcall;

import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.event.EventBus;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.fsm.IllegalTransitionException;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.testing.RecordingListener;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ToolCallTest {
  final AtomicLong ticks = new AtomicLong(1_000);
  final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
  final EventBus bus = EventBus.create();
  final RecordingListener rec = new RecordingListener();

  ToolCall newCall() {
    bus.subscribe(rec);
    return ToolCall.builder("call-1", "shell").sessionId("s1").clock(clock).ticker(ticks::get).eventBus(bus).build();
  }

  @Test
  void fullLifecycleRecordsHistoryEventsAndOutcome() {
    ToolCall call = newCall();
    assertThat(call.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED).won()).isTrue();
    ticks.addAndGet(5_000);
    assertThat(call.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE).won()).isTrue();
    assertThat(call.transition(PERMISSION_APPROVED, RUNNING, Reason.STARTED).won()).isTrue();
    ticks.addAndGet(1_000_000);
    TransitionResult<ToolCallSnapshot> done = call.complete("ok");

    assertThat(done.won()).isTrue();
    ToolCallSnapshot s = done.snapshot();
    assertThat(s.state()).isEqualTo(COMPLETED);
    assertThat(s.version()).isEqualTo(4);
    assertThat(s.outcome()).isEqualTo(new Outcome.Completed("ok"));
    assertThat(s.attempt()).isEqualTo(1);
    assertThat(s.history()).extracting(StateTransition::from, StateTransition::to)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(PENDING, PERMISSION_PENDING),
            org.assertj.core.groups.Tuple.tuple(PERMISSION_PENDING, PERMISSION_APPROVED),
            org.assertj.core.groups.Tuple.tuple(PERMISSION_APPROVED, RUNNING),
            org.assertj.core.groups.Tuple.tuple(RUNNING, COMPLETED));
    assertThat(s.history().get(1).timeInFrom().toNanos()).isEqualTo(5_000);
    assertThat(s.history().get(3).timeInFrom().toNanos()).isEqualTo(1_000_000);
    assertThat(s.timestamp()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z").plusNanos(1_005_000));

    assertThat(rec.events()).hasSize(5);
    assertThat(rec.events().get(0)).isInstanceOf(ToolCallEvent.CallCreated.class);
    assertThat(rec.events().subList(1, 5)).allMatch(e -> e instanceof ToolCallEvent.StateChanged);
    assertThat(call.whenTerminal().toCompletableFuture().getNow(null)).isSameAs(s);
  }

  @Test
  void lostRaceChangesNothingAndReportsTheWinner() {
    ToolCall call = newCall();
    call.transition(PENDING, RUNNING, Reason.NO_PERMISSION_NEEDED);
    call.cancel("user pressed esc");
    TransitionResult<ToolCallSnapshot> late = call.complete("late result");
    assertThat(late.won()).isFalse();
    assertThat(late.snapshot().outcome()).isEqualTo(new Outcome.Cancelled("user pressed esc"));
    assertThat(call.snapshot().version()).isEqualTo(2);
    assertThat(call.cancel("again").won()).isFalse();
  }

  @Test
  void illegalEdgeThrowsNamingFromToAndAllowedAndChangesNothing() {
    ToolCall call = newCall();
    assertThatThrownBy(() -> call.transition(RUNNING, COMPLETED, Reason.SUCCEEDED))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs an outcome");
    assertThatThrownBy(() -> call.transition(PERMISSION_DENIED, RUNNING, Reason.STARTED))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("PERMISSION_DENIED -> RUNNING")
        .hasMessageContaining("terminal");
    assertThatThrownBy(() -> call.terminate(PENDING, new Outcome.Completed("x"), Reason.SUCCEEDED))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("PENDING -> COMPLETED")
        .hasMessageContaining("PERMISSION_PENDING")
        .hasMessageContaining("RUNNING");
    assertThat(call.snapshot().version()).isZero();
    assertThat(call.state()).isEqualTo(PENDING);
  }

  @Test
  void badInputIsRefusedAtTheBoundary() {
    assertThatThrownBy(() -> ToolCall.builder(" ", "t")).hasMessageContaining("callId");
    assertThatThrownBy(() -> ToolCall.builder("c", null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("toolName");
    ToolCall call = newCall();
    assertThatThrownBy(() -> call.transition(null, RUNNING, Reason.STARTED)).hasMessageContaining("expected");
    assertThatThrownBy(() -> call.transition(PENDING, RUNNING, null)).hasMessageContaining("change");
    assertThatThrownBy(() -> ToolCallState.fromWireName("done"))
        .hasMessageContaining("pending, permission_pending, permission_approved");
  }
}
