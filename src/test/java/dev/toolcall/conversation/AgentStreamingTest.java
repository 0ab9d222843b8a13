package dev.toolcall.conversation;

import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static dev.toolcall.conversation.ScriptedStream.args;
import static dev.toolcall.conversation.ScriptedStream.completed;
import static dev.toolcall.conversation.ScriptedStream.end;
import static dev.toolcall.conversation.ScriptedStream.started;
import static dev.toolcall.conversation.ScriptedStream.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Change;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallResult;
import dev.toolcall.execution.OpenBatch;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The turn loop against a model that streams its response on its own thread: a tool call is on the bus as soon as the
 * stream announces it, its arguments fill in while they stream, and it ends whatever the stream does.
 */
class AgentStreamingTest {

  private final AtomicInteger echoRuns = new AtomicInteger();
  private final AtomicInteger gatedRuns = new AtomicInteger();
  private final ScriptedStream model = new ScriptedStream();
  private final RecordingListener events = new RecordingListener();
  private ToolCallRuntime runtime;

  @AfterEach
  void close() {
    model.close();
    if (runtime != null) {
      runtime.close();
    }
  }

  private Agent agent(ApprovalMode mode) {
    Tool echo = Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true).requiresApproval(false)
        .build(), inv -> {
          echoRuns.incrementAndGet();
          return ToolResult.of("echo " + inv.arguments().raw());
        });
    Tool gated = Tool.of(ToolDefinition.builder("gated").description("needs approval").build(), inv -> {
      gatedRuns.incrementAndGet();
      return ToolResult.of("gated ran");
    });
    runtime = ToolCallRuntime.builder().tools(echo, gated).permissions(p -> p.approvalMode(mode)).build();
    runtime.events().subscribe(events);
    return Agent.builder(ModelClient.streaming(model), runtime).conversationId("conv-s")
        .limits(TurnLimits.builder().modelRetry(new RetryPolicy(3, Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0))
            .build())
        .build();
  }

  private static TurnResult await(CompletionStage<TurnResult> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private List<ToolCallEvent> callEvents(String callId) {
    return events.eventsOf(callId).stream().map(e -> (ToolCallEvent) e).toList();
  }

  private static List<ToolResultMessage> results(Agent agent) {
    return agent.messages().stream().filter(m -> m instanceof ToolResultMessage).map(m -> (ToolResultMessage) m)
        .toList();
  }

  @Test
  void aCallIsOnTheBusWhileTheStreamGoesOnItsArgumentsFillInAndResultsKeepRequestOrder() throws Exception {
    ScriptedStream.Pause mid = new ScriptedStream.Pause();
    model.then(text("Let me look. "), started("c1", "echo"), args("c1", "{\"path\":"), args("c1", "\"a.txt\""),
            mid, args("c1", "}"), completed("c1"), started("c2", "echo"), args("c2", "{\"path\":\"b.txt\"}"),
            completed("c2"), end(StopReason.TOOL_CALLS))
        .then(text("done"), end(StopReason.END_TURN));
    Agent agent = agent(ApprovalMode.ALLOW_ALL);

    CompletionStage<TurnResult> stage = agent.send("read both");
    mid.awaitReached();

    // the stream is blocked mid-call: the call is on the bus, PENDING, with its arguments so far
    List<ToolCallEvent> c1 = callEvents("c1");
    assertThat(c1).first().isInstanceOf(ToolCallEvent.CallCreated.class)
        .extracting(ToolCallEvent::state).isEqualTo(ToolCallState.PENDING);
    assertThat(c1).filteredOn(e -> e instanceof ToolCallEvent.ArgumentsModified).last()
        .satisfies(e -> assertThat(e.snapshot().arguments().raw()).isEqualTo("{\"path\":\"a.txt\""))
        .satisfies(e -> assertThat(((Change.ArgumentsModified) e.snapshot().change()).by())
            .isEqualTo(OpenBatch.STREAMING));
    assertThat(c1).extracting(ToolCallEvent::state).containsOnly(ToolCallState.PENDING);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.AWAITING_LLM_RESPONSE);
    assertThat(events.eventsOf("c2")).as("not announced yet").isEmpty();
    assertThat(stage.toCompletableFuture()).isNotDone();
    assertThat(echoRuns).hasValue(0);

    mid.release();
    TurnResult r = await(stage);

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.text()).isEqualTo("done");
    assertThat(results(agent)).extracting(ToolResultMessage::callId).containsExactly("c1", "c2");
    assertThat(results(agent)).extracting(ToolResultMessage::content)
        .containsExactly("echo {\"path\":\"a.txt\"}", "echo {\"path\":\"b.txt\"}");
    assertThat(r.calls()).extracting(CallResult::callId).containsExactly("c1", "c2");
    assertThat(agent.messages().get(1)).isEqualTo(new AssistantMessage("Let me look. ", List.of(
        new ToolCallRequest("c1", "echo", "{\"path\":\"a.txt\"}"),
        new ToolCallRequest("c2", "echo", "{\"path\":\"b.txt\"}"))));
    assertThat(echoRuns).hasValue(2);
  }

  @Test
  void interleavedCallsAnswerInTheOrderTheyWereAnnounced() throws Exception {
    model.then(started("c1", "echo"), started("c2", "echo"), args("c2", "{\"n\":2}"), completed("c2"),
            args("c1", "{\"n\":1}"), completed("c1"), end(StopReason.TOOL_CALLS))
        .then(text("done"), end(StopReason.END_TURN));
    Agent agent = agent(ApprovalMode.ALLOW_ALL);

    TurnResult r = await(agent.send("go"));

    assertThat(results(agent)).extracting(ToolResultMessage::content).containsExactly("echo {\"n\":1}",
        "echo {\"n\":2}");
    assertThat(r.calls()).extracting(CallResult::callId).containsExactly("c1", "c2");
  }

  @Test
  void truncatedArgumentsAtTheEndOfTheStreamFailTheCallWithAMessageForTheModel() throws Exception {
    // the model ran out of tokens inside the arguments: no ToolCallCompleted, the response completes anyway
    model.then(started("c1", "echo"), args("c1", "{\"path\":\"a."), end(StopReason.MAX_TOKENS))
        .then(text("sorry"), end(StopReason.END_TURN));
    Agent agent = agent(ApprovalMode.ALLOW_ALL);

    TurnResult r = await(agent.send("go"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.calls()).singleElement().satisfies(c -> {
      assertThat(c.snapshot().state()).isEqualTo(ToolCallState.FAILED);
      assertThat(((Outcome.Failed) c.outcome()).kind()).isEqualTo(FailureKind.MALFORMED_ARGUMENTS);
    });
    assertThat(results(agent)).singleElement().satisfies(m -> {
      assertThat(m.isError()).isTrue();
      assertThat(m.content()).isNotBlank();
    });
    assertThat(model.requests().get(1).messages()).contains(results(agent).get(0));
    assertThat(echoRuns).hasValue(0);
  }

  @Test
  void aStreamThatFailsMidCallCancelsTheAnnouncedCallAndTheRequestIsRetried() throws Exception {
    model.then(started("c1", "echo"), args("c1", "{\"x\""),
            ModelException.of(ModelException.Kind.NETWORK, "connection reset"))
        .then(text("second try"), end(StopReason.END_TURN));
    Agent agent = agent(ApprovalMode.ALLOW_ALL);

    TurnResult r = await(agent.send("go"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.text()).isEqualTo("second try");
    assertThat(callEvents("c1")).last().satisfies(e -> {
      assertThat(e.state()).isEqualTo(ToolCallState.CANCELLED);
      assertThat(e.snapshot().outcome().messageForModel()).contains("failed before it was complete");
    });
    assertThat(agent.messages()).as("the broken response is not part of the conversation")
        .containsExactly(new UserMessage("go"), new AssistantMessage("second try", List.of()));
    assertThat(r.calls()).isEmpty();
    assertThat(echoRuns).hasValue(0);
  }

  @Test
  void anAbortWhileTheModelStreamsCancelsTheAnnouncedCallsAndIgnoresTheRest() throws Exception {
    ScriptedStream.Pause mid = new ScriptedStream.Pause();
    model.then(started("c1", "echo"), args("c1", "{}"), completed("c1"), started("c2", "echo"), mid,
        args("c2", "{}"), completed("c2"), started("c3", "echo"), completed("c3"), end(StopReason.TOOL_CALLS));
    Agent agent = agent(ApprovalMode.ALLOW_ALL);

    CompletionStage<TurnResult> stage = agent.send("go");
    mid.awaitReached();
    agent.abort();

    assertThat(stage.toCompletableFuture()).isDone();
    assertThat(await(stage).ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(callEvents("c1")).last().extracting(ToolCallEvent::state).isEqualTo(ToolCallState.CANCELLED);
    assertThat(callEvents("c2")).last().extracting(ToolCallEvent::state).isEqualTo(ToolCallState.CANCELLED);

    mid.release();
    // the stream goes on after the abort: a later turn's request proves it has ended
    model.then(text("next"), end(StopReason.END_TURN));
    assertThat(await(agent.send("next")).text()).isEqualTo("next");
    assertThat(events.eventsOf("c3")).as("a call announced after the abort is never created").isEmpty();
    assertThat(echoRuns).hasValue(0);
    assertThat(agent.messages()).containsExactly(new UserMessage("go"), new UserMessage("next"),
        new AssistantMessage("next", List.of()));
  }

  @Test
  void aPermissionAskedDuringTheStreamCanBeAnsweredBeforeItEndsButTheToolWaitsForExecutingTools()
      throws Exception {
    ScriptedStream.Pause afterCall = new ScriptedStream.Pause();
    model.then(started("g1", "gated"), args("g1", "{}"), completed("g1"), afterCall, text("(more text)"),
            end(StopReason.TOOL_CALLS))
        .then(text("done"), end(StopReason.END_TURN));
    Agent agent = agent(ApprovalMode.ASK);

    CompletionStage<TurnResult> stage = agent.send("go");
    afterCall.awaitReached();
    PermissionRequest ask = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(ask.callId()).isEqualTo("g1");
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.AWAITING_LLM_RESPONSE);
    runtime.permissions().decide(ask.requestId(), Decision.approveOnce(ask));
    assertThat(callEvents("g1")).last().extracting(ToolCallEvent::state)
        .isEqualTo(ToolCallState.PERMISSION_APPROVED);
    assertThat(gatedRuns).as("approved, but the response has not ended").hasValue(0);

    afterCall.release();
    TurnResult r = await(stage);

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(gatedRuns).hasValue(1);
    List<ConversationState> path = agent.conversation().snapshot().versions().stream()
        .map(ConversationSnapshot::state).toList();
    assertThat(path).as("approved before the response ended: no awaiting_tool_approval")
        .containsSubsequence(ConversationState.PROCESSING_LLM_RESPONSE, ConversationState.EXECUTING_TOOLS,
            ConversationState.PROCESSING_TOOL_RESULTS)
        .doesNotContain(ConversationState.AWAITING_TOOL_APPROVAL);
  }

  @Test
  void everyEventIsRecordedInVersionOrder() throws Exception {
    model.then(started("c1", "echo"), args("c1", "{"), args("c1", "}"), completed("c1"), end(StopReason.TOOL_CALLS))
        .then(text("done"), end(StopReason.END_TURN));
    Agent agent = agent(ApprovalMode.ALLOW_ALL);
    await(agent.send("go"));
    assertVersionOrder(events.events());
    assertThat(events.events()).extracting(Event::sourceId).contains("c1", "conv-s");
  }

  /** Per source, the versions 0, 1, 2, ... each once and in order. */
  static void assertVersionOrder(List<Event> recorded) {
    java.util.Map<String, Long> next = new java.util.HashMap<>();
    for (Event e : recorded) {
      long expected = next.getOrDefault(e.sourceId(), 0L);
      assertThat(e.version()).as("version of %s", e.sourceId()).isEqualTo(expected);
      next.put(e.sourceId(), expected + 1);
    }
  }
}
