package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.conversation.Conversation;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.testing.Logs;
import dev.toolcall.testing.RecordingListener;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A listener that throws a {@link VirtualMachineError} (a {@link StackOverflowError} from runaway recursion, an
 * {@link OutOfMemoryError}) is isolated like any other: the listeners after it get every event, the call's
 * {@code whenTerminal()} completes, and later changes are still delivered in order. Before the fix the bus rethrew
 * it from the middle of its subscriber loop, so later listeners missed the event and {@code whenTerminal()} never
 * completed.
 */
class ListenerErrorTest {

  static final class Thrower implements EventListener {
    final Supplier<? extends Error> error;
    int calls;

    Thrower(Supplier<? extends Error> error) {
      this.error = error;
    }

    @Override
    public void onEvent(Event event) {
      calls++;
      throw error.get();
    }
  }

  @Test
  void aStackOverflowInAnInlineListenerReachesNoOtherListenerAndWhenTerminalCompletes() {
    assertIsolated(StackOverflowError::new);
  }

  @Test
  void anOutOfMemoryErrorInAnInlineListenerIsIsolatedToo() {
    assertIsolated(() -> new OutOfMemoryError("listener"));
  }

  private void assertIsolated(Supplier<? extends Error> error) {
    EventBus bus = EventBus.create();
    RecordingListener before = new RecordingListener();
    Thrower thrower = new Thrower(error);
    RecordingListener after = new RecordingListener();
    bus.subscribe(before);
    bus.subscribe(thrower);
    bus.subscribe(after);
    ToolCall call = ToolCall.builder("c1", "read_file").eventBus(bus).build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.of("running", "running"));
    call.complete("ok");

    assertThat(call.whenTerminal().toCompletableFuture()).isCompletedWithValueMatching(
        s -> s.state() == ToolCallState.COMPLETED);
    assertThat(thrower.calls).isEqualTo(3);
    assertThat(Logs.of(EventBus.class)).as("each Error logged at ERROR, once per event").hasSize(3)
        .allSatisfy(e -> assertThat(e.level()).isEqualTo(org.slf4j.event.Level.ERROR))
        .allSatisfy(e -> assertThat(e.error()).isInstanceOf(VirtualMachineError.class));
    for (RecordingListener l : new RecordingListener[] {before, after}) {
      assertThat(l.eventsOf("c1")).hasSize(3);
      assertThat(l.eventsOf("c1").get(0)).isInstanceOf(ToolCallEvent.CallCreated.class);
      assertThat(l.eventsOf("c1").subList(1, 3)).extracting(e -> ((ToolCallEvent.StateChanged) e).to())
          .containsExactly(ToolCallState.RUNNING, ToolCallState.COMPLETED);
    }
  }

  @Test
  void aStackOverflowInAListenerWithAnExecutorLeavesItsLaterEventsAndOtherListenersAlone() throws Exception {
    ExecutorService ui = Executors.newSingleThreadExecutor();
    try {
      EventBus bus = EventBus.create();
      Thrower thrower = new Thrower(StackOverflowError::new);
      RecordingListener after = new RecordingListener();
      bus.subscribe(thrower, ui);
      bus.subscribe(after, ui);
      ToolCall call = ToolCall.builder("c1", "read_file").eventBus(bus).build();
      call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.of("running", "running"));
      call.complete("ok");
      assertThat(call.whenTerminal().toCompletableFuture().get(10, TimeUnit.SECONDS).state())
          .isEqualTo(ToolCallState.COMPLETED);
      ui.submit(() -> null).get(10, TimeUnit.SECONDS); // every queued delivery ran
      assertThat(thrower.calls).isEqualTo(3);
      assertThat(after.eventsOf("c1")).hasSize(3);
      assertThat(Logs.of(EventBus.class)).hasSize(3);
    } finally {
      ui.shutdownNow();
    }
  }

  @Test
  void theConversationsEventsGoOnPastAListenerThatThrowsAnError() {
    EventBus bus = EventBus.create();
    Thrower thrower = new Thrower(StackOverflowError::new);
    RecordingListener after = new RecordingListener();
    bus.subscribe(thrower);
    bus.subscribe(after);
    Conversation conversation = Conversation.builder("conv").eventBus(bus).build();
    conversation.transition(ConversationState.IDLE, ConversationState.PROCESSING_USER_MESSAGE,
        Reason.of("user", "user"));
    conversation.transition(ConversationState.PROCESSING_USER_MESSAGE, ConversationState.AWAITING_LLM_RESPONSE,
        Reason.of("asked", "asked"));
    assertThat(conversation.snapshot().state()).isEqualTo(ConversationState.AWAITING_LLM_RESPONSE);
    assertThat(after.eventsOf("conv")).hasSize(thrower.calls).hasSizeGreaterThanOrEqualTo(2);
    assertThat(Logs.of(EventBus.class)).hasSize(thrower.calls);
  }
}
