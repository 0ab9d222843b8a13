package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.AWAITING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.AWAITING_TOOL_APPROVAL;
import static dev.toolcall.ConversationState.EXECUTING_TOOLS;
import static dev.toolcall.ConversationState.GENERATING_RESPONSE;
import static dev.toolcall.ConversationState.IDLE;
import static dev.toolcall.ConversationState.PROCESSING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.PROCESSING_USER_MESSAGE;
import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.EventListener;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.permission.PermissionPolicy;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The conversation's state tells the truth when nothing of a response runs: calls all denied at once by a policy
 * rule or by read-only mode take seed 03's denial edge ({@code processing_llm_response -> awaiting_tool_approval ->
 * generating_response}, as the calls themselves go through {@code permission_pending}), never
 * {@code executing_tools}. Before, such a response went through {@code executing_tools} although no tool ran.
 */
class ConversationStatesTest {
  private final List<ConversationState> states = new CopyOnWriteArrayList<>();
  private ToolCallRuntime runtime;

  @AfterEach
  void close() {
    runtime.close();
  }

  private Agent agent(ScriptedModel model, Consumer<dev.toolcall.permission.PermissionService.Builder> permissions) {
    runtime = ToolCallRuntime.builder().tools(
        Tool.of(ToolDefinition.builder("shell").description("runs a command").build(), inv -> ToolResult.of("ran")),
        Tool.of(ToolDefinition.builder("write").description("writes").build(), inv -> ToolResult.of("wrote")))
        .permissions(permissions).build();
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ConversationEvent c) {
        states.add(c.snapshot().state());
      }
    }));
    return Agent.builder(model, runtime).build();
  }

  private void assertDeniedWithoutExecuting(Agent agent, ScriptedModel model) throws Exception {
    TurnResult turn = agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(turn.calls()).allSatisfy(c -> assertThat(c.snapshot().state())
        .isEqualTo(ToolCallState.PERMISSION_DENIED));
    assertThat(states).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL, GENERATING_RESPONSE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, IDLE);
    assertThat(states).doesNotContain(EXECUTING_TOOLS);
    assertThat(model.requests()).hasSize(2);
  }

  @Test
  void callsAllDeniedByAPolicyRuleNeverShowExecutingTools() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "shell", "{\"cmd\":\"rm -rf /\"}"), call("c2", "shell", "{\"cmd\":\"ls\"}"))
        .thenText("I may not run commands");
    Agent agent = agent(model, p -> p.policy(PermissionPolicy.builder().deny("shell").build()));
    assertDeniedWithoutExecuting(agent, model);
  }

  @Test
  void callsAllDeniedByReadOnlyModeNeverShowExecutingTools() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "write", "{}"), call("c2", "shell", "{\"cmd\":\"make\"}"))
        .thenText("in plan mode I only read");
    Agent agent = agent(model, p -> p.approvalMode(ApprovalMode.READ_ONLY));
    assertDeniedWithoutExecuting(agent, model);
  }
}
