package dev.toolcall.presentation;

import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TerminalRendererTest {
  static final String ESC = "\u001b";
  final Calls calls = new Calls();

  TerminalRenderer renderer(boolean ansi, Theme theme) {
    return TerminalRenderer.builder().presenter(calls.presenter(theme)).ansi(ansi).width(120).build();
  }

  /** A turn with a call in every state, nested calls, output with escape codes, a retry and a countdown. */
  List<ToolCallSnapshot> turn() {
    List<ToolCall> all = new ArrayList<>();
    ToolCall pending = calls.call("c-pending", "read_file", "a.txt");
    ToolCall asked = calls.call("c-asked", "shell", "rm -rf build");
    calls.ask(asked, Duration.ofSeconds(30));
    ToolCall approved = calls.call("c-approved", "shell", "make");
    calls.ask(approved, Duration.ofSeconds(30));
    approved.transition(PERMISSION_PENDING, PERMISSION_APPROVED, dev.toolcall.Reason.APPROVED_ONCE);
    ToolCall denied = calls.call("c-denied", "shell", "curl evil");
    calls.ask(denied, Duration.ofSeconds(30));
    denied.deny(DenialSource.USER, "not on my machine");
    ToolCall running = calls.call("c-running", "build", "mvn");
    calls.run(running);
    running.appendOutput("compiling\n" + ESC + "[31mred" + ESC + "[0m text\u0007\n", 1, 0);
    running.scheduleRetry(2, Duration.ofSeconds(2), "flaky network");
    ToolCall done = calls.call("c-done", "ls", ".");
    calls.run(done);
    done.complete("a.txt\nb.txt");
    ToolCall failed = calls.call("c-failed", "nope", "");
    calls.run(failed);
    failed.fail(FailureKind.UNKNOWN_TOOL, "No tool 'nope'. Did you mean 'ls'?");
    ToolCall cancelled = calls.call("c-cancelled", "sleep", "100");
    cancelled.cancel("user pressed Esc");
    ToolCall agent = calls.call("c-agent", "sub_agent", "find the bug");
    ToolCall child = calls.nested("c-child", "grep", "c-agent");
    calls.run(child);
    all.addAll(List.of(pending, asked, approved, denied, running, done, failed, cancelled, agent, child));
    calls.advance(Duration.ofMillis(10_500));
    return all.stream().map(ToolCall::snapshot).toList();
  }

  @Test
  void plainModeWritesNoEscapeCharacterEvenForToolOutputWithEscapes() {
    String frame = renderer(false, Theme.emoji()).renderFrame(turn());
    assertThat(frame).doesNotContain(ESC).doesNotContain("\u0007");
    assertThat(frame).contains("red text");
    String compact = renderer(false, Theme.compact()).renderFrame(turn());
    assertThat(compact).doesNotContain(ESC);
  }

  @Test
  void plainFrameShowsEveryCallWithIconLabelCountdownAttemptAndNesting() {
    List<String> lines = List.of(renderer(false, Theme.emoji()).renderFrame(turn()).split("\n"));
    assertThat(lines).contains(
        "⏳ read_file a.txt  Waiting for tool to start...  10s",
        "🔐 shell rm -rf build  Awaiting permission... auto-deny in 20s",
        "  │ rm -rf build",
        "🚫 shell curl evil  0ms",
        "  │ compiling",
        "  │ red text ",
        "✅ ls .  Done   0ms",
        "  │ a.txt",
        "  │ … 1 more lines",
        "❌ nope  0ms",
        "  │ Error (unknown_tool): No tool 'nope'. Did you mean 'ls'?",
        "⏹️ sleep 100  0ms",
        "  │ The tool call was cancelled: user pressed Esc.",
        "🔐 sub_agent find the bug  Waiting for tool to start...  10s".replace("🔐", "⏳"),
        "  ▶️ grep  Running...  10s");
    assertThat(lines).contains("▶️ build mvn  Running... attempt 2  10s", "✅ shell make  Approved, starting...  10s");
    assertThat(lines).as("denied hides its content").noneMatch(l -> l.contains("curl evil") && l.contains("│"));
    assertThat(lines.indexOf("  ▶️ grep  Running...  10s"))
        .isEqualTo(lines.indexOf("⏳ sub_agent find the bug  Waiting for tool to start...  10s") + 1);
  }

  @Test
  void ansiFrameColoursEachCallByItsToken() {
    String frame = renderer(true, Theme.compact()).renderFrame(turn());
    assertThat(frame).contains(ESC + "[" + TerminalRenderer.sgr(ColorToken.PAPRIKA) + "m")
        .contains(ESC + "[" + TerminalRenderer.sgr(ColorToken.RED) + "m✗" + ESC + "[0m")
        .contains(ESC + "[" + TerminalRenderer.sgr(ColorToken.ORANGE) + "m■" + ESC + "[0m")
        .contains("auto-deny in 20s");
    String stripped = frame.replaceAll(ESC + "\\[[0-9;]*m", "");
    assertThat(stripped).doesNotContain(ESC).contains("red text");
  }

  @Test
  void spinnerFramesMoveWithTimeInAnsiModeOnly() {
    ToolCall c = calls.call("c1", "build", "mvn");
    calls.run(c);
    TerminalRenderer ansi = renderer(true, Theme.compact());
    Presenter p = ansi.presenter();
    Set<String> frames = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      long now = calls.now() + i * 80_000_000L;
      frames.add(ansi.header(p.view(c.snapshot(), now, 0, false, null), now, false));
    }
    assertThat(frames).as("ten spinner frames").hasSize(10);
    TerminalRenderer plain = renderer(false, Theme.compact());
    Set<String> plainFrames = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      long now = calls.now() + i * 80_000_000L;
      plainFrames.add(plain.header(p.view(c.snapshot(), now, 0, false, null), now, false));
    }
    assertThat(plainFrames).containsExactly("⋯ build mvn  Running...");
  }

  @Test
  void aRetryShowsItsAttemptAndTheBackoffLeft() {
    ToolCall c = calls.call("c1", "flaky", "go");
    calls.run(c);
    c.scheduleRetry(2, Duration.ofSeconds(2), "connection\nreset");
    calls.advance(Duration.ofMillis(800));
    assertThat(renderer(false, Theme.compact()).renderFrame(List.of(c.snapshot())))
        .startsWith("⋯ flaky go  Running... attempt 2 · retry in 1.2s after: connection reset  800ms\n");
    calls.advance(Duration.ofSeconds(1));
    c.complete("ok");
    assertThat(renderer(false, Theme.compact()).renderFrame(List.of(c.snapshot())))
        .startsWith("✓ flaky go  Done  after 2 attempts  1.8s\n");
  }

  /** An even half blink period (500 ms) at or after {@code t}. */
  private static long evenHalf(long t) {
    long period = 1_000_000_000L;
    return t - Math.floorMod(t, period) + period;
  }

  @Test
  void theCompactRunningColourCyclesBetweenTheTwoGreensAsDrawn() {
    ToolCall c = calls.call("c1", "build", "mvn");
    calls.run(c);
    TerminalRenderer ansi = renderer(true, Theme.compact());
    Presenter p = ansi.presenter();
    long even = evenHalf(calls.now());
    long odd = even + 500_000_000L;
    String a = ansi.header(p.view(c.snapshot(), even, 0, false, null), even, false);
    String b = ansi.header(p.view(c.snapshot(), odd, 0, false, null), odd, false);
    assertThat(a).contains(ESC + "[38;5;28m").doesNotContain("38;5;40m"); // GREEN_DARK
    assertThat(b).contains(ESC + "[38;5;40m").doesNotContain("38;5;28m"); // GREEN
    assertThat(a).contains("Running...");
    TerminalRenderer emoji = renderer(true, Theme.emoji());
    assertThat(emoji.header(p.view(c.snapshot(), odd, 0, false, null), odd, false))
        .as("seed 01's running green does not cycle").doesNotContain("38;5;28m");
  }

  @Test
  void aCompletedCallShowsTheDoneBadgeInItsOwnColoursAndNoOtherFinalStateHasALabel() {
    ToolCall done = calls.call("c1", "ls", ".");
    calls.run(done);
    done.complete("x");
    TerminalRenderer ansi = renderer(true, Theme.compact());
    String header = ansi.header(ansi.presenter().view(done.snapshot()), calls.now(), false);
    assertThat(header).contains(ESC + "[38;5;250;48;5;237m Done " + ESC + "[0m");
    ToolCall failed = calls.call("c2", "nope", "");
    calls.run(failed);
    failed.fail(FailureKind.TOOL_ERROR, "boom");
    assertThat(renderer(false, Theme.compact()).header(ansi.presenter().view(failed.snapshot()), calls.now(), false))
        .isEqualTo("✗ nope");
  }

  @Test
  void waitingRequestsShowTheirPlaceInTheQueueOldestFirst() {
    ToolCall first = calls.call("c1", "shell", "make");
    calls.ask(first, Duration.ofSeconds(60));
    calls.advance(Duration.ofSeconds(1));
    ToolCall second = calls.call("c0", "deploy", "prod");
    calls.ask(second, Duration.ofSeconds(60));
    calls.advance(Duration.ofSeconds(1));
    ToolCall third = calls.call("c2", "rm", "x");
    calls.ask(third, Duration.ofSeconds(60));
    List<String> lines = List.of(renderer(false, Theme.compact()).renderFrame(
        List.of(third.snapshot(), first.snapshot(), second.snapshot())).split("\n"));
    assertThat(lines).filteredOn(l -> l.startsWith("⋯")).containsExactlyInAnyOrder(
        "⋯ shell make  Awaiting permission... auto-deny in 58s · 1 of 3 waiting",
        "⋯ deploy prod  Awaiting permission... auto-deny in 59s · 2 of 3 waiting",
        "⋯ rm x  Awaiting permission... auto-deny in 60s · 3 of 3 waiting");
    assertThat(calls.presenter(Theme.compact()).views(List.of(first.snapshot()))).singleElement()
        .satisfies(v -> assertThat(v.queuePosition()).contains(new ToolCallView.QueuePosition(1, 1)));
    assertThat(renderer(false, Theme.compact()).renderFrame(List.of(first.snapshot())))
        .as("a lone request shows no queue").doesNotContain(" · 1 of");
  }

  @Test
  void theDotBlinksBesideTheRunningLabelAndThePulseAlternatesBoldAndDim() {
    ToolCall running = calls.call("c1", "build", "mvn");
    calls.run(running);
    TerminalRenderer emoji = renderer(true, Theme.emoji());
    long even = evenHalf(calls.now());
    long odd = even + 500_000_000L;
    String on = emoji.header(emoji.presenter().view(running.snapshot(), even, 0, false, null), even, false);
    String off = emoji.header(emoji.presenter().view(running.snapshot(), odd, 0, false, null), odd, false);
    assertThat(on).contains(" •");
    assertThat(off).doesNotContain("•");

    ToolCall approved = calls.call("c2", "shell", "make");
    calls.ask(approved, Duration.ofSeconds(30));
    approved.transition(PERMISSION_PENDING, PERMISSION_APPROVED, dev.toolcall.Reason.APPROVED_ONCE);
    TerminalRenderer compact = renderer(true, Theme.compact());
    String bold = compact.header(compact.presenter().view(approved.snapshot(), even, 0, false, null), even, false);
    String dim = compact.header(compact.presenter().view(approved.snapshot(), odd, 0, false, null), odd, false);
    assertThat(bold).startsWith(ESC + "[38;5;40;1m⋯");
    assertThat(dim).startsWith(ESC + "[38;5;40;2m⋯");
    assertThat(renderer(false, Theme.emoji()).header(emoji.presenter().view(running.snapshot(), odd, 0, false,
        null), odd, false)).as("plain mode does not animate").contains("Running...").doesNotContain("•");
  }

  @Test
  void completedBlinksBrieflyThenStays() {
    ToolCall c = calls.call("c1", "ls", ".");
    calls.run(c);
    c.complete("x");
    TerminalRenderer ansi = renderer(true, Theme.compact());
    Presenter p = ansi.presenter();
    long t = calls.now();
    long half = 500_000_000L;
    long shown = t - Math.floorMod(t, 2 * half); // an even half period: icon shown
    assertThat(ansi.header(p.view(c.snapshot(), shown + half, 0, false, null), shown + half, false))
        .as("hidden in the odd half period while blinking").doesNotContain("✓");
    long later = shown + 10 * 2 * half + half; // odd half period, long after the blink window
    assertThat(ansi.header(p.view(c.snapshot(), later, 0, false, null), later, false)).contains("✓");
  }

  @Test
  void repaintMovesTheCursorUpByThePreviousFramesLineCountAndClearsEachLine() {
    TerminalRenderer ansi = renderer(true, Theme.emoji());
    String first = ansi.renderFrame(turn());
    int n = TerminalRenderer.lineCount(first);
    assertThat(n).isGreaterThan(10);
    assertThat(ansi.repaint(0, first)).doesNotContain(ESC + "[0A").startsWith("\r" + ESC + "[2K");
    String second = ansi.renderFrame(List.of(calls.call("x", "ls", "").snapshot()));
    String out = ansi.repaint(n, second);
    assertThat(out).startsWith("\r" + ESC + "[" + n + "A" + ESC + "[2K").endsWith("\n" + ESC + "[J");
    assertThat(out.split(ESC + "\\[2K", -1)).hasSize(TerminalRenderer.lineCount(second) + 1);

    TerminalRenderer plain = renderer(false, Theme.emoji());
    assertThat(plain.repaint(n, second)).isEqualTo(second);
    assertThatThrownBy(() -> ansi.repaint(-1, "")).hasMessageContaining("previousLineCount");
  }

  @Test
  void ansiLinesAreCutToTheWidthSoNoneWraps() {
    ToolCall c = calls.call("c1", "write", "x".repeat(500));
    calls.run(c);
    c.appendOutput("🚀".repeat(300) + "\n", 1, 0);
    TerminalRenderer ansi = TerminalRenderer.builder().presenter(calls.presenter(Theme.emoji())).ansi(true)
        .width(40).build();
    for (String line : ansi.renderFrame(List.of(c.snapshot())).split("\n")) {
      String visible = line.replaceAll(ESC + "\\[[0-9;]*m", "");
      assertThat(Text.width(visible)).as(visible).isLessThanOrEqualTo(39);
    }
  }

  @Test
  void aCallThatHidesItsContentHidesItsNestedCalls() {
    ToolCall parent = calls.call("p", "agent", "x");
    calls.ask(parent, Duration.ofSeconds(5));
    parent.deny(DenialSource.POLICY, "");
    ToolCall child = calls.nested("k", "ls", "p");
    String frame = renderer(false, Theme.compact()).renderFrame(List.of(parent.snapshot(), child.snapshot()));
    assertThat(frame).contains("⊘ agent x  0ms").contains("│ … 1 nested call hidden")
        .doesNotContain(" ls");
  }

  @Test
  void modeDetectionFromTerminalAndNoColor() {
    assertThat(TerminalRenderer.detectAnsi(true, Map.of())).isTrue();
    assertThat(TerminalRenderer.detectAnsi(false, Map.of())).isFalse();
    assertThat(TerminalRenderer.detectAnsi(true, Map.of("NO_COLOR", "1"))).isFalse();
    assertThat(TerminalRenderer.detectAnsi(true, Map.of("NO_COLOR", ""))).as("empty NO_COLOR is unset").isTrue();
    assertThat(TerminalRenderer.detectAnsi(true, Map.of("TERM", "dumb"))).isFalse();
    TerminalRenderer r = TerminalRenderer.builder().detect(true, Map.of("COLUMNS", "57")).build();
    assertThat(r.ansi()).isTrue();
    assertThat(r.width()).isEqualTo(57);
    assertThat(TerminalRenderer.builder().detect(false, Map.of()).build().ansi()).isFalse();
    assertThat(TerminalRenderer.builder().detect(true, Map.of("NO_COLOR", "yes")).build().ansi()).isFalse();
    assertThatThrownBy(() -> TerminalRenderer.builder().width(5)).hasMessageContaining("width");
  }

  @Test
  void onANarrowScreenTheArgumentsGiveWayToCountdownAndAttempt() {
    TerminalRenderer narrow = TerminalRenderer.builder().presenter(calls.presenter(Theme.compact())).ansi(true)
        .width(70).build();
    ToolCall asked = calls.call("c1", "deploy", "production --region eu-west-1 --canary 10% --wait-for-health");
    calls.ask(asked, Duration.ofSeconds(30));
    ToolCall retrying = calls.call("c2", "fetch_url", "https://ci.example.com/shop-service/builds/142/status");
    calls.run(retrying);
    retrying.scheduleRetry(2, Duration.ofSeconds(2), "connection reset");
    calls.advance(Duration.ofMillis(500));

    String frame = narrow.renderFrame(List.of(asked.snapshot(), retrying.snapshot()))
        .replaceAll(ESC + "\\[[0-9;]*m", "");
    List<String> headers = frame.lines().filter(l -> !l.contains("│")).toList();
    assertThat(headers.get(0)).contains("deploy production", "…", "Awaiting permission... auto-deny in 30s");
    assertThat(headers.get(1)).contains("fetch_url https://", "…", "attempt 2");
    assertThat(headers).allMatch(l -> Text.width(l) <= 69);
  }
}
