package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.wire.SessionTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

/**
 * The approval page as a person meets it, in a real browser (headless Chromium; see {@link Browser}): an agent's turn
 * with a completed call and a failed one, a sub-agent whose calls run nested under it, then a shell command that
 * waits for approval with the model's reason beside it. Checks what the page shows (icons drawn without fonts, each output
 * once, nesting, waiting apart from failure, times that tick, labels for screen readers), that the request is
 * answered with the keyboard alone, and that the page says the turn ended instead of "reconnecting". Takes the
 * README's screenshot on the way: into {@code target/approval-page.png}, or, with {@code -Dtoolcall.docs.write=true},
 * into {@code docs/images/approval-page.png}.
 */
class ApprovalPageStoryTest {
  static final String WHY = "RefundCalculator rounds HALF_DOWN where Prices rounds HALF_EVEN. Before changing it, I"
      + " want to rerun the failing test with debug output to confirm the rounding.";
  static final String COMMAND = "mvn -q test -Dtest=OrderServiceTest -Ddebug";

  static Browser browser;

  final SessionTokens tokens = SessionTokens.create();
  ToolCallRuntime runtime;
  Agent agent;
  ApprovalServer server;

  @BeforeAll
  static void openBrowser() {
    browser = Browser.open();
  }

  @AfterAll
  static void closeBrowser() {
    if (browser != null) {
      browser.close();
    }
  }

  @BeforeEach
  void start() throws Exception {
    String path = schema("path");
    Tool readFile = Tool.of(ToolDefinition.builder("read_file").description("Reads a file of the repository")
        .parameters(path).requiresApproval(false).build(), inv -> {
          inv.output("reading " + inv.arguments().asJson().path("path").asText() + "\n");
          return ToolResult.of(inv.arguments().asJson().path("path").asText().endsWith(".log")
              ? "BUILD FAILURE: OrderServiceTest.refund expected 10.05 but was 10.04"
              : "BigDecimal refund = amount.setScale(2, RoundingMode.HALF_DOWN);");
        });
    Tool runTests = Tool.of(ToolDefinition.builder("run_tests").description("Runs the test suite")
        .parameters(schema("test")).requiresApproval(false).build(), inv -> {
          inv.output("Running OrderServiceTest\n");
          throw new ToolException("3 tests failed: refund, refundTwice, partialRefund");
        });
    Tool grep = Tool.of(ToolDefinition.builder("grep").description("Searches the repository")
        .parameters(schema("pattern")).requiresApproval(false).build(), inv -> {
          inv.output("src/main/java/shop/RefundCalculator.java:42: RoundingMode.HALF_DOWN\n");
          inv.output("src/main/java/shop/Prices.java:17: RoundingMode.HALF_EVEN\n");
          return ToolResult.of("2 matches");
        });
    Tool subAgent = Tool.of(ToolDefinition.builder("sub_agent").description("Delegates a task to a sub-agent")
        .parameters(schema("task")).requiresApproval(false).build(), inv -> {
          inv.output("Looking for the rounding of refund()\n");
          var batch = runtime.schedule(inv.sessionId(), List.of(
              CallRequest.of("call_3.1", "read_file", "{\"path\":\"src/main/java/shop/RefundCalculator.java\"}")
                  .nestedIn(inv.callId()),
              CallRequest.of("call_3.2", "grep", "{\"pattern\":\"RoundingMode\"}").nestedIn(inv.callId())));
          batch.whenDone().toCompletableFuture().get(60, TimeUnit.SECONDS);
          return ToolResult.of("refund() rounds HALF_DOWN where prices round HALF_EVEN");
        });
    Tool shell = Tool.of(ToolDefinition.builder("shell").description("Runs a shell command in the repository")
        .parameters(schema("command")).requiresApproval(true).build(), inv -> ToolResult.of("1 test failed"));
    runtime = ToolCallRuntime.builder().tools(readFile, runTests, grep, subAgent, shell).build();
    ModelClient model = ModelClient.blocking(request -> {
      long asked = request.messages().stream().filter(m -> m instanceof AssistantMessage).count();
      if (asked == 0) {
        return ModelResponse.toolCalls("Let me read the CI log and run the failing test.", List.of(
            new ToolCallRequest("call_1", "read_file", "{\"path\":\"ci.log\"}"),
            new ToolCallRequest("call_2", "run_tests", "{\"test\":\"OrderServiceTest\"}")));
      }
      if (asked == 1) {
        return ModelResponse.toolCalls("The refund test fails. A sub-agent finds where refund() rounds.", List.of(
            new ToolCallRequest("call_3", "sub_agent", "{\"task\":\"Find why refund() rounds down\"}")));
      }
      if (asked == 2) {
        return ModelResponse.toolCalls(WHY, List.of(
            new ToolCallRequest("call_4", "shell", "{\"command\":\"" + COMMAND + "\"}")));
      }
      return ModelResponse.text("refund() rounds HALF_DOWN; RefundCalculator should use HALF_EVEN like Prices.");
    });
    agent = Agent.builder(model, runtime).conversationId("shop-service").build();
    server = ApprovalServer.builder(runtime).access(tokens).transcript(agent).start();
  }

