package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.testing.Race;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, defect 8: live output is not kept for ever. A call's history holds one chunk of a stretch of output plus a
 * bounded tail and totals, whatever the call prints, while listeners still get every chunk, once each, in order.
 */
class OutputHistoryTest {

  private static ToolCall running(EventBus bus) {
    ToolCall call = ToolCall.builder("c", "build").eventBus(bus).build();
    assertThat(call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED).won())
        .isTrue();
    return call;
  }

  @Test
  void aChattyCallKeepsOneChunkAndATailWhileListenersGetEveryChunk() {
    EventBus bus = EventBus.create();
    StringBuilder seen = new StringBuilder();
    List<Long> sequences = new ArrayList<>();
    bus.subscribe(new EventListener() {
      @Override
      public void onOutputAppended(ToolCallEvent.OutputAppended e) {
        seen.append(e.change().chunk());
        sequences.add(e.change().sequence());
      }
    });
    ToolCall call = running(bus);
    StringBuilder all = new StringBuilder();
    int chunks = 5_000;
    for (int i = 1; i <= chunks; i++) {
      String chunk = "line " + i + " " + "x".repeat(i % 300) + "\n";
      all.append(chunk);
      assertThat(call.appendOutput(chunk, i, i % 7 == 0 ? 1 : 0).won()).isTrue();
    }
    assertThat(call.complete("ok").won()).isTrue();

    assertThat(seen.toString()).as("listeners saw every chunk, in order").isEqualTo(all.toString());
    assertThat(sequences).hasSize(chunks);
    ToolCallSnapshot end = call.snapshot();
    assertThat(end.version()).as("one version per chunk, numbered as before").isEqualTo(2 + chunks);
    List<ToolCallSnapshot> kept = end.versions();
    assertThat(kept).as("created, running, the latest chunk, completed").hasSize(4);
    assertThat(kept.stream().map(ToolCallSnapshot::version)).containsExactly(0, 1, 1 + chunks, 2 + chunks);
    Change.OutputAppended last = (Change.OutputAppended) kept.get(2).change();
    assertThat(last.sequence()).isEqualTo(chunks);
    assertThat(last.outputChars()).isEqualTo(all.length());
    assertThat(last.droppedTotal()).isEqualTo(chunks / 7);
    assertThat(last.tail()).hasSize(Change.OutputAppended.TAIL_CHARS)
        .isEqualTo(all.substring(all.length() - Change.OutputAppended.TAIL_CHARS));
    assertThat(end.history()).extracting(StateTransition::to)
        .containsExactly(ToolCallState.RUNNING, ToolCallState.COMPLETED);
    assertThat(end.toolStarted()).isTrue();
  }

  @Test
  void aFinishedCallKeepsTheEndOfALongChunkOnlyWhileListenersGotItWhole() {
    EventBus bus = EventBus.create();
    List<String> seen = new ArrayList<>();
    bus.subscribe(new EventListener() {
      @Override
      public void onOutputAppended(ToolCallEvent.OutputAppended e) {
        seen.add(e.change().chunk());
      }
    });
    ToolCall call = running(bus);
    String big = "0123456789".repeat(100_000); // a million chars in one flush
    call.appendOutput(big, 1, 0);
    call.complete("ok");
    assertThat(seen).containsExactly(big);
    Change.OutputAppended kept = (Change.OutputAppended) call.snapshot().previous().change();
    assertThat(kept.chunk()).hasSize(Change.OutputAppended.TAIL_CHARS).isEqualTo(big.substring(big.length()
        - Change.OutputAppended.TAIL_CHARS));
    assertThat(kept.outputChars()).isEqualTo(big.length());
    assertThat(kept.tail()).isEqualTo(kept.chunk());
  }

  @Test
  void outputAcrossARetryKeepsItsTotalsAndTheRetryStaysInTheHistory() {
    ToolCall call = running(EventBus.create());
    call.appendOutput("a", 1, 0);
    call.appendOutput("b", 2, 0);
    assertThat(call.scheduleRetry(2, java.time.Duration.ofMillis(5), "flaky").won()).isTrue();
    call.appendOutput("c", 3, 2);
    call.appendOutput("d", 4, 0);
    ToolCallSnapshot s = call.snapshot();
    assertThat(s.versions()).extracting(v -> v.change().getClass().getSimpleName())
        .containsExactly("Created", "Reason", "OutputAppended", "RetryScheduled", "OutputAppended");
    Change.OutputAppended o = (Change.OutputAppended) s.change();
    assertThat(o.tail()).isEqualTo("abcd");
    assertThat(o.outputChars()).isEqualTo(4);
    assertThat(o.droppedTotal()).isEqualTo(2);
  }

  @Test
  void aTailNeverSplitsASurrogatePair() {
    ToolCall call = running(EventBus.create());
    String emoji = "\uD83D\uDE00"; // one code point, two chars
    call.appendOutput("a" + emoji.repeat(Change.OutputAppended.TAIL_CHARS / 2), 1, 0);
    String tail = ((Change.OutputAppended) call.snapshot().change()).tail();
    assertThat(Character.isLowSurrogate(tail.charAt(0))).isFalse();
    assertThat(tail.codePoints().allMatch(cp -> cp == emoji.codePointAt(0))).isTrue();
  }

  /**
   * Invariant: while four threads append output to one call and an inline listener is slow, every version is handed
   * to the listener exactly once, in version order, with no gap, although the history lets go of chunks already
   * handed off; and each snapshot links one the listener has already seen (or a copy of it). Once every drain is
 * over, the finished call keeps four versions.
   */
  @Test
  void racingAppendersAndASlowListenerStillSeeEveryVersionOnceInOrder() throws Exception {
    EventBus bus = EventBus.create();
    List<ToolCallSnapshot> events = new ArrayList<>();
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event e) {
        if (e instanceof ToolCallEvent t) {
          events.add(t.snapshot()); // one-at-a-time delivery: no lock needed
          if (events.size() % 64 == 0) {
            Thread.yield();
          }
        }
      }
    });
    ToolCall call = running(bus);
    int threads = 4;
    int each = 2_000;
    Race.run(threads, Duration.ofSeconds(60), id -> {
      for (int i = 1; i <= each; i++) {
        call.appendOutput(id + ":" + i + ";", (long) id * each + i, 0);
      }
    });
    call.complete("ok");
    ToolCallSnapshot end = call.snapshot();
    assertThat(events).hasSize(end.version() + 1);
    for (int i = 0; i < events.size(); i++) {
      ToolCallSnapshot s = events.get(i);
      assertThat(s.version()).isEqualTo(i);
      if (i > 0) {
        ToolCallSnapshot link = s.previous();
        assertThat(events.subList(0, i)).as("version %d links a version already handed off (or a copy)", i)
            .anyMatch(earlier -> earlier == link
                || earlier.version() == link.version() && earlier.change() == link.change());
      }
    }
    long outputChars = 0;
    for (int t = 0; t < threads; t++) {
      for (int i = 1; i <= each; i++) {
        outputChars += (t + ":" + i + ";").length();
      }
    }
    Change.OutputAppended last = (Change.OutputAppended) end.previous().change();
    assertThat(last.outputChars()).isEqualTo(outputChars);
    assertThat(end.versions()).as("the finished history: created, running, the latest chunk, completed")
        .hasSize(4);
  }
}
