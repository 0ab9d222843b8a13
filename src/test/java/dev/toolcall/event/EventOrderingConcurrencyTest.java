package dev.toolcall.event;

import static dev.toolcall.ToolCallState.*;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.FailureKind;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.testing.Histories;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.ToolArguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Per call, every subscriber sees the events in version order, each exactly once, when several threads race
 * changes on the same call. The racers, released by one start latch, append output (which many threads win in
 * turn), edit arguments and schedule retries, and then each tries to end the call (complete, fail or cancel). Two
 * inline subscribers and two on executors must each see exactly the call's history, version 0 to the last, every
 * event carrying the very snapshot the history holds; exactly one racer ends the call.
 *
 * <p>The default run does it a few times; {@code mvn verify -DexcludedGroups= -Dgroups=stress} runs the tagged
 * variant many more times.
 */
class EventOrderingConcurrencyTest {

  private static final int RACERS = 4;
  private final ExecutorService racers = Executors.newFixedThreadPool(RACERS);
  private final ExecutorService listeners = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    racers.shutdownNow();
    listeners.shutdownNow();
  }

  @RepeatedTest(5)
  void racingChangesReachEverySubscriberInVersionOrderExactlyOnce() throws Exception {
    race(400);
  }

  @Tag("stress")
  @RepeatedTest(200)
  void stressRacingChangesReachEverySubscriberInVersionOrderExactlyOnce() throws Exception {
    race(2_000);
  }

  @Test
  void appendsFromManyThreadsAllWinInTurnWhileRunning() throws Exception {
    EventBus bus = EventBus.create();
    EventBusTest.BlockingRecorder async = new EventBusTest.BlockingRecorder();
    List<Event> inline = new ArrayList<>();
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(Event e) {
        inline.add(e); // inline delivery for one call is never concurrent: a plain list is safe here
      }
    });
    bus.subscribe(async, listeners);
    ToolCall call = ToolCall.builder("c", "tool").eventBus(bus).build();
    call.transition(PENDING, RUNNING, Reason.STARTED);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> done = new ArrayList<>();
    for (int t = 0; t < RACERS; t++) {
      done.add(racers.submit(() -> {
        EventBusTest.await(start);
        int wins = 0;
        for (int i = 0; i < 500; i++) {
          wins += call.appendOutput("x", i, 0).won() ? 1 : 0;
        }
        return wins;
      }));
    }
    start.countDown();
    for (Future<Integer> f : done) {
      assertThat(f.get(10, SECONDS)).as("every append of a running call wins, in turn").isEqualTo(500);
    }
    ToolCallSnapshot last = call.snapshot();
    assertThat(last.version()).isEqualTo(1 + RACERS * 500);
    async.awaitVersion("c", last.version());
    assertEqualsHistory(inline, last);
    assertEqualsHistory(async.events(), last);
  }

  private void race(int updatesPerRacer) throws Exception {
    EventBus bus = EventBus.create();
    List<List<Event>> inline = List.of(new ArrayList<>(), new ArrayList<>());
    for (List<Event> sink : inline) {
      bus.subscribe(new EventListener() {
        @Override
        public void onEvent(Event e) {
          sink.add(e);
        }
      });
    }
    List<EventBusTest.BlockingRecorder> async = List.of(new EventBusTest.BlockingRecorder(),
        new EventBusTest.BlockingRecorder());
    for (EventBusTest.BlockingRecorder r : async) {
      bus.subscribe(r, listeners);
    }
    ToolCall call = ToolCall.builder("c", "tool").eventBus(bus).build();
    call.transition(PENDING, RUNNING, Reason.STARTED);

    CountDownLatch ready = new CountDownLatch(RACERS);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<int[]>> futures = new ArrayList<>();
    for (int t = 0; t < RACERS; t++) {
      int id = t;
      futures.add(racers.submit(() -> {
        ready.countDown();
        EventBusTest.await(start);
        int wins = 0;
        for (int i = 0; i < updatesPerRacer; i++) {
          TransitionResult<ToolCallSnapshot> r = switch (i % 8) {
            case 3 -> call.modifyArguments(RUNNING, ToolArguments.ofText(id + ":" + i), "racer-" + id);
            case 7 -> call.scheduleRetry(call.snapshot().attempt() + 1, Duration.ZERO, "transient");
            default -> call.appendOutput(id + ":" + i, i, 0);
          };
          wins += r.won() ? 1 : 0;
        }
        TransitionResult<ToolCallSnapshot> end = switch (id % 3) {
          case 0 -> call.complete("racer-" + id);
          case 1 -> call.fail(FailureKind.TOOL_ERROR, "racer-" + id);
          default -> call.cancel("racer-" + id);
        };
        return new int[] {wins, end.won() ? 1 : 0};
      }));
    }
    assertThat(ready.await(10, SECONDS)).isTrue();
    start.countDown();
    int wins = 0;
    int enders = 0;
    for (Future<int[]> f : futures) {
      int[] r = f.get(10, SECONDS);
      wins += r[0];
      enders += r[1];
    }
    ToolCallSnapshot last = call.snapshot();
    assertThat(enders).as("exactly one racer ends the call").isEqualTo(1);
    assertThat(last.isTerminal()).isTrue();
    assertThat(last.version()).as("one version per winning change").isEqualTo(1 + wins + 1);
    for (List<Event> sink : inline) {
      assertEqualsHistory(sink, last);
    }
    for (EventBusTest.BlockingRecorder r : async) {
      r.awaitVersion("c", last.version());
      assertEqualsHistory(r.events(), last);
    }
  }

  /** The events are every version, 0 to the last, each once, in order, and agree with the retained history. */
  static void assertEqualsHistory(List<Event> events, ToolCallSnapshot last) {
    Histories.assertSeenEveryVersionOf(events.stream().map(e -> ((ToolCallEvent) e).snapshot()).toList(), last);
  }
}
