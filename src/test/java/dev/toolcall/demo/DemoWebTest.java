package dev.toolcall.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.agui.Browser;
import dev.toolcall.conversation.TurnResult;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/** The demo's {@code --web}: it prints the page's URL, and the shell approval is answered in a real browser. */
class DemoWebTest {

  @Test
  void theApprovalIsAnsweredInTheBrowser() throws Exception {
    DemoRunTest.Transcript out = new DemoRunTest.Transcript();
    Demo.Io io = new Demo.Io(InputStream.nullInputStream(), out.printStream(), false, false, 0, 0);
    try (Browser browser = Browser.open()) { // first: a browser slow to start must not outlast the request
      CompletableFuture<Demo.Run> run = CompletableFuture.supplyAsync(() -> {
        try {
          return Demo.run(Demo.Options.parse(DemoRunTest.args("--web")), io, () -> { });
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      Pattern url = Pattern.compile("Approvals are answered in the browser: (http://127\\.0\\.0\\.1:\\d+/approvals/\\S+)");
      String page = browser.until("the demo prints the page's URL", d -> {
        Matcher m = url.matcher(out.text());
        return m.find() ? m.group(1) : null;
      });
      browser.go(page);
      WebElement approve = browser.until("the shell request on the page", d -> d.findElements(By.cssSelector(
          ".call[data-state='permission_pending'] [data-action='approve_once']")).stream().findFirst().orElse(null));
      approve.click();

      Demo.Run done = run.get(60, TimeUnit.SECONDS);
      assertThat(done.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      List<ToolCallSnapshot> shell = done.calls().stream().filter(c -> c.toolName().equals("shell")).toList();
      assertThat(shell).isNotEmpty().allMatch(c -> c.state() == ToolCallState.COMPLETED);
      assertThat(done.calls()).filteredOn(c -> c.toolName().equals("deploy")).singleElement()
          .satisfies(c -> assertThat(((Outcome.Denied) c.outcome()).source()).isEqualTo(DenialSource.TIMEOUT));
    }
  }
}
