package dev.toolcall.presentation;

import dev.toolcall.testing.Logs;
import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.DenialSource;
import dev.toolcall.ToolCall;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The live display driven by an event bus and by snapshots. No sleeps: {@link LiveDisplay#refresh()} draws on the
 * display's thread and returns once drawn, after the events already handed to that thread.
 */
class LiveDisplayTest {
  static final String ESC = "\u001b";
  final Calls calls = new Calls();
  final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  TerminalRenderer renderer(boolean ansi) {
    return TerminalRenderer.builder().presenter(calls.presenter(Theme.compact())).ansi(ansi).width(100).build();
  }

  String output() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /**
   * A display that polls snapshots (no bus) after the call's history let go of earlier chunks: the lines come from
   * the tail, each once; what the tail no longer holds is reported, not silently lost.
   */
  @Test
  void plainLogOfPolledSnapshotsRecoversOutputTheHistoryLetGoFromTheTail() throws Exception {
    LiveDisplay live = renderer(false).live(out, Duration.ofMillis(20));
    ToolCall read = calls.call("c1", "read_file", "a.txt");
    calls.run(read);
    read.appendOutput("one\n", 1, 0);
    live.track(read.snapshot());
    live.refresh();
    read.appendOutput("two\n", 2, 0);
    read.appendOutput("three\n", 3, 0); // "two" is let go from the history before the display sees it
    live.track(read.snapshot());
    live.refresh();
    read.appendOutput("x".repeat(5_000) + "\n", 4, 0);
    read.appendOutput("last\n", 5, 0);
    live.track(read.snapshot());
    live.close();

    List<String> body = output().lines().filter(l -> l.contains("│")).toList();
    assertThat(body).startsWith("  │ one", "  │ two", "  │ three");
    assertThat(body).contains("  │ last");
    assertThat(body).anyMatch(l -> l.contains("chars of output not shown"));
    assertThat(body.stream().filter(l -> l.equals("  │ two")).count()).as("each line once").isEqualTo(1);
  }

  @Test
  void plainLogFromABusWritesEveryChangeOnceInOrderWithoutEscapes() throws Exception {
    LiveDisplay live = renderer(false).live(out, Duration.ofMillis(20)).attach(calls.bus);
    ToolCall read = calls.call("c1", "read_file", "a.txt");
    ToolCall shell = calls.call("c2", "shell", "rm -rf /");
    calls.run(read);
    read.appendOutput("line 1\nline ", 1, 0);
    live.refresh();
    read.appendOutput("2" + ESC + "[2J\n", 2, 0);
    read.complete("2 lines");
    calls.ask(shell, Duration.ofSeconds(30));
    calls.advance(Duration.ofSeconds(30));
    shell.deny(DenialSource.TIMEOUT, "");
    live.close();

    assertThat(live.thread().isAlive()).as("the display's thread has ended").isFalse();
    String log = output();
    assertThat(log).doesNotContain(ESC);
    List<String> c1 = log.lines().filter(l -> l.contains("read_file") || l.contains("│")).toList();
    assertThat(c1).containsSubsequence(
        "⋯ read_file a.txt  Waiting for tool to start...",
        "⋯ read_file a.txt  Running...",
        "  │ line 1",
        "  │ line 2",
        "✓ read_file a.txt  Done   0ms",
        "  │ 2 lines");
    assertThat(log.lines().filter(l -> l.contains("shell")).toList()).containsExactly(
        "⋯ shell rm -rf /  Waiting for tool to start...",
        "⋯ shell rm -rf /  Awaiting permission... auto-deny in 30s",
        "⊘ shell rm -rf /  30s");
    assertThat(log.lines().filter(l -> l.contains("line 1")).count()).as("each line once").isEqualTo(1);
    assertThat(calls.bus.subscriberCount()).as("unsubscribed on close").isZero();
  }

  @Test
  void ansiRepaintsInPlaceMovingUpByThePreviousFramesLineCount() {
    LiveDisplay live = renderer(true).live(out, Duration.ofMillis(20));
    ToolCall a = calls.call("c1", "read_file", "a.txt");
    ToolCall b = calls.call("c2", "shell", "make");
    live.track(a.snapshot());
    live.refresh();
    live.track(b.snapshot());
    calls.run(a);
    a.appendOutput("one\ntwo\n", 1, 0);
    live.track(a.snapshot());
    live.refresh();
    a.complete("ok");
    b.cancel("esc");
    live.track(a.snapshot());
    live.track(b.snapshot());
    live.close();
    assertThat(live.thread().isAlive()).isFalse();

    String[] writes = output().split("\r", -1);
    assertThat(writes[0]).isEmpty();
    int previous = 0;
    int frames = 0;
    for (int i = 1; i < writes.length; i++) {
      String w = writes[i];
      if (previous > 0) {
        assertThat(w).as("write %s moves up over the previous frame", i).startsWith(ESC + "[" + previous + "A");
      } else {
        assertThat(w).startsWith(ESC + "[2K");
      }
      assertThat(w).endsWith(ESC + "[J");
      previous = count(w, ESC + "[2K");
      frames++;
    }
    assertThat(frames).isGreaterThanOrEqualTo(3);
    assertThat(previous).as("last frame: two finished calls, a line of content each").isEqualTo(4);
    String last = writes[writes.length - 1];
    assertThat(last).contains("✓").contains("■").contains("shell").contains("The tool call was cancelled: esc.");
  }

  @Test
  void pauseFreezesAndResumeDrawsAFreshRegionBelow() {
    LiveDisplay live = renderer(true).live(out, Duration.ofMillis(20));
    ToolCall a = calls.call("c1", "read_file", "a.txt");
    live.track(a.snapshot());
    live.pause();
    int before = output().length();
    calls.run(a);
    live.track(a.snapshot());
    live.refresh();
    assertThat(output().length()).as("nothing drawn while paused").isEqualTo(before);
    out.print("Approve? [y/n] y\n");
    live.resume();
    String after = output().substring(before + "Approve? [y/n] y\n".length());
    assertThat(after).startsWith("\r" + ESC + "[2K").doesNotContain(ESC + "[1A").contains("Running...");
    live.printAbove("note");
    assertThat(output()).contains("\r" + ESC + "[1A" + ESC + "[Jnote\n");
    live.close();
  }

  @Test
  void closeIsIdempotentAndLaterInputIsIgnored() {
    LiveDisplay live = renderer(false).live(out);
    ToolCall a = calls.call("c1", "ls", ".");
    live.track(a.snapshot());
    live.close();
    live.close();
    assertThat(live.isClosed()).isTrue();
    assertThat(live.thread().isAlive()).isFalse();
    int len = output().length();
    calls.run(a);
    live.track(a.snapshot());
    live.refresh();
    live.printAbove("ignored");
    assertThat(output().length()).isEqualTo(len);
    assertThat(live.snapshots()).extracting(s -> s.state()).containsExactly(PENDING);
    assertThatThrownBy(() -> live.attach(calls.bus)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> renderer(false).live(out, Duration.ofMillis(1))).hasMessageContaining("refresh");
  }

  @Test
  void theFooterIsRepaintedInPlaceWithTheListSanitisedAndLeftOutOfTheLastFrame() {
    List<String> footer = new CopyOnWriteArrayList<>(List.of("⠋ executing tools"));
    LiveDisplay live = renderer(true).live(out, Duration.ofSeconds(1)).footer(() -> List.copyOf(footer));
    ToolCall a = calls.call("c1", "read_file", "a.txt");
    live.track(a.snapshot());
    live.refresh();
    footer.set(0, "Allow shell?");
    footer.add("⠙ awaiting" + ESC + "[2J approval");
    live.refresh();
    live.close();

    String[] writes = unstyled(output()).split("\r", -1);
    assertThat(writes).hasSize(4);
    assertThat(writes[1]).startsWith(ESC + "[2K").contains("read_file a.txt", "⠋ executing tools");
    assertThat(count(writes[1], ESC + "[2K")).isEqualTo(2);
    assertThat(writes[2]).as("moves up over list and footer").startsWith(ESC + "[2A")
        .contains("read_file a.txt", "Allow shell?", "⠙ awaiting approval");
    assertThat(count(writes[2], ESC + "[2K")).isEqualTo(3);
    assertThat(writes[3]).as("the last frame: the list only").startsWith(ESC + "[3A").contains("read_file a.txt")
        .doesNotContain("Allow shell?").doesNotContain("awaiting");
    assertThat(count(writes[3], ESC + "[2K")).isEqualTo(1);
    assertThat(output()).doesNotContain(ESC + "[2J");
  }

  @Test
  void aHeightKeepsTheLiveRegionOnTheScreenAndTheLastFrameIsWhole() {
    TerminalRenderer r = TerminalRenderer.builder().presenter(calls.presenter(Theme.compact())).ansi(true)
        .width(100).height(5).build();
    LiveDisplay live = r.live(out, Duration.ofSeconds(1)).footer(() -> List.of("status"));
    for (int i = 1; i <= 6; i++) {
      live.track(calls.call("c" + i, "ls", "d" + i).snapshot());
      calls.advance(Duration.ofMillis(1)); // creation order decides the list's order
    }
    live.refresh();
    String live1 = unstyled(output());
    live.close();
    String last = unstyled(output()).substring(live1.length());

    assertThat(count(live1, ESC + "[2K")).as("one row fewer than the screen").isEqualTo(4);
    assertThat(live1).contains("… 4 lines above", "ls d5", "ls d6", "status").doesNotContain("ls d4");
    assertThat(last).startsWith("\r" + ESC + "[4A").contains("ls d1", "ls d6").doesNotContain("status")
        .doesNotContain("above");
    assertThat(count(last, ESC + "[2K")).isEqualTo(6);
    assertThatThrownBy(() -> TerminalRenderer.builder().height(2)).hasMessageContaining("height");
  }

  @Test
  void aFooterTallerThanTheScreenKeepsItsLastLines() {
    TerminalRenderer r = TerminalRenderer.builder().presenter(calls.presenter(Theme.compact())).ansi(true)
        .width(100).height(3).build();
    LiveDisplay live = r.live(out, Duration.ofSeconds(1)).footer(() -> List.of("one", "two", "three"));
    live.track(calls.call("c1", "ls", "d").snapshot());
    live.refresh();
    String frame = unstyled(output());
    live.close();
    assertThat(count(frame, ESC + "[2K")).isEqualTo(2);
    assertThat(frame).contains("two", "three").doesNotContain("one").doesNotContain("ls d");
  }

  @Test
  void plainModeIgnoresTheFooterAndAFailingFooterIsLeftOut() {
    Logs.expect(LiveDisplay.class); // the failing footer is logged
    LiveDisplay plain = renderer(false).live(out, Duration.ofSeconds(1)).footer(() -> List.of("status"));
    plain.track(calls.call("c1", "ls", "d").snapshot());
    plain.close();
    assertThat(output()).contains("ls d").doesNotContain("status");

    bytes.reset();
    LiveDisplay ansi = renderer(true).live(out, Duration.ofSeconds(1)).footer(() -> {
      throw new IllegalStateException("a broken footer");
    });
    ansi.track(calls.call("c2", "ls", "e").snapshot());
    ansi.refresh();
    ansi.close();
    assertThat(unstyled(output())).contains("ls e");
    assertThatThrownBy(() -> ansi.footer(null)).isInstanceOf(NullPointerException.class);
  }

  /** {@code s} without its colour codes (SGR), the cursor moves kept. */
  private static String unstyled(String s) {
    return s.replaceAll(ESC + "\\[[0-9;]*m", "");
  }

  private static int count(String s, String sub) {
    Matcher m = Pattern.compile(Pattern.quote(sub)).matcher(s);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
