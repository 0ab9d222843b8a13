package dev.toolcall.conversation;

import dev.toolcall.testing.Printed;
import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import dev.toolcall.testing.Readme;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs the README's turn with a scripted model, and checks the README shows exactly this code. */
@ExtendWith(Printed.Capture.class)
class ReadmeAgentTest {

  @Test
  void theReadmeTurnRunsAndTheReadmeShowsIt(Printed printed) throws Exception {
    // README:begin
    Tool readFile = Tool.of(
        ToolDefinition.builder("read_file").description("Reads a file").readOnly(true).requiresApproval(false)
            .build(),
        inv -> ToolResult.of("# toolcall-lifecycle"));

    // A scripted model: it asks for a tool call, then answers with what the tool returned.
    ModelClient model = ModelClient.blocking(request -> request.lastMessage() instanceof ToolResultMessage result
        ? ModelResponse.text("The README starts with: " + result.content())
        : ModelResponse.toolCalls("", List.of(new ToolCallRequest("call_1", "read_file", "{\"path\":\"README.md\"}"))));

    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(readFile).build();
    Agent agent = Agent.builder(model, runtime).build();
    TurnResult turn = agent.send("What does the README say?").toCompletableFuture().join();
    System.out.println(turn.text());   // The README starts with: # toolcall-lifecycle
    runtime.close();
    // README:end
    assertThat(turn.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(turn.text()).isEqualTo("The README starts with: # toolcall-lifecycle");
    assertThat(turn.toolResults()).singleElement().extracting(ToolResultMessage::content)
        .isEqualTo("# toolcall-lifecycle");
    assertThat(agent.messages()).hasSize(4);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);

    assertThat(printed.text()).isEqualTo("The README starts with: # toolcall-lifecycle" + System.lineSeparator());
    Readme.assertShows("src/test/java/dev/toolcall/conversation/ReadmeAgentTest.java");
  }
}
