package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.AWAITING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.IDLE;
import static dev.toolcall.ConversationState.PROCESSING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.PROCESSING_USER_MESSAGE;
import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallOrigin;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.permission.PermissionPolicy;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A user's command (seed 04's slash and at commands) runs through the same scheduler with its origin on the call's
 * identity, and its result is kept out of the messages, recorded for the model, or sent to the model at once.
 */
class CommandFollowUpTest {
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(
      Tool.of(ToolDefinition.builder("read_file").description("reads").readOnly(true).requiresApproval(false)
          .build(), inv -> ToolResult.of("contents of README")),
      Tool.of(ToolDefinition.builder("shell").description("runs").build(), inv -> ToolResult.of("ran")))
      .permissions(p -> p.policy(PermissionPolicy.builder().deny("shell").build()).approvalMode(ApprovalMode.ASK))
      .build();

  CommandFollowUpTest() {
    runtime.events().subscribe(EventListener.of(events::add));
  }

  @AfterEach
  void close() {
    runtime.close();
  }

  private static TurnResult await(CompletionStage<TurnResult> f) throws Exception {
    return f.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private List<ConversationState> states() {
    return events.stream().filter(e -> e instanceof ConversationEvent).map(e -> ((ConversationEvent) e).snapshot()
        .state()).toList();
  }

  private List<ToolCallOrigin> originsOf(String callId) {
    return events.stream().filter(e -> e instanceof ToolCallEvent t && t.sourceId().equals(callId))
        .map(e -> ((ToolCallEvent) e).snapshot().identity().origin()).distinct().toList();
  }

  @Test
  void aCommandsResultOnlyLeavesTheMessagesAndTheModelAlone() throws Exception {
    ScriptedModel model = new ScriptedModel();
    Agent agent = Agent.builder(model, runtime).build();

    TurnResult r = await(agent.runCommand(CallRequest.of("cmd1", "read_file", "{}")));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.COMMAND);
    assertThat(r.text()).isEqualTo("contents of README");
    assertThat(r.calls()).singleElement().satisfies(c ->
        assertThat(c.snapshot().identity().origin()).isEqualTo(ToolCallOrigin.USER_COMMAND));
    assertThat(originsOf("cmd1")).containsExactly(ToolCallOrigin.USER_COMMAND);
    assertThat(agent.messages()).isEmpty();
    assertThat(model.requests()).isEmpty();
  }

  @Test
  void aRecordedCommandReachesTheModelWithTheNextMessage() throws Exception {
    ScriptedModel model = new ScriptedModel().thenText("I see the README.");
    Agent agent = Agent.builder(model, runtime).build();

    TurnResult r = await(agent.runCommand(CallRequest.of("cmd1", "read_file", "{}"), CommandFollowUp.RECORD));
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.COMMAND);
    assertThat(model.requests()).isEmpty();
    List<Message> recorded = List.of(new AssistantMessage("", List.of(call("cmd1", "read_file", "{}"))),
        new ToolResultMessage("cmd1", "read_file", "contents of README", false));
    assertThat(agent.messages()).isEqualTo(recorded);

    await(agent.send("what does it say?"));
    assertThat(model.requests()).singleElement().satisfies(req -> assertThat(req.messages())
        .containsExactly(recorded.get(0), recorded.get(1), new UserMessage("what does it say?")));
  }

  @Test
  void askModelSendsTheResultAtOnceAndTheTurnGoesOnLikeAnyTurn() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("m1", "read_file", "{}")).thenText("Summary: fine.");
    Agent agent = Agent.builder(model, runtime).build();

    TurnResult r = await(agent.runCommand(CallRequest.of("cmd1", "read_file", "{}"), CommandFollowUp.ASK_MODEL));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.text()).isEqualTo("Summary: fine.");
    assertThat(model.requests()).hasSize(2);
    assertThat(model.requests().get(0).lastMessage())
        .isEqualTo(new ToolResultMessage("cmd1", "read_file", "contents of README", false));
    assertThat(states()).startsWith(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE)
        .endsWith(IDLE);
    assertThat(originsOf("cmd1")).containsExactly(ToolCallOrigin.USER_COMMAND);
    assertThat(originsOf("m1")).containsExactly(ToolCallOrigin.MODEL);
    assertThat(r.calls()).extracting(c -> c.snapshot().identity().origin())
        .containsExactly(ToolCallOrigin.USER_COMMAND, ToolCallOrigin.MODEL);
  }

  @Test
  void aDeniedCommandIsSentToTheModelWithWhy() throws Exception {
    ScriptedModel model = new ScriptedModel().thenText("The shell is not allowed here.");
    Agent agent = Agent.builder(model, runtime).build();

    TurnResult r = await(agent.runCommand(CallRequest.of("cmd1", "shell", "\"rm -rf /\""),
        CommandFollowUp.ASK_MODEL));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    ToolResultMessage sent = (ToolResultMessage) model.requests().get(0).lastMessage();
    assertThat(sent.isError()).isTrue();
    assertThat(sent.content()).contains("shell");
  }
}
