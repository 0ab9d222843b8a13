package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.testing.Logs;
import dev.toolcall.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link ToolCall#onTerminal}: each action runs exactly once with the terminal snapshot, after the terminal event, at
 * once when the call has ended, beside {@link ToolCall#whenTerminal()}'s one stage, and isolated from the others.
 */
class OnTerminalTest {

  @Test
  void anActionRunsOnceAfterTheTerminalEventNewestFirst() {
    List<String> seen = new CopyOnWriteArrayList<>();
    ToolCall call = ToolCall.builder("c", "t").eventBus(dev.toolcall.event.EventBus.create()).build();
    AtomicReference<ToolCallSnapshot> got = new AtomicReference<>();
    call.onTerminal(s -> seen.add("first " + s.state()));
    CompletionStageProbe stage = new CompletionStageProbe(call);
    call.onTerminal(s -> {
      seen.add("second " + s.state());
      got.set(s);
    });
    assertThat(seen).isEmpty();
    ToolCallSnapshot end = call.cancel("stop").snapshot();
    assertThat(seen).containsExactly("second CANCELLED", "first CANCELLED");
    assertThat(got.get()).isSameAs(end);
    assertThat(stage.value()).isSameAs(end);
    assertThat((Object) call.whenTerminal()).as("still the one stage").isSameAs(stage.stage);
    call.cancel("again");
    assertThat(seen).hasSize(2);
  }

  @Test
  void anActionAddedAfterTheEndRunsAtOnceAndSoDoesOneOfARestoredEndedCall() {
    ToolCall call = ToolCall.builder("c", "t").build();
    ToolCallSnapshot end = call.cancel("stop").snapshot();
    AtomicReference<ToolCallSnapshot> got = new AtomicReference<>();
    call.onTerminal(got::set);
    assertThat(got.get()).isSameAs(end);
    assertThat(call.whenTerminal().toCompletableFuture().join()).isSameAs(end);
    AtomicInteger runs = new AtomicInteger();
    call.onTerminal(s -> runs.incrementAndGet());
    assertThat(runs).hasValue(1);

    ToolCall restored = ToolCall.restore(end, dev.toolcall.event.EventBus.create(), Ticker.system());
    AtomicReference<ToolCallSnapshot> late = new AtomicReference<>();
    restored.onTerminal(late::set);
    assertThat(late.get()).isSameAs(end);
  }

  @Test
  void anActionThatThrowsIsLoggedAndTheOthersStillRun() {
    ToolCall call = ToolCall.builder("c", "t").build();
    AtomicInteger runs = new AtomicInteger();
    call.onTerminal(s -> runs.incrementAndGet());
    call.onTerminal(s -> {
      throw new IllegalStateException("boom");
    });
    call.onTerminal(s -> runs.incrementAndGet());
    assertThat(call.cancel("stop").won()).isTrue();
    assertThat(runs).hasValue(2);
    assertThat(Logs.of(ToolCall.class)).singleElement().satisfies(e -> {
      assertThat(e.message()).contains("onTerminal action of call c (t) failed");
      assertThat(e.error()).hasMessage("boom");
    });
    assertThatThrownBy(() -> call.onTerminal(null)).isInstanceOf(NullPointerException.class).hasMessage("action");
  }

  /**
   * Actions and the stage added by several threads while another ends the call: every action runs exactly once,
   * with the terminal snapshot, and the stage is one and completes. 200 rounds; one lost or doubled action fails.
   */
  @Test
  void actionsAddedWhileTheCallEndsRunExactlyOnce() throws Exception {
    for (int round = 0; round < 200; round++) {
      ToolCall call = ToolCall.builder("c" + round, "t").build();
      int adders = 3;
      int each = 20;
      AtomicInteger[] runs = new AtomicInteger[adders * each];
      for (int i = 0; i < runs.length; i++) {
        runs[i] = new AtomicInteger();
      }
      AtomicReference<Object> stage = new AtomicReference<>();
      List<String> wrong = new CopyOnWriteArrayList<>();
      Race.run(adders + 1, Duration.ofSeconds(10), t -> {
        if (t == adders) {
          call.cancel("stop");
          return;
        }
        for (int i = 0; i < each; i++) {
          AtomicInteger mine = runs[t * each + i];
          call.onTerminal(s -> {
            if (!s.isTerminal()) {
              wrong.add("ran with " + s.state());
            }
            mine.incrementAndGet();
          });
          if (i == each / 2) {
            Object f = call.whenTerminal();
            if (!stage.compareAndSet(null, f) && stage.get() != f) {
              wrong.add("a second stage");
            }
          }
        }
      });
      assertThat(wrong).as("round %d", round).isEmpty();
      for (AtomicInteger r : runs) {
        assertThat(r).as("round %d: each action once", round).hasValue(1);
      }
      assertThat(((CompletableFuture<?>) stage.get()).get(1, TimeUnit.SECONDS)).isSameAs(call.snapshot());
    }
  }

  /** Reads the call's stage. */
  private static final class CompletionStageProbe {
    final Object stage;

    CompletionStageProbe(ToolCall call) {
      this.stage = call.whenTerminal();
    }

    Object value() {
      CompletableFuture<?> f = (CompletableFuture<?>) stage;
      return f.isDone() ? f.join() : null;
    }
  }
}
