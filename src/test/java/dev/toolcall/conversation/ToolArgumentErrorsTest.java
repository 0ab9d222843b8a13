package dev.toolcall.conversation;

import dev.toolcall.StateDetail;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.AWAITING_LLM_RESPONSE;
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

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.EventListener;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A tool that finds the model's arguments wrong ({@link ToolException#invalidArguments}, or {@code ToolArguments.as}
 * on arguments that do not fit) fails the call as {@link FailureKind#INVALID_ARGUMENTS}, the model's mistake: even
 * under {@link ToolFailurePolicy#FAIL_TURN} the turn goes on through seed 03's {@code handling_tool_error} and the
 * model reads the message and may call again. A real tool failure still ends a {@code FAIL_TURN} turn.
 */
class ToolArgumentErrorsTest {
  record Range(int from, int to) {}

  private final List<ConversationState> states = new CopyOnWriteArrayList<>();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(
      Tool.of(ToolDefinition.builder("lines").description("reads lines").readOnly(true).requiresApproval(false)
          .build(), inv -> {
            Range r = inv.arguments().as(Range.class);
            return ToolResult.of("lines " + r.from() + ".." + r.to());
          }),
      Tool.of(ToolDefinition.builder("seek").description("seeks").readOnly(true).requiresApproval(false).build(),
          inv -> {
            throw ToolException.invalidArguments("offset 900 is past the end (size 12); send an offset below 12");
          }),
      Tool.of(ToolDefinition.builder("broken").description("always fails").readOnly(true).requiresApproval(false)
          .build(), inv -> {
            throw new ToolException("disk full");
          })).build();

  ToolArgumentErrorsTest() {
    runtime.events().subscribe(new EventListener() {
      @Override
      public void onConversationEvent(ConversationEvent e) {
        states.add(e.snapshot().state());
      }
    });
  }

  @AfterEach
  void close() {
    runtime.close();
  }

  private Agent failTurnAgent(ScriptedModel model) {
    return Agent.builder(model, runtime).toolFailurePolicy(ToolFailurePolicy.FAIL_TURN).build();
  }

  @Test
  void argumentsThatDoNotFitTheRecordGoBackToTheModelUnderFailTurn() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "lines", "{\"from\":\"one\",\"to\":5}"))
        .thenCalls(call("c2", "lines", "{\"from\":1,\"to\":5}")).thenText("here they are");
    Agent agent = failTurnAgent(model);
    TurnResult turn = agent.send("show lines").toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(turn.calls().get(0).snapshot().outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.INVALID_ARGUMENTS);
      assertThat(f.messageForModel()).contains("from");
    });
    ToolResultMessage first = (ToolResultMessage) model.requests().get(1).lastMessage();
    assertThat(first.isError()).isTrue();
    assertThat(first.content()).contains("from");
    assertThat(model.requests()).hasSize(3);
    assertThat(states).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, HANDLING_TOOL_ERROR, GENERATING_RESPONSE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE,
        AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, IDLE);
    ConversationSnapshot error = agent.conversation().snapshot().versions().stream()
        .filter(s -> s.state() == HANDLING_TOOL_ERROR).findFirst().orElseThrow();
    assertThat(error.detail()).isInstanceOfSatisfying(StateDetail.ToolError.class, d -> {
      assertThat(d.toolName()).isEqualTo("lines");
      assertThat(d.error()).contains("from");
    });
  }

  @Test
  void aToolSayingTheArgumentsAreWrongDoesNotFailTheTurn() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "seek", "{\"offset\":900}"))
        .thenText("the file is shorter");
    TurnResult turn = failTurnAgent(model).send("seek").toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(((Outcome.Failed) turn.calls().get(0).snapshot().outcome()).kind())
        .isEqualTo(FailureKind.INVALID_ARGUMENTS);
    assertThat(((ToolResultMessage) model.requests().get(1).lastMessage()).content())
        .endsWith("offset 900 is past the end (size 12); send an offset below 12");
    assertThat(states).containsSubsequence(EXECUTING_TOOLS, HANDLING_TOOL_ERROR, GENERATING_RESPONSE)
        .doesNotContain(FAILED);
  }

  @Test
  void aRealToolFailureStillFailsTheTurnBeforeAnArgumentError() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "seek", "{}"), call("c2", "broken", "{}"))
        .thenText("never asked");
    TurnResult turn = failTurnAgent(model).send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(turn.text()).contains("disk full");
    assertThat(states).endsWith(EXECUTING_TOOLS, FAILED);
  }

  @Test
  void aResponseWithAResultAndAnArgumentErrorReportsTheResults() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "seek", "{}"),
        call("c2", "lines", "{\"from\":1,\"to\":2}")).thenText("done");
    TurnResult turn = failTurnAgent(model).send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(states).containsSubsequence(EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE)
        .doesNotContain(HANDLING_TOOL_ERROR, FAILED);
  }
}
