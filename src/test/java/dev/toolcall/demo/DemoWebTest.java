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
  static final Pattern URL = Pattern.compile("http://127\\.0\\.0\\.1:\\d+/approvals/#session=demo&token=[\\w-]+");

  /**
   * On a terminal the live display repaints in place many times a second: the page's address must stay on the
   * screen (a terminal of 80 by 24, emulated from what the demo writes) while the request waits, not be drawn over.
   */
  @Test
  void onATerminalTheUrlStaysOnTheScreenWhileTheRequestWaits() throws Exception {
    DemoRunTest.Transcript out = new DemoRunTest.Transcript();
    Demo.Io io = new Demo.Io(InputStream.nullInputStream(), out.printStream(), true, true, 80, 24);
    try (Browser browser = Browser.open()) {
      CompletableFuture<Demo.Run> run = CompletableFuture.supplyAsync(() -> {
        try {
          return Demo.run(Demo.Options.parse(DemoRunTest.args("--web")), io, () -> { });
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      String page = browser.until("the screen shows the page's URL", d -> {
        Matcher m = URL.matcher(Screen.of(out.text(), 80, 24));
        return m.find() ? m.group() : null;
      });
      browser.go(page);
      WebElement approve = browser.until("the shell request on the page", d -> d.findElements(By.cssSelector(
          ".call[data-state='permission_pending'] [data-action='approve_once']")).stream().findFirst().orElse(null));
      int repaints = repaints(out.text());
      browser.until("ten more repaints", d -> repaints(out.text()) >= repaints + 10);
      assertThat(Screen.of(out.text(), 80, 24)).as("the screen while the request waits").contains(page);
      approve.click();

      Demo.Run done = run.get(60, TimeUnit.SECONDS);
      assertThat(done.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    }
  }

  static int repaints(String text) {
    int n = 0;
    for (int i = text.indexOf("\u001b[J"); i >= 0; i = text.indexOf("\u001b[J", i + 1)) {
      n++;
    }
    return n;
  }

  /**
   * What a terminal of {@code columns} by {@code rows} shows after {@code text}: printable characters (wrapped at the
   * width), CR, LF, cursor up (never above the screen's top), erase line and erase below; other escapes are ignored.
   */
  static final class Screen {
    static String of(String text, int columns, int rows) {
      List<StringBuilder> lines = new java.util.ArrayList<>();
      lines.add(new StringBuilder());
      int row = 0;
      int col = 0;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '\u001b' && i + 1 < text.length() && text.charAt(i + 1) == '[') {
          int j = i + 2;
          while (j < text.length() && (text.charAt(j) < 0x40 || text.charAt(j) > 0x7e)) {
            j++;
          }
          String args = text.substring(i + 2, j);
          char f = j < text.length() ? text.charAt(j) : ' ';
          if (f == 'A') {
            int top = Math.max(0, lines.size() - rows);
            row = Math.max(top, row - (args.isEmpty() ? 1 : Integer.parseInt(args)));
          } else if (f == 'K') {
            lines.get(row).setLength(args.equals("2") ? 0 : Math.min(col, lines.get(row).length()));
          } else if (f == 'J') {
            lines.get(row).setLength(Math.min(col, lines.get(row).length()));
            while (lines.size() > row + 1) {
              lines.remove(lines.size() - 1);
            }
          }
          i = j;
          continue;
        }
        if (c == '\r') {
          col = 0;
        } else if (c == '\n') {
          row++;
          col = 0;
        } else {
          if (col >= columns) {
            row++;
            col = 0;
          }
          while (lines.size() <= row) {
            lines.add(new StringBuilder());
          }
          StringBuilder l = lines.get(row);
          while (l.length() < col) {
            l.append(' ');
          }
          if (col < l.length()) {
            l.setCharAt(col, c);
          } else {
            l.append(c);
          }
          col++;
        }
        while (lines.size() <= row) {
          lines.add(new StringBuilder());
        }
      }
      List<StringBuilder> shown = lines.subList(Math.max(0, lines.size() - rows), lines.size());
      return String.join("\n", shown);
    }
  }

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
