package dev.toolcall.conversation;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.Race;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Agents built without a conversation id each get a conversation (and so a session) of their own. Before: every
 * such agent used {@code conversation-1}, so two of them on one runtime that sent the same call id shared the call:
 * one agent received the other's result (or was refused as a duplicate) and its own tool never ran, and an
 * "approve for session" given to one approved the other's call without asking.
 */
class AgentDefaultConversationTest {
  private final List<String> ran = new CopyOnWriteArrayList<>();
  private final List<PermissionRequest> asked = new CopyOnWriteArrayList<>();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(Tool.of(ToolDefinition.builder("deploy")
      .description("deploys for a user").requiresApproval(true).build(), inv -> {
        String user = inv.arguments().asJson().get("user").asText();
        ran.add(user);
        return ToolResult.of("deployed " + user);
      })).build();
  private final ExecutorService person = Executors.newSingleThreadExecutor();

  @AfterEach
  void close() {
    runtime.close();
    person.shutdownNow();
  }

  /**
   * Two agents, same tool, same call id, sent at once on two threads; a person approves every request "for the
   * session". Each agent's call runs its own tool, each agent gets its own result, and each call was asked for.
   */
  @RepeatedTest(5)
  void twoAgentsWithoutConversationIdsShareNothing() throws Exception {
    runtime.permissions().onRequest(r -> {
      asked.add(r);
      runtime.permissions().decide(r.requestId(), Decision.approveForSession(r));
    }, person);
    String[] users = {"user-A", "user-B"};
    ScriptedModel[] models = new ScriptedModel[2];
    Agent[] agents = new Agent[2];
    TurnResult[] results = new TurnResult[2];
    for (int i = 0; i < 2; i++) {
      models[i] = new ScriptedModel().thenCalls(call("call_0", "deploy", "{\"user\":\"" + users[i] + "\"}")).thenText("done " + users[i]);
      agents[i] = Agent.builder(models[i], runtime).build();
    }

    Race.run(2, Duration.ofSeconds(20), i -> results[i] = agents[i].send("deploy for " + users[i])
        .toCompletableFuture().get(15, TimeUnit.SECONDS));

    for (int i = 0; i < 2; i++) {
      assertThat(results[i].ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      ToolResultMessage r = (ToolResultMessage) models[i].requests().get(1).messages().stream()
          .filter(m -> m instanceof ToolResultMessage).findFirst().orElseThrow();
      assertThat(r.content()).as("the result reaching agent %s's model", users[i]).isEqualTo("deployed " + users[i]);
    }
    assertThat(ran).containsExactlyInAnyOrder("user-A", "user-B");
    assertThat(asked).as("each call is asked for in its own session")
        .extracting(PermissionRequest::sessionId)
        .containsExactlyInAnyOrder(agents[0].conversation().id(), agents[1].conversation().id());
    assertThat(agents[0].conversation().id()).isNotEqualTo(agents[1].conversation().id());
  }
}