  @AfterEach
  void stop() {
    server.close();
    runtime.close();
  }

  static String schema(String property) {
    return "{\"type\":\"object\",\"properties\":{\"" + property + "\":{\"type\":\"string\"}},\"required\":[\""
        + property + "\"]}";
  }

  /** The card of {@code callId}'s own part (its nested calls' cards left out). */
  static String own(String callId) {
    return "[data-call-id='" + callId + "'] > .body";
  }

  WebElement shown(String css) {
    return browser.until(css, d -> d.findElements(By.cssSelector(css)).stream().findFirst().orElse(null));
  }

  @Test
  void aPersonSeesWhyTheAgentAsksAnswersWithTheKeyboardAndSeesTheTurnEnd() throws Exception {
    browser.go(server.pageUrl("shop-service"));
    CompletableFuture<TurnResult> turn = agent.send("CI is red on shop-service. Find out why.").toCompletableFuture();

    WebElement shell = browser.cardIn("call_4", "permission_pending");
    browser.cardIn("call_1", "completed");
    browser.cardIn("call_2", "failed");
    browser.cardIn("call_3.1", "completed");
    browser.cardIn("call_3.2", "completed");

    // why the agent asks: the model's text and the tool's description beside the request
    assertThat(browser.driver.findElement(By.cssSelector(own("call_4") + " .why blockquote")).getText()).isEqualTo(WHY);
    assertThat(browser.driver.findElement(By.cssSelector(own("call_4") + " .desc")).getText())
        .isEqualTo("Runs a shell command in the repository");
    assertThat(browser.driver.findElement(By.cssSelector(own("call_4") + " .args")).getText())
        .isEqualTo("{\"command\":\"" + COMMAND + "\"}");

    // icons: an inline svg on every card, and no emoji anywhere on the page (no font is needed)
    List<WebElement> cards = browser.driver.findElements(By.cssSelector(".call"));
    assertThat(cards).hasSize(6);
    for (WebElement c : cards) {
      assertThat(c.findElements(By.cssSelector(":scope > .body > .head > .icon-box > svg")))
          .as("inline svg icon of %s", c.getAttribute("data-call-id")).hasSize(1);
    }
    assertThat((Boolean) browser.driver.executeScript(
        "return /[\\p{Extended_Pictographic}\\u{FE0F}]/u.test(document.body.innerText)"))
        .as("no emoji on the page").isFalse();

    // each output once: live output while running, the result alone once completed
    for (WebElement c : cards) {
      assertThat(c.findElements(By.cssSelector(":scope > .body > pre.output, :scope > .body > pre.result")))
          .as("outputs shown by %s", c.getAttribute("data-call-id")).hasSizeLessThanOrEqualTo(1);
    }
    assertThat(browser.driver.findElement(By.cssSelector(own("call_1"))).getText()).doesNotContain("reading ci.log")
        .contains("BUILD FAILURE");
    assertThat(browser.driver.findElement(By.cssSelector(own("call_3.2"))).getText()).doesNotContain("Prices.java")
        .contains("2 matches");

    // the sub-agent's calls inside the sub-agent's card
    for (String nested : List.of("call_3.1", "call_3.2")) {
      assertThat(browser.driver.findElements(By.cssSelector(
          "[data-call-id='call_3'] > .children > [data-call-id='" + nested + "']"))).as(nested + " nested").hasSize(1);
    }
    assertThat(browser.driver.findElements(By.cssSelector("#calls > .call")).stream()
        .map(c -> c.getAttribute("data-call-id")).toList()).containsExactly("call_1", "call_2", "call_3", "call_4");

    // waiting is not failure: another class, another colour, and not the failure red
    WebElement failed = browser.driver.findElement(By.cssSelector("[data-call-id='call_2']"));
    assertThat(shell.getAttribute("class")).contains("tone-paprika").doesNotContain("tone-red");
    assertThat(failed.getAttribute("class")).contains("tone-red");
    assertThat(shell.getCssValue("border-left-color")).isNotEqualTo(failed.getCssValue("border-left-color"));

    // the time of the waiting call ticks (two reads differ; waited for, not slept)
    String time = browser.driver.findElement(By.cssSelector(own("call_4") + " .time")).getText();
    assertThat(time).matches("\\d+ ms|\\d+\\.\\d s");
    browser.until("the elapsed time ticks", d -> !d.findElement(By.cssSelector(own("call_4") + " .time")).getText()
        .equals(time));

    // labels for screen readers
    assertThat(shell.getAttribute("aria-label")).isEqualTo("shell: Awaiting permission");
    assertThat(failed.getAttribute("aria-label")).isEqualTo("run_tests: Failed");
    assertThat(browser.driver.findElement(By.cssSelector(own("call_2") + " svg")).getAttribute("aria-label"))
        .isEqualTo("Failed");
    assertThat(browser.driver.findElement(By.cssSelector(own("call_4") + " [data-action='approve_once']"))
        .getAttribute("aria-label")).isEqualTo("Approve shell once");
    WebElement announcer = browser.driver.findElement(By.id("announcer"));
    assertThat(announcer.getAttribute("aria-live")).isEqualTo("assertive");
    browser.until("the request is announced", d -> d.findElement(By.id("announcer")).getAttribute("textContent")
        .startsWith("shell asks for your approval: "));
    assertThat(browser.driver.findElement(By.id("status")).getText()).isEqualTo("1 request waits for you");

    // the README's picture: the whole page in one window
    Dimension size = browser.driver.manage().window().getSize();
    long height = (Long) browser.driver.executeScript(
        "return document.documentElement.scrollHeight + window.outerHeight - window.innerHeight");
    browser.driver.manage().window().setSize(new Dimension(1000, (int) height));
    browser.until("the page fits the window", d -> (Boolean) ((org.openqa.selenium.JavascriptExecutor) d)
        .executeScript("return document.documentElement.scrollHeight <= window.innerHeight"));
    // the README's picture is rewritten on request only (its timings differ at each run): target/ otherwise
    Path shot = Boolean.getBoolean("toolcall.docs.write") ? Path.of("docs/images/approval-page.png")
        : Path.of("target/approval-page.png");
    Files.createDirectories(shot.getParent());
    Files.write(shot, browser.driver.getScreenshotAs(OutputType.BYTES));
    assertThat(Files.size(shot)).as("the screenshot").isGreaterThan(10_000);
    browser.driver.manage().window().setSize(size);

    // the keyboard alone: Tab to the request's "Approve once", with a visible focus, then Enter
    browser.driver.findElement(By.tagName("body")).click();
    WebElement focused = null;
    for (int i = 0; i < 30 && focused == null; i++) {
      new Actions(browser.driver).sendKeys(Keys.TAB).perform();
      WebElement active = browser.driver.switchTo().activeElement();
      if ("approve_once".equals(active.getAttribute("data-action"))) {
        focused = active;
      }
    }
    assertThat(focused).as("Tab reaches Approve once").isNotNull();
    assertThat(focused.getCssValue("outline-style")).as("the focus is visible").isNotEqualTo("none");
    new Actions(browser.driver).sendKeys(Keys.ENTER).perform();
    browser.cardIn("call_4", "completed");
    assertThat(browser.text("call_4", ".result")).isEqualTo("1 test failed");

    // the end: said once the turn has ended, and a stopped server is not "reconnecting"
    assertThat(turn.get(30, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    browser.until("the page says the turn finished",
        d -> "finished".equals(d.findElement(By.id("status")).getAttribute("data-state")));
    assertThat(browser.driver.findElement(By.id("status")).getText()).isEqualTo("Turn finished");
    assertThat(shown("#banner:not([hidden])").getText())
        .isEqualTo("Turn finished. Nothing waits for your answer. Calls: 5 done, 1 failed.");
    server.close();
    browser.until("the page says the server stopped",
        d -> "ended".equals(d.findElement(By.id("connection")).getAttribute("data-state")));
    assertThat(browser.driver.findElement(By.id("connection")).getText()).isEqualTo("server stopped");
    assertThat(shown("#banner").getText()).endsWith("The server has stopped; this page keeps what it showed.");
  }

  @Test
  void theShortcutKeysDenyWithAReasonWithoutTheMouse() throws Exception {
    browser.go(server.pageUrl("shop-service"));
    CompletableFuture<TurnResult> turn = agent.send("CI is red on shop-service. Find out why.").toCompletableFuture();
    browser.cardIn("call_4", "permission_pending");

    new Actions(browser.driver).sendKeys("n").perform(); // N: the next request
    assertThat(browser.driver.switchTo().activeElement().getAttribute("data-call-id")).isEqualTo("call_4");
    new Actions(browser.driver).sendKeys("d").perform(); // D: deny, asking why
    WebElement reason = browser.until("the reason box has the focus", d -> {
      WebElement a = d.switchTo().activeElement();
      return a.getAttribute("class").contains("reason") ? a : null;
    });
    reason.sendKeys("not on the shared CI runner", Keys.ENTER);

    browser.cardIn("call_4", "permission_denied");
    assertThat(browser.text("call_4", ".error")).contains("not on the shared CI runner");
    assertThat(turn.get(30, TimeUnit.SECONDS).ending()).isEqualTo(TurnResult.Ending.ANSWERED);
  }
}
