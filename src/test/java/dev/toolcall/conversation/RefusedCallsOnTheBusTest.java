package dev.toolcall.conversation;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A tool call whose id cannot identify it (used twice in one response, or scheduled twice in one batch) or that names
 * no tool is not run, and it is on the runtime's bus like every call: it
 * is created and ends FAILED with the message the model reads, under an id of its own (the model's id with
 * {@code #n}, or {@code no-id#n}), so a UI shows it without mixing it with the original. Before, such calls lived on
 * a private bus or nowhere, and a UI never showed them.
 */
class RefusedCallsOnTheBusTest {
  private final List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(Tool.of(ToolDefinition.builder("echo")
      .description("echoes").readOnly(true).requiresApproval(false).build(),
      inv -> ToolResult.of("echo " + inv.arguments().raw()))).build();

  RefusedCallsOnTheBusTest() {
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ToolCallEvent t) {
        events.add(t);
      }
    }));
  }

  @AfterEach
  void close() {
    runtime.close();
  }

  /** The terminal snapshots on the bus, in the order they ended. */
  private List<ToolCallSnapshot> ended() {
    List<ToolCallSnapshot> out = new ArrayList<>();
    for (ToolCallEvent e : events) {
      if (e.snapshot().isTerminal()) {
        out.add(e.snapshot());
      }
    }
    return out;
  }

  private static void assertRefused(ToolCallSnapshot s, FailureKind kind, String message) {
    assertThat(s.state()).isEqualTo(ToolCallState.FAILED);
    assertThat(s.toolStarted()).as("its tool never ran").isFalse();
    assertThat(s.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(kind);
      assertThat(f.message()).isEqualTo(message);
    });
  }

  @Test
  void blankNamesAndIdsTwiceInOneResponseAreOnTheBusAndBlankOrReusedIdsRunUnderMintedIds() throws Exception {
    ScriptedModel model = new ScriptedModel()
        .thenCalls(call("c1", "echo", "{\"n\":1}"))
        .thenCalls(new ToolCallRequest("", "echo", "{}"), new ToolCallRequest("c2", " ", "{}"),
            call("c1", "echo", "{\"n\":2}"), call("c3", "echo", "{}"), call("c3", "echo", "{\"again\":1}"))
        .thenText("done");
    Agent agent = Agent.builder(model, runtime).conversationId("conv").build();
    TurnResult turn = agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);

    List<ToolResultMessage> answers = new ArrayList<>();
    for (Message m : model.requests().get(2).messages()) {
      if (m instanceof ToolResultMessage r) {
        answers.add(r);
      }
    }
    assertThat(answers).hasSize(6); // c1, then the five of the second response
    List<ToolCallSnapshot> ended = ended();
    List<String> ids = ended.stream().map(ToolCallSnapshot::callId).toList();
    assertThat(ids).hasSize(6).doesNotHaveDuplicates();
    ToolCallSnapshot blankId = ended.stream().filter(s -> s.identity().label().isEmpty()).findFirst().orElseThrow();
    assertThat(blankId.state()).as("a blank id runs under a minted one").isEqualTo(ToolCallState.COMPLETED);
    assertThat(blankId.callId()).startsWith("call_");
    ToolCallSnapshot blankName = ended.stream().filter(s -> s.callId().startsWith("c2#")).findFirst().orElseThrow();
    assertRefused(blankName, FailureKind.UNKNOWN_TOOL, answers.get(2).content());
    ToolCallSnapshot reused = ended.stream().filter(s -> s.identity().label().equals("c1")
        && !s.callId().equals("c1")).findFirst().orElseThrow();
    assertThat(reused.state()).as("c1 of the second response runs as a call of its own")
        .isEqualTo(ToolCallState.COMPLETED);
    assertThat(reused.arguments().raw()).isEqualTo("{\"n\":2}");
    assertThat(answers.get(3).content()).isEqualTo("echo {\"n\":2}");
    ToolCallSnapshot twice = ended.stream().filter(s -> s.callId().startsWith("c3#")).findFirst().orElseThrow();
    assertRefused(twice, FailureKind.DUPLICATE_CALL, answers.get(5).content());
    for (ToolCallSnapshot s : List.of(blankName, twice)) {
      assertThat(s.identity().sessionId()).isEqualTo("conv");
      assertThat(events.stream().filter(e -> e.sourceId().equals(s.callId())).map(e -> e.snapshot().state()))
          .as("%s is created, validated and fails, each change once", s.callId())
          .containsExactly(ToolCallState.PENDING, ToolCallState.RUNNING, ToolCallState.FAILED);
    }
    // the original c1 and c3 keep their own events, untouched
    assertThat(events.stream().filter(e -> e.sourceId().equals("c1")).map(e -> e.snapshot().state()).toList())
        .endsWith(ToolCallState.COMPLETED).doesNotContain(ToolCallState.FAILED);
  }

  @Test
  void aDuplicateIdInOneScheduledBatchIsOnTheBus() throws Exception {
    List<CallResult> r = runtime.scheduler().schedule("s", List.of(CallRequest.of("1", "echo", "{\"a\":1}"),
        CallRequest.of("1", "echo", "{\"a\":2}"))).whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(r.get(1).outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.DUPLICATE_CALL));
    List<ToolCallSnapshot> ended = ended();
    assertThat(ended).extracting(ToolCallSnapshot::callId).containsExactlyInAnyOrder("1", r.get(1).callId());
    assertThat(r.get(1).callId()).startsWith("1#");
    assertRefused(ended.stream().filter(s -> s.callId().startsWith("1#")).findFirst().orElseThrow(),
        FailureKind.DUPLICATE_CALL, ((Outcome.Failed) r.get(1).outcome()).message());
    assertThat(events.stream().filter(e -> e.sourceId().equals("1")).map(e -> e.snapshot().version()))
        .as("the original's events are its own").containsExactly(0, 1, 2);
  }
}
