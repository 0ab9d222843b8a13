package dev.toolcall.conversation;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
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
 * Every tool call of an assistant message gets exactly one result message, right after that message, whatever ids
 * the model sends: an id reused in a later response (some providers number ids per response), an id used twice in
 * one response, a blank id or a blank tool name. A blank id, or one an earlier response used (providers send {@code ""}
 * and number ids per response), is a call of its own: the library mints its id, runs it, and answers it under the
 * provider's id (issue 27, items 3-4; before, it was refused and never ran). An id used twice in one response runs
 * once and both are answered; a blank tool name is answered with why it was not run.
 */
class ReusedCallIdTest {
  private final List<String> ran = new CopyOnWriteArrayList<>();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(Tool.of(ToolDefinition.builder("echo")
      .description("echoes").readOnly(true).requiresApproval(false).build(), inv -> {
        ran.add(inv.arguments().raw());
        return ToolResult.of("echo " + inv.arguments().raw());
      })).build();

  @AfterEach
  void close() {
    runtime.close();
  }

  /** The invariant: each assistant message's tool calls are answered, in order, by the messages right after it. */
  static void assertEveryCallAnsweredRightAfter(List<Message> history) {
    for (int i = 0; i < history.size(); i++) {
      if (history.get(i) instanceof AssistantMessage a && !a.toolCalls().isEmpty()) {
        List<ToolCallRequest> calls = a.toolCalls();
        assertThat(history.size()).isGreaterThanOrEqualTo(i + 1 + calls.size());
        for (int k = 0; k < calls.size(); k++) {
          Message m = history.get(i + 1 + k);
          assertThat(m).as("message after call %s of message %s", k, i).isInstanceOf(ToolResultMessage.class);
          assertThat(((ToolResultMessage) m).callId()).isEqualTo(calls.get(k).id());
        }
      }
    }
  }

  private static List<ToolResultMessage> results(List<Message> history) {
    List<ToolResultMessage> out = new ArrayList<>();
    for (Message m : history) {
      if (m instanceof ToolResultMessage r) {
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void anIdReusedInALaterResponseRunsAsANewCallAnsweredUnderItsId() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("call_1", "echo", "{\"n\":1}"))
        .thenCalls(call("call_1", "echo", "{\"n\":2}")).thenText("done");
    Agent agent = Agent.builder(model, runtime).build();
    TurnResult turn = agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(ran).containsExactly("{\"n\":1}", "{\"n\":2}");
    List<Message> history = agent.messages();
    assertEveryCallAnsweredRightAfter(history);
    List<ToolResultMessage> results = results(history);
    assertThat(results).hasSize(2);
    assertThat(results).extracting(ToolResultMessage::content).containsExactly("echo {\"n\":1}", "echo {\"n\":2}");
    ModelRequest third = model.requests().get(2);
    assertEveryCallAnsweredRightAfter(third.messages());
  }

  @Test
  void anIdUsedTwiceInOneResponseRunsOnceAndAnswersBoth() throws Exception {
    ScriptedModel model = new ScriptedModel()
        .thenCalls(call("c1", "echo", "{\"n\":1}"), call("c1", "echo", "{\"n\":2}")).thenText("done");
    Agent agent = Agent.builder(model, runtime).build();
    assertThat(agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS).ending())
        .isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(ran).containsExactly("{\"n\":1}");
    assertEveryCallAnsweredRightAfter(agent.messages());
    assertThat(results(agent.messages()).get(1).content()).contains("another tool call of this response");
  }

  @Test
  void aBlankIdRunsAndABlankToolNameIsAnswered() throws Exception {
    ScriptedModel model = new ScriptedModel()
        .thenCalls(new ToolCallRequest("", "echo", "{}"), new ToolCallRequest("c2", " ", "{}"),
            call("c3", "echo", "{\"n\":3}"), new ToolCallRequest("", "echo", "{\"n\":4}"))
        .thenText("done");
    Agent agent = Agent.builder(model, runtime).build();
    TurnResult turn = agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(ran).containsExactlyInAnyOrder("{}", "{\"n\":3}", "{\"n\":4}");
    assertEveryCallAnsweredRightAfter(agent.messages());
    List<ToolResultMessage> results = results(agent.messages());
    assertThat(results.get(0).content()).isEqualTo("echo {}");
    assertThat(results.get(1).content()).contains("names no tool");
    assertThat(results.get(2).isError()).isFalse();
    assertThat(results.get(3).content()).isEqualTo("echo {\"n\":4}");
    assertThat(turn.calls()).extracting(c -> c.snapshot().identity().label()).contains("", "c3");
  }
}
