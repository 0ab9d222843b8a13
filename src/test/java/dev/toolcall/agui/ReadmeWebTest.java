package dev.toolcall.agui;

import dev.toolcall.testing.Printed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.testing.Readme;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import dev.toolcall.wire.SessionTokens;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The README's "Approvals from a web page": runs its code, with a person played by a headless browser that opens
 * the printed page and clicks "Approve once", and checks the README shows exactly this code.
 */
@ExtendWith(Printed.Capture.class)
class ReadmeWebTest {

  /** The person at the browser. */
  static final class Person {
    void answers(URI page) {
      try (Browser browser = Browser.open()) {
        browser.go(page);
        browser.click("call_1", "approve_once");
        browser.cardIn("call_1", "completed");
      }
    }
  }

  @Test
  void theReadmeWebApprovalRunsAndTheReadmeShowsIt(Printed printed) throws Exception {
    Person person = new Person();
    Tool clean = Tool.of(ToolDefinition.builder("clean").description("Deletes the build directory")
        .requiresApproval(true).build(), inv -> ToolResult.of("deleted build/"));
    ModelClient model = ModelClient.blocking(request -> request.lastMessage() instanceof ToolResultMessage r
        ? ModelResponse.text("Done: " + r.content())
        : ModelResponse.toolCalls("", List.of(new ToolCallRequest("call_1", "clean", "{}"))));
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(clean).build();
    Agent agent = Agent.builder(model, runtime).conversationId("session-1").build();

    // README:begin web
    SessionTokens tokens = SessionTokens.create();
    try (ApprovalServer server = ApprovalServer.builder(runtime).access(tokens)
        .agents(threadId -> agent)                 // AG-UI clients: POST /agui, Authorization: Bearer <token>
        .start()) {
      URI page = server.pageUrl("session-1");      // http://127.0.0.1:PORT/approvals/#session=session-1&token=...
      System.out.println("Approve or deny at " + page);
      CompletableFuture<TurnResult> turn = agent.send("Clean up the build").toCompletableFuture();
      person.answers(page);                        // in a browser: Approve once
      System.out.println(turn.join().text());      // Done: deleted build/
    }
    runtime.close();
    // README:end web
    assertThat(agent.messages().get(agent.messages().size() - 1))
        .isEqualTo(new dev.toolcall.conversation.AssistantMessage("Done: deleted build/", List.of()));
    assertThat(printed.text().lines()).hasSize(2).last().isEqualTo("Done: deleted build/");
    assertThat(printed.text()).startsWith("Approve or deny at http://127.0.0.1:").contains("#session=session-1&token=");
    Readme.assertShows("src/test/java/dev/toolcall/agui/ReadmeWebTest.java", "web");
  }
}
