package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What a call keeps of the argument versions it made while PENDING (the streamed text, then its parsed form) once it
 * leaves PENDING: listeners got every one, the history keeps the created version and the new one, and
 * {@link ToolCallSnapshot#history()} and the time spent pending are as before. Argument edits made later (while asked)
 * stay in the history.
 */
class PendingArgumentsHistoryTest {

  @Test
  void leavingPendingLetsGoOfTheArgumentVersionsMadeThereAndOnlyThose() {
    EventBus bus = EventBus.create();
    List<ToolCallSnapshot> seen = new ArrayList<>();
    bus.subscribe(new EventListener() {
      @Override
      public void onEvent(dev.toolcall.event.Event e) {
        if (e instanceof ToolCallEvent t) {
          seen.add(t.snapshot());
        }
      }
    });
    AtomicLong now = new AtomicLong(1_000);
    ToolCall call = ToolCall.builder("c", "shell").eventBus(bus).ticker(now::get)
        .clock(java.time.Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), java.time.ZoneOffset.UTC))
        .arguments(ToolArguments.ofText("")).build();
    now.addAndGet(5);
    assertThat(call.modifyArguments(ToolCallState.PENDING, ToolArguments.ofText("{\"command\":"), "streaming").won())
        .isTrue();
    now.addAndGet(5);
    ToolArguments parsed = ToolArguments.ofJson(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
        .objectNode().put("command", "ls"));
    assertThat(call.modifyArguments(ToolCallState.PENDING, parsed, "final").won()).isTrue();
    now.addAndGet(10);
    ToolCallSnapshot asked = call.transition(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING,
        Reason.PERMISSION_REQUIRED).snapshot();

    assertThat(seen).extracting(ToolCallSnapshot::version).as("listeners got every version").containsExactly(0, 1, 2, 3);
    assertThat(asked.arguments()).isEqualTo(parsed);
    assertThat(asked.versions()).extracting(ToolCallSnapshot::version).as("created, asked").containsExactly(0, 3);
    assertThat(asked.previous()).isSameAs(seen.get(0));
    assertThat(asked.history()).singleElement().satisfies(t -> {
      assertThat(t.from()).isEqualTo(ToolCallState.PENDING);
      assertThat(t.to()).isEqualTo(ToolCallState.PERMISSION_PENDING);
      assertThat(t.timeInFrom()).as("pending since it was created").isEqualTo(Duration.ofNanos(20));
    });

    now.addAndGet(10);
    assertThat(call.modifyArguments(ToolCallState.PERMISSION_PENDING, ToolArguments.ofText("ls -l"), "user").won())
        .isTrue();
    ToolCallSnapshot approved = call.transition(ToolCallState.PERMISSION_PENDING, ToolCallState.PERMISSION_APPROVED,
        Reason.APPROVED_ONCE).snapshot();
    assertThat(approved.versions()).extracting(ToolCallSnapshot::version).as("a person's edit while asked stays")
        .containsExactly(0, 3, 4, 5);
    assertThat(approved.versions().get(2).change()).isInstanceOf(Change.ArgumentsModified.class);
  }
}
