package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.StateDetail;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Reason;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.fsm.IllegalTransitionException;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.testing.RecordingListener;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConversationTest {
  final AtomicLong ticks = new AtomicLong(500);
  final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
  final EventBus bus = EventBus.create();
  final RecordingListener rec = new RecordingListener();

  Conversation newConversation() {
    bus.subscribe(rec);
    return Conversation.builder("conv-1").clock(clock).ticker(ticks::get).eventBus(bus).build();
  }

  @Test
  void aTurnWithToolsAndARetryCountsTurnsRoundTripsAndRetries() {
    Conversation c = newConversation();
    assertThat(c.snapshot().state()).isEqualTo(IDLE);
    assertThat(c.snapshot().turn()).isZero();
    assertThat(c.startTurn().won()).isTrue();
    assertThat(c.snapshot().turn()).isEqualTo(1);
    c.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
    assertThat(c.snapshot().roundTrips()).isEqualTo(1);
    TransitionResult<ConversationSnapshot> t1 = c.transientFailure(AWAITING_LLM_RESPONSE, "rate limited");
    assertThat(t1.snapshot().detail()).isEqualTo(new StateDetail.TransientFailure("rate limited", 1));
    assertThat(t1.snapshot().retryCount()).isEqualTo(1);
    c.transition(TRANSIENT_FAILURE, AWAITING_LLM_RESPONSE, ConversationReasons.RETRYING);
    assertThat(c.snapshot().roundTrips()).as("a retry is not a new round trip").isEqualTo(1);
    assertThat(c.snapshot().detail()).isNull();
    assertThat(c.transientFailure(AWAITING_LLM_RESPONSE, "again").snapshot().retryCount()).isEqualTo(2);
    c.transition(TRANSIENT_FAILURE, AWAITING_LLM_RESPONSE, ConversationReasons.RETRYING);
    c.transition(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, ConversationReasons.MODEL_RESPONDED);
    c.transition(PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, ConversationReasons.TOOLS_STARTED);
    c.transition(EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS, ConversationReasons.TOOLS_DONE);
    c.transition(PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE, ConversationReasons.CONTINUING);
    c.transition(GENERATING_RESPONSE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
    assertThat(c.snapshot().roundTrips()).isEqualTo(2);
    assertThat(c.transientFailure(AWAITING_LLM_RESPONSE, "fresh").snapshot().retryCount())
        .as("a new request's first failure counts from 1").isEqualTo(1);
    c.transition(TRANSIENT_FAILURE, AWAITING_LLM_RESPONSE, ConversationReasons.RETRYING);
    c.transition(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, ConversationReasons.MODEL_RESPONDED);
    ticks.addAndGet(7_000);
    ConversationSnapshot end = c.transition(PROCESSING_LLM_RESPONSE, IDLE, ConversationReasons.FINAL_ANSWER)
        .snapshot();

    assertThat(end.version()).isEqualTo(15);
    assertThat(end.turn()).isEqualTo(1);
    assertThat(end.timestamp()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z").plusNanos(7_000));
    assertThat(c.startTurn().snapshot()).extracting(ConversationSnapshot::turn, ConversationSnapshot::roundTrips)
        .containsExactly(2, 0);

    List<Event> events = rec.events();
    assertThat(events).hasSize(17).allMatch(e -> e instanceof ConversationEvent);
    assertThat(events).extracting(Event::sourceId).containsOnly("conv-1");
    assertThat(events).extracting(Event::sessionId).containsOnly("conv-1");
    ConversationProperties.assertSeenEveryVersion(
        events.stream().map(e -> ((ConversationEvent) e).snapshot()).toList(), c.snapshot());
    assertThat(c.snapshot().versions()).as("one turn of history: the version before it and the turn's own")
        .extracting(ConversationSnapshot::version).containsExactly(15, 16);
    ConversationEvent first = (ConversationEvent) events.get(0);
    assertThat(first.isCreation()).isTrue();
    assertThat(first.from()).isNull();
    assertThat(first.reason()).isEqualTo(ConversationReasons.CREATED);
    ConversationEvent last = (ConversationEvent) events.get(16);
    assertThat(last.from()).isEqualTo(IDLE);
    assertThat(last.to()).isEqualTo(PROCESSING_USER_MESSAGE);
  }

  /** Issue 14, defect 8: a long-lived conversation keeps one turn of snapshot history, not every version. */
  @Test
  void aLongLivedConversationKeepsOneTurnOfHistory() {
    Conversation c = newConversation();
    for (int turn = 1; turn <= 500; turn++) {
      assertThat(c.startTurn().won()).isTrue();
      c.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
      c.transition(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, ConversationReasons.MODEL_RESPONDED);
      c.transition(PROCESSING_LLM_RESPONSE, IDLE, ConversationReasons.FINAL_ANSWER);
    }
    ConversationSnapshot end = c.snapshot();
    assertThat(end.version()).isEqualTo(2_000);
    assertThat(end.turn()).isEqualTo(500);
    assertThat(end.versions()).extracting(ConversationSnapshot::state)
        .containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, IDLE);
    assertThat(rec.events()).hasSize(2_001);
  }

  @Test
  void detailsAreInstalledWithTheirStateAndOnlyThere() {
    Conversation c = newConversation();
    c.startTurn();
    c.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
    c.transition(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, ConversationReasons.MODEL_RESPONDED);
    ConversationSnapshot te = c.toolError(PROCESSING_LLM_RESPONSE, "reed_file", "unknown tool").snapshot();
    assertThat(te.detail()).isEqualTo(new StateDetail.ToolError("reed_file", "unknown tool"));
    assertThat(te.error()).contains("unknown tool");
    c.transition(HANDLING_TOOL_ERROR, GENERATING_RESPONSE, ConversationReasons.CONTINUING);
    assertThat(c.snapshot().detailIfPresent()).isEmpty();
    c.transition(GENERATING_RESPONSE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
    ConversationSnapshot f = c.fail(AWAITING_LLM_RESPONSE, "credentials refused").snapshot();
    assertThat(f.detail()).isEqualTo(new StateDetail.Failure("credentials refused"));
    assertThat(f.state().isBusy()).isFalse();
    assertThat(c.startTurn().won()).as("a new message leaves FAILED").isTrue();
    assertThat(c.snapshot().turn()).isEqualTo(2);

    assertThatThrownBy(() -> c.transition(PROCESSING_USER_MESSAGE, FAILED, ConversationReasons.TURN_FAILED))
        .isInstanceOf(IllegalTransitionException.class);
    c.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
    assertThatThrownBy(() -> c.transition(AWAITING_LLM_RESPONSE, FAILED, ConversationReasons.TURN_FAILED))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("carries a detail");
    assertThatThrownBy(() -> new ConversationSnapshot("x", Instant.EPOCH, 0, FAILED, 0, null, 0, 0,
        ConversationReasons.CREATED, 0, null)).hasMessageContaining("does not agree with detail");
    assertThatThrownBy(() -> new ConversationSnapshot("x", Instant.EPOCH, 0, IDLE, 0,
        new StateDetail.Failure("e"), 0, 0, ConversationReasons.CREATED, 0, null))
        .hasMessageContaining("does not agree with detail");
    assertThatThrownBy(() -> new ConversationSnapshot("x", Instant.EPOCH, 0, TRANSIENT_FAILURE, 0,
        new StateDetail.ToolError("t", "e"), 0, 0, ConversationReasons.CREATED, 0, null))
        .hasMessageContaining("does not agree with detail");
    assertThatThrownBy(() -> new StateDetail.TransientFailure("e", 0)).hasMessageContaining("retryCount");
  }

  @Test
  void lostRacesChangeNothingAndReportTheWinner() {
    Conversation c = newConversation();
    c.startTurn();
    c.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
    assertThat(c.startTurn().lost()).as("no new turn while one is responding").isTrue();
    assertThat(c.abort().won()).isTrue();
    TransitionResult<ConversationSnapshot> late =
        c.transition(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, ConversationReasons.MODEL_RESPONDED);
    assertThat(late.won()).isFalse();
    assertThat(late.snapshot().state()).isEqualTo(IDLE);
    assertThat(late.snapshot().reason()).isEqualTo(ConversationReasons.ABORTED);
    assertThat(c.abort().lost()).as("nothing to abort when idle").isTrue();
    assertThat(c.transientFailure(AWAITING_LLM_RESPONSE, "late").lost()).isTrue();
    assertThat(c.snapshot().version()).isEqualTo(3);
    assertThat(rec.events()).hasSize(4);
  }

  @Test
  void illegalEdgesThrowNamingFromToAndAllowedAndChangeNothing() {
    Conversation c = newConversation();
    assertThatThrownBy(() -> c.transition(IDLE, EXECUTING_TOOLS, ConversationReasons.TOOLS_STARTED))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("IDLE -> EXECUTING_TOOLS")
        .hasMessageContaining("PROCESSING_USER_MESSAGE");
    assertThatThrownBy(() -> c.toolError(AWAITING_TOOL_APPROVAL, "t", "e")).isInstanceOf(
        IllegalTransitionException.class).hasMessageContaining("AWAITING_TOOL_APPROVAL -> HANDLING_TOOL_ERROR");
    assertThatThrownBy(() -> c.transientFailure(PROCESSING_LLM_RESPONSE, "e"))
        .isInstanceOf(IllegalTransitionException.class);
    assertThatThrownBy(() -> c.fail(IDLE, "e")).isInstanceOf(IllegalTransitionException.class);
    assertThat(c.snapshot().version()).isZero();
    assertThat(rec.events()).hasSize(1);
  }

  @Test
  void badInputIsRefusedNamingTheParameter() {
    assertThatThrownBy(() -> Conversation.builder(" ")).hasMessageContaining("conversationId");
    assertThatThrownBy(() -> Conversation.builder(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("conversationId");
    Conversation c = newConversation();
    assertThatThrownBy(() -> c.transition(null, IDLE, ConversationReasons.ABORTED)).hasMessageContaining("expected");
    assertThatThrownBy(() -> c.transition(IDLE, PROCESSING_USER_MESSAGE, null)).hasMessageContaining("reason");
    assertThatThrownBy(() -> c.stopTurn(null)).hasMessageContaining("reason");
    assertThatThrownBy(() -> Conversation.builder("c").clock(null)).hasMessageContaining("clock");
  }

  @Test
  void stopTurnWorksFromEveryBusyStateWithItsReason() {
    for (ConversationState busy : values()) {
      if (!busy.isBusy()) {
        continue;
      }
      Conversation c = Conversation.builder("c").ticker(ticks::get).build();
      driveTo(c, busy);
      assertThat(c.state()).isEqualTo(busy);
      TransitionResult<ConversationSnapshot> r = c.stopTurn(ConversationReasons.LOOP_DETECTED);
      assertThat(r.won()).as("stop from %s", busy).isTrue();
      assertThat(r.snapshot().state()).isEqualTo(IDLE);
      assertThat(r.snapshot().reason()).isEqualTo(ConversationReasons.LOOP_DETECTED);
    }
  }

  /** Walks a fresh conversation to {@code target} along legal edges. */
  static void driveTo(Conversation c, ConversationState target) {
    Reason r = Reason.of("test", "test");
    c.startTurn();
    if (target == PROCESSING_USER_MESSAGE) {
      return;
    }
    c.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, r);
    switch (target) {
      case AWAITING_LLM_RESPONSE -> { }
      case TRANSIENT_FAILURE -> c.transientFailure(AWAITING_LLM_RESPONSE, "e");
      case FAILED -> c.fail(AWAITING_LLM_RESPONSE, "e");
      default -> {
        c.transition(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, r);
        switch (target) {
          case PROCESSING_LLM_RESPONSE -> { }
          case AWAITING_TOOL_APPROVAL -> c.transition(PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL, r);
          case EXECUTING_TOOLS -> c.transition(PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, r);
          case PROCESSING_TOOL_RESULTS -> {
            c.transition(PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, r);
            c.transition(EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS, r);
          }
          case HANDLING_TOOL_ERROR -> c.toolError(PROCESSING_LLM_RESPONSE, "t", "e");
          case GENERATING_RESPONSE -> {
            c.toolError(PROCESSING_LLM_RESPONSE, "t", "e");
            c.transition(HANDLING_TOOL_ERROR, GENERATING_RESPONSE, r);
          }
          case IDLE -> c.transition(PROCESSING_LLM_RESPONSE, IDLE, r);
          default -> throw new AssertionError(target);
        }
      }
    }
  }

  @Test
  void restoredConversationContinuesItsVersionsWithoutRepublishing() {
    Conversation c = newConversation();
    c.startTurn();
    EventBus other = EventBus.create();
    RecordingListener late = new RecordingListener(false);
    other.subscribe(late);
    Conversation restored = Conversation.restore(c.snapshot(), other, ticks::get);
    assertThat(restored.id()).isEqualTo("conv-1");
    assertThat(late.events()).isEmpty();
    restored.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
    assertThat(late.events()).extracting(Event::version).containsExactly(2L);
  }

  @Test
  void listenerSeesTypedConversationEvents() {
    List<ConversationEvent> seen = new ArrayList<>();
    bus.subscribe(new EventListener() {
      @Override
      public void onConversationEvent(ConversationEvent event) {
        seen.add(event);
      }
    });
    Conversation c = newConversation();
    c.startTurn();
    assertThat(seen).extracting(ConversationEvent::to).containsExactly(IDLE, PROCESSING_USER_MESSAGE);
  }

  /**
   * Proves, with real threads, that racing changes of one conversation reach every subscriber (inline and on an
   * executor) in version order, each exactly once, and that of racing new messages exactly one starts each turn.
   * The recording listeners check order on every event; the final lists are compared with the history.
   */
  @Test
  void racingThreadsPublishEveryVersionInOrder() throws Exception {
    ExecutorService ui = Executors.newSingleThreadExecutor();
    RecordingListener onUi = new RecordingListener();
    bus.subscribe(onUi, ui);
    Conversation c = newConversation();
    int threads = 4;
    int rounds = 300;
    AtomicInteger turnsStarted = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < rounds; i++) {
          if (c.startTurn().won()) {
            turnsStarted.incrementAndGet();
          }
          c.transition(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, ConversationReasons.MODEL_REQUESTED);
          c.abort();
        }
        return null;
      }));
    }
    start.countDown();
    for (var f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();
    ui.shutdown();
    assertThat(ui.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

    ConversationSnapshot end = c.snapshot();
    assertThat(end.turn()).isEqualTo(turnsStarted.get()).isPositive();
    ConversationProperties.assertSeenEveryVersion(
        rec.events().stream().map(e -> ((ConversationEvent) e).snapshot()).toList(), end);
    ConversationProperties.assertSeenEveryVersion(
        onUi.events().stream().map(e -> ((ConversationEvent) e).snapshot()).toList(), end);
  }
}
