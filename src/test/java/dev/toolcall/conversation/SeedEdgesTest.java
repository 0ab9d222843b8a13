package dev.toolcall.conversation;

import dev.toolcall.StateDetail;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.AWAITING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.AWAITING_TOOL_APPROVAL;
import static dev.toolcall.ConversationState.EXECUTING_TOOLS;
import static dev.toolcall.ConversationState.FAILED;
import static dev.toolcall.ConversationState.GENERATING_RESPONSE;
import static dev.toolcall.ConversationState.HANDLING_TOOL_ERROR;
import static dev.toolcall.ConversationState.IDLE;
import static dev.toolcall.ConversationState.PROCESSING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.PROCESSING_TOOL_RESULTS;
import static dev.toolcall.ConversationState.PROCESSING_USER_MESSAGE;
import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 03's conversation edges taken in the situations the seed names, by real {@link Agent} turns, each asserting
 * the exact sequence of conversation states together with the calls' events on the same bus:
 * <ul>
 *   <li>{@code processing_llm_response -> handling_tool_error}: no call of the response can run (invalid calls);</li>
 *   <li>{@code awaiting_tool_approval -> generating_response}: a person denied every call that waited;</li>
 *   <li>{@code executing_tools -> failed}: a tool failed, with {@link ToolFailurePolicy#FAIL_TURN}.</li>
 * </ul>
 * The mixed cases take the other edges: one call that can run, or one approved call, is enough for
 * {@code executing_tools}; with the default policy a tool failure goes to the model.
 */
class SeedEdgesTest {
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(
      Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true).requiresApproval(false)
          .parameters(ToolDefinition.builder("x").build().parameters()).build(), inv -> ToolResult.of("echo")),
      Tool.of(ToolDefinition.builder("gated").description("needs approval").build(), inv -> ToolResult.of("ran")),
      Tool.of(ToolDefinition.builder("broken").description("always fails").readOnly(true).requiresApproval(false)
          .build(), inv -> {
            throw new ToolException("disk full");
          })).build();

  SeedEdgesTest() {
    runtime.events().subscribe(EventListener.of(events::add));
  }

  @AfterEach
  void close() {
    runtime.close();
  }

  private static TurnResult await(CompletableFuture<TurnResult> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private List<ConversationState> states() {
    List<ConversationState> out = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof ConversationEvent c) {
        out.add(c.snapshot().state());
      }
    }
    return out;
  }

  /** The index in the event list of the conversation's first move to {@code state}. */
  private int indexOf(ConversationState state) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i) instanceof ConversationEvent c && !c.isCreation() && c.to() == state) {
        return i;
      }
    }
    throw new AssertionError("no move to " + state + " in " + states());
  }

  /** The index of the terminal event of {@code callId}. */
  private int terminalOf(String callId) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i) instanceof ToolCallEvent.StateChanged s && s.sourceId().equals(callId)
          && s.to().isTerminal()) {
        return i;
      }
    }
    throw new AssertionError("no terminal event of " + callId);
  }

  @Test
  void invalidCallsGoThroughHandlingToolError() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "ehco", "{}"), call("c2", "echo", "{not json"))
        .thenText("sorry");
    Agent agent = Agent.builder(model, runtime).build();
    TurnResult turn = await(agent.send("go").toCompletableFuture());

    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, HANDLING_TOOL_ERROR, GENERATING_RESPONSE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, IDLE);
    ConversationSnapshot error = agent.conversation().snapshot().versions().stream()
        .filter(s -> s.state() == HANDLING_TOOL_ERROR).findFirst().orElseThrow();
    assertThat(error.detail()).isInstanceOfSatisfying(StateDetail.ToolError.class, d -> {
      assertThat(d.toolName()).isEqualTo("ehco");
      assertThat(d.error()).contains("Unknown tool 'ehco'");
    });
    assertThat(terminalOf("c1")).isLessThan(indexOf(HANDLING_TOOL_ERROR));
    assertThat(terminalOf("c2")).isLessThan(indexOf(HANDLING_TOOL_ERROR));
  }

  @Test
  void oneCallThatCanRunTakesTheResponseToExecutingTools() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "ehco", "{}"), call("c2", "echo", "{}"))
        .thenText("done");
    Agent agent = Agent.builder(model, runtime).build();
    await(agent.send("go").toCompletableFuture());
    assertThat(states()).containsSubsequence(PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS)
        .doesNotContain(HANDLING_TOOL_ERROR);
  }

  @Test
  void aPersonDenyingEveryCallLeadsToGeneratingResponse() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "gated", "{}"), call("c2", "gated", "{}"))
        .thenText("ok, I will not");
    Agent agent = Agent.builder(model, runtime).build();
    CompletableFuture<TurnResult> turn = agent.send("go").toCompletableFuture();
    for (int i = 0; i < 2; i++) {
      PermissionRequest r = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      runtime.permissions().decide(r.requestId(), Decision.deny(r, "not now"));
    }
    assertThat(await(turn).ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL, GENERATING_RESPONSE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, IDLE);
    assertThat(terminalOf("c1")).isLessThan(indexOf(GENERATING_RESPONSE));
    assertThat(terminalOf("c2")).isLessThan(indexOf(GENERATING_RESPONSE));
    assertThat(agent.messages()).filteredOn(m -> m instanceof ToolResultMessage).hasSize(2)
        .allSatisfy(m -> assertThat(((ToolResultMessage) m).content()).contains("not now"));
  }

  @Test
  void oneApprovedCallTakesTheTurnToExecutingTools() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "gated", "{}"), call("c2", "gated", "{}"))
        .thenText("done");
    Agent agent = Agent.builder(model, runtime).build();
    CompletableFuture<TurnResult> turn = agent.send("go").toCompletableFuture();
    PermissionRequest first = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    runtime.permissions().decide(first.requestId(), Decision.deny(first, "not this one"));
    PermissionRequest second = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    runtime.permissions().decide(second.requestId(), Decision.approveOnce(second));
    await(turn);
    assertThat(states()).containsSubsequence(AWAITING_TOOL_APPROVAL, EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS)
        .doesNotContain(HANDLING_TOOL_ERROR);
  }

  @Test
  void aToolFailureEndsTheTurnWithFailTurn() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "broken", "{}"), call("c2", "echo", "{}"))
        .thenText("never asked");
    Agent agent = Agent.builder(model, runtime).toolFailurePolicy(ToolFailurePolicy.FAIL_TURN).build();
    TurnResult turn = await(agent.send("go").toCompletableFuture());
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(turn.text()).contains("c1").contains("disk full");
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, FAILED);
    assertThat(terminalOf("c1")).isLessThan(indexOf(FAILED));
    assertThat(terminalOf("c2")).isLessThan(indexOf(FAILED));
    assertThat(model.requests()).hasSize(1);
    assertThat(agent.isResponding()).isFalse();
    assertThat(agent.messages()).filteredOn(m -> m instanceof ToolResultMessage).hasSize(2);
  }

  @Test
  void byDefaultAToolFailureGoesToTheModel() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "broken", "{}")).thenText("the disk is full");
    Agent agent = Agent.builder(model, runtime).build();
    TurnResult turn = await(agent.send("go").toCompletableFuture());
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(states()).containsSubsequence(EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE)
        .doesNotContain(FAILED);
    assertThat(((ToolResultMessage) model.requests().get(1).lastMessage()).content()).contains("disk full");
  }
}
