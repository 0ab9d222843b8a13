package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolResult;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.agui.Browser;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.wire.SessionTokens;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The approval page in headless Chromium, open on instance B's server from before anything happens, follows turns
 * driven on instance A without reconnecting (the page's EventSource is made once): a request of a turn that suspended
 * on A appears with its buttons, a click on Approve (a POST to B) makes the turn go on and the page shows the call
 * completed; a second turn suspended and resumed on A shows on the page as completed, with A's result, and the header
 * says the turn finished.
 */
class PageFeedBrowserTest {
  private static final String DB = "toolcall_page_feed_browser";

  @Test
  void thePageOnBShowsAndAnswersWhatInstanceADoes() throws Exception {
    PostgresCallStore.create(PgCluster.database(DB)).applySchema();
    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(DB), 4));
    List<String> ranOn = new CopyOnWriteArrayList<>();
    byte[] key = new byte[32];
    java.util.Arrays.fill(key, (byte) 5);
    SessionTokens tokens = SessionTokens.signed(key);
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell("a", ranOn))
            .sharedStore(storeA.shared("a", Duration.ofSeconds(3))).build();
        ToolCallRuntime b = ToolCallRuntime.builder().tools(shell("b", ranOn))
            .sharedStore(storeB.shared("b", Duration.ofSeconds(3))).build();
        AgentDirectory dirA = AgentDirectory.builder(a, storeA.conversations(),
            id -> Agent.builder(new ClusterModel(), a)).build();
        AgentDirectory dirB = AgentDirectory.builder(b, storeB.conversations(),
            id -> Agent.builder(new ClusterModel(), b)).build();
        ApprovalServer server = ApprovalServer.builder(b).directory(dirB).access(tokens).start();
        Browser browser = Browser.open()) {
      browser.beforeEveryPage("window.__streams = 0; (function () { var ES = window.EventSource;"
          + " window.EventSource = function (u) { window.__streams++; return new ES(u); };"
          + " window.EventSource.CLOSED = ES.CLOSED; })();");
      browser.go(server.pageUrl("br-1", tokens.issue("br-1")));
      browser.until("the page's stream open and its snapshot drawn",
          d -> d.findElements(By.cssSelector("#connection[data-state='open']")).size() == 1
              && d.findElement(By.id("status")).getText().equals("Nothing to answer"));

      TurnResult asked = dirA.send("br-1", "deploy web").toCompletableFuture().get(20, TimeUnit.SECONDS);
      Interrupt first = asked.interrupts().get(0);
      browser.cardIn(first.callId(), "permission_pending");
      browser.click(first.callId(), "approve_once");
      browser.cardIn(first.callId(), "completed");
      assertThat(browser.text(first.callId(), ".result")).isEqualTo("ran deploy web on b");

      TurnResult again = dirA.send("br-1", "deploy api").toCompletableFuture().get(20, TimeUnit.SECONDS);
      Interrupt second = again.interrupts().get(0);
      browser.cardIn(second.callId(), "permission_pending");
      dirA.resumeWith("br-1", List.of(new Decision.ApproveOnce(second.requestId(), second.argumentsVersion())))
          .toCompletableFuture().get(20, TimeUnit.SECONDS);
      browser.cardIn(second.callId(), "completed");
      assertThat(browser.text(second.callId(), ".result")).isEqualTo("ran deploy api on a");
      browser.until("the header saying the turn finished",
          d -> d.findElement(By.id("status")).getText().equals("Turn finished"));
      assertThat(ranOn).containsExactly("b", "a");
      assertThat(((Number) browser.driver.executeScript("return window.__streams")).intValue())
          .as("event streams the page opened").isEqualTo(1);
    }
  }

  private static Tool shell(String instance, List<String> ranOn) {
    return Tool.of(ToolDefinition.builder("shell").description("Runs a command")
        .permissionTimeout(Duration.ofHours(1)).build(), inv -> {
          ranOn.add(instance);
          return ToolResult.of("ran " + inv.arguments().asJson().path("command").asText() + " on " + instance);
        });
  }
}
