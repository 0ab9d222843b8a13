package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.conversation.TurnResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.wire.SessionTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;

/**
 * Issue 29, item 4: the approval page in a real browser (headless Chromium driven by Selenium; see {@link Browser}).
 * Each test starts a turn whose call asks for approval, opens the session's page, answers (or not) there, and checks
 * both what the page shows and what ran on the server.
 */
class ApprovalPageBrowserTest {
  static Browser browser;

  final SessionTokens tokens = SessionTokens.create();
  Shell shell;
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
    shell = new Shell(Duration.ofSeconds(3));
    server = ApprovalServer.builder(shell.runtime).access(tokens).start();
  }

  @AfterEach
  void stop() {
    server.close();
    shell.close();
  }

  /** Starts a turn in {@code session} that asks to run {@code command}; returns its request once asked. */
  PermissionRequest ask(String session, String command, CompletableFuture<TurnResult>[] turn) throws Exception {
    turn[0] = shell.agent(session).send("run " + command).toCompletableFuture();
    return shell.runtime.permissions().awaitNext(Duration.ofSeconds(20)).orElseThrow();
  }

  @SuppressWarnings("unchecked")
  static CompletableFuture<TurnResult>[] turn() {
    return new CompletableFuture[1];
  }

  @Test
  void approveOnceRunsTheCallAndThePageShowsItsResult() throws Exception {
    var turn = turn();
    PermissionRequest r = ask("s-approve", "echo hi", turn);
    browser.go(server.pageUrl("s-approve"));
    WebElement card = browser.cardIn(r.callId(), "permission_pending");
    assertThat(card.findElement(By.cssSelector(".tool")).getText()).isEqualTo("shell");
    assertThat(card.findElement(By.cssSelector(".args")).getText()).isEqualTo("{\"command\":\"echo hi\"}");
    assertThat(browser.text(r.callId(), ".remaining")).startsWith("auto-deny in ");
    Files.createDirectories(Path.of("target"));
    Files.write(Path.of("target/approval-page.png"), browser.driver.getScreenshotAs(OutputType.BYTES));

    browser.click(r.callId(), "approve_once");

    browser.cardIn(r.callId(), "completed");
    assertThat(browser.text(r.callId(), ".result")).isEqualTo("ran: echo hi");
    assertThat(turn[0].get(20, TimeUnit.SECONDS).text()).isEqualTo("tool said: ran: echo hi");
    assertThat(shell.ran).containsExactly("echo hi");
  }

  /** Arguments and results are the model's and the tool's text: the page shows them as text and runs nothing. */
  @Test
  void hostileArgumentsAreShownAsTextAndNothingInThemRuns() throws Exception {
    var turn = turn();
    String hostile = "<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>";
    PermissionRequest r = ask("s-hostile", hostile, turn);
    browser.go(server.pageUrl("s-hostile"));
    browser.cardIn(r.callId(), "permission_pending");
    assertThat(browser.text(r.callId(), ".args")).isEqualTo(Wire.text(Wire.JSON.createObjectNode().put("command", hostile)));

    browser.click(r.callId(), "approve_once");
    browser.cardIn(r.callId(), "completed");
    assertThat(browser.text(r.callId(), ".result")).isEqualTo("ran: " + hostile);
    assertThat(browser.driver.findElements(By.cssSelector("#calls img, #calls script"))).isEmpty();
    assertThat((Boolean) browser.driver.executeScript("return window.__pwned === undefined")).isTrue();
    assertThat(turn[0].get(20, TimeUnit.SECONDS).text()).isEqualTo("tool said: ran: " + hostile);
  }

  @Test
  void denyWithAReasonTellsTheModelWhy() throws Exception {
    var turn = turn();
    PermissionRequest r = ask("s-deny", "rm -rf build", turn);
    browser.go(server.pageUrl("s-deny"));
    browser.click(r.callId(), "deny");
    browser.until("the reason box", d -> d.findElement(By.cssSelector(".reason"))).sendKeys("not before the release");
    browser.click(r.callId(), "confirm-deny");

    browser.cardIn(r.callId(), "permission_denied");
    assertThat(browser.text(r.callId(), ".error")).contains("not before the release");
    assertThat(turn[0].get(20, TimeUnit.SECONDS).text()).contains("not before the release");
    assertThat(shell.ran).isEmpty();
  }

  @Test
  void editedArgumentsAreTheOnesThatRun() throws Exception {
    var turn = turn();
    PermissionRequest r = ask("s-edit", "echo draft", turn);
    browser.go(server.pageUrl("s-edit"));
    browser.click(r.callId(), "edit");
    WebElement args = browser.until("the editor", d -> d.findElement(By.cssSelector(".args-input")));
    args.clear();
    args.sendKeys("{\"command\":\"echo edited\"}");
    browser.click(r.callId(), "confirm-edit");

    browser.cardIn(r.callId(), "completed");
    assertThat(browser.text(r.callId(), ".result")).isEqualTo("ran: echo edited");
    assertThat(turn[0].get(20, TimeUnit.SECONDS).text()).isEqualTo("tool said: ran: echo edited");
    assertThat(shell.ran).containsExactly("echo edited");
  }

  @Test
  void theCountdownReachesTheAutoDeny() throws Exception {
    var turn = turn();
    PermissionRequest r = ask("timeout-page", "ship it", turn);
    browser.go(server.pageUrl("timeout-page"));
    assertThat(browser.text(r.callId(), ".remaining")).matches("auto-deny in [1-3]s");

    browser.cardIn(r.callId(), "permission_denied");
    assertThat(browser.text(r.callId(), ".error")).contains("nobody answered the permission request in time");
    assertThat(browser.driver.findElements(By.cssSelector("[data-call-id='" + r.callId() + "'] [data-action]")))
        .as("no answer buttons once denied").isEmpty();
    assertThat(turn[0].get(20, TimeUnit.SECONDS).text()).contains("in time");
    assertThat(shell.ran).isEmpty();
  }

  /** Tab 2 holds its live updates (a script injected before the page's own) so it answers a request already won. */
  @Test
  void twoTabsAnswerTheSameRequestOneWinsTheOtherShowsWhatWon() throws Exception {
    var turn = turn();
    PermissionRequest r = ask("s-tabs", "echo once", turn);
    try (Browser second = Browser.open()) {
      second.beforeEveryPage("window.__hold = false; window.__held = [];"
          + "const add = EventSource.prototype.addEventListener;"
          + "EventSource.prototype.addEventListener = function (type, fn, o) {"
          + "  if (type !== 'call') { return add.call(this, type, fn, o); }"
          + "  return add.call(this, type, function (e) { if (window.__hold) { window.__held.push(() => fn(e)); }"
          + "    else { fn(e); } }, o); };"
          + "window.__release = () => { window.__hold = false; window.__held.splice(0).forEach(f => f()); };");
      browser.go(server.pageUrl("s-tabs"));
      second.go(server.pageUrl("s-tabs"));
      browser.cardIn(r.callId(), "permission_pending");
      second.cardIn(r.callId(), "permission_pending");
      second.driver.executeScript("window.__hold = true;");

      browser.click(r.callId(), "approve_once");
      browser.cardIn(r.callId(), "completed");
      second.click(r.callId(), "deny");
      second.until("the reason box", d -> d.findElement(By.cssSelector(".reason"))).sendKeys("too late");
      second.click(r.callId(), "confirm-deny");

      assertThat(second.text(r.callId(), ".notice")).isEqualTo("Not applied: already answered: permission_approved");
      second.driver.executeScript("window.__release();");
      second.cardIn(r.callId(), "completed");
      assertThat(second.text(r.callId(), ".result")).isEqualTo("ran: echo once");
    }
    assertThat(turn[0].get(20, TimeUnit.SECONDS).text()).isEqualTo("tool said: ran: echo once");
    assertThat(shell.ran).containsExactly("echo once");
  }

  @Test
  void thePageReconnectsToARestartedServerAndTheRequestIsStillThereWithItsDeadline() throws Exception {
    var turn = turn();
    PermissionRequest r = ask("s-restart", "echo again", turn);
    browser.go(server.pageUrl("s-restart"));
    WebElement card = browser.cardIn(r.callId(), "permission_pending");
    assertThat(card.getAttribute("data-deadline")).isEqualTo(r.deadline().toString());
    int port = server.port();

    server.close();
    browser.until("the page sees the server gone",
        d -> "lost".equals(d.findElement(By.id("connection")).getAttribute("data-state")));
    server = ApprovalServer.builder(shell.runtime).access(tokens).port(port).start();
    browser.until("the page reconnects",
        d -> "open".equals(d.findElement(By.id("connection")).getAttribute("data-state")));

    card = browser.cardIn(r.callId(), "permission_pending");
    assertThat(card.getAttribute("data-deadline")).isEqualTo(r.deadline().toString());
    browser.click(r.callId(), "approve_once");
    browser.cardIn(r.callId(), "completed");
    assertThat(turn[0].get(20, TimeUnit.SECONDS).text()).isEqualTo("tool said: ran: echo again");
    assertThat(shell.ran).containsExactly("echo again");
  }
}
