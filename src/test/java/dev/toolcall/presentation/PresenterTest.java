package dev.toolcall.presentation;

import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PresenterTest {
  final Calls calls = new Calls();
  final Presenter presenter = calls.presenter(Theme.emoji());

  @Test
  void styleFollowsTheDisplayedStateOfTheTheme() {
    ToolCall c = calls.call("c1", "shell", "ls");
    calls.run(c);
    ToolCallView v = presenter.view(c.snapshot());
    assertThat(v.displayState()).isEqualTo(RUNNING);
    assertThat(v.icon()).isEqualTo("▶️");
    assertThat(v.color()).isEqualTo(ColorToken.GREEN);
    assertThat(v.animation()).isEqualTo(Animation.DOT_BLINK);
    assertThat(v.label()).isEqualTo("Running...");
    assertThat(calls.presenter(Theme.compact()).view(c.snapshot()).animation()).isEqualTo(Animation.SPINNER);
    assertThat(v.showContent()).isTrue();
    assertThat(v.isTerminal()).isFalse();
  }

  @Test
  void countdownRemainingFollowsTheTickerAndStopsAtZero() {
    ToolCall c = calls.call("c1", "shell", "rm -rf build");
    calls.ask(c, Duration.ofSeconds(30));
    ToolCallView.Countdown cd = presenter.view(c.snapshot()).countdown().orElseThrow();
    assertThat(cd.remaining()).isEqualTo(Duration.ofSeconds(30));
    assertThat(cd.total()).isEqualTo(Duration.ofSeconds(30));
    assertThat(cd.deadline()).isEqualTo(Calls.T0.plusSeconds(30));
    assertThat(cd.remainingSeconds()).isEqualTo(30);

    calls.advance(Duration.ofMillis(10_200));
    cd = presenter.view(c.snapshot()).countdown().orElseThrow();
    assertThat(cd.remaining()).isEqualTo(Duration.ofMillis(19_800));
    assertThat(cd.remainingSeconds()).as("rounded up").isEqualTo(20);
    assertThat(cd.expired()).isFalse();

    calls.advance(Duration.ofSeconds(25));
    cd = presenter.view(c.snapshot()).countdown().orElseThrow();
    assertThat(cd.remaining()).as("zero floor").isEqualTo(Duration.ZERO);
    assertThat(cd.remainingSeconds()).isZero();
    assertThat(cd.expired()).isTrue();

    c.deny(DenialSource.TIMEOUT, "");
    ToolCallView denied = presenter.view(c.snapshot());
    assertThat(denied.countdown()).isEmpty();
    assertThat(denied.showContent()).isFalse();
    assertThat(denied.error()).hasValueSatisfying(e -> assertThat(e).contains("nobody answered"));
  }

  @Test
  void aReAskAfterEditedArgumentsRestartsTheCountdownAndARequestWithoutDeadlineHasNone() {
    ToolCall c = calls.call("c1", "shell", "rm -rf build");
    c.transition(PENDING, PERMISSION_PENDING, Reason.PERMISSION_REQUIRED);
    assertThat(presenter.view(c.snapshot()).countdown()).isEmpty();

    ToolCall d = calls.call("c2", "shell", "rm -rf build");
    calls.ask(d, Duration.ofSeconds(30));
    calls.advance(Duration.ofSeconds(20));
    d.modifyArguments(PERMISSION_PENDING, dev.toolcall.ToolArguments.ofText("rm -rf build/tmp"), "user");
    assertThat(presenter.view(d.snapshot()).countdown().orElseThrow().remaining())
        .as("the edit alone keeps the deadline").isEqualTo(Duration.ofSeconds(10));
    assertThat(presenter.view(d.snapshot()).argumentsPreview()).isEqualTo("rm -rf build/tmp");
  }

  @Test
  void attemptAndRetryBackoffOfARetryingCall() {
    ToolCall c = calls.call("c1", "flaky", "go");
    calls.run(c);
    assertThat(presenter.view(c.snapshot()).attempt()).isEqualTo(1);
    assertThat(presenter.view(c.snapshot()).retry()).isEmpty();

    calls.advance(Duration.ofMillis(300));
    c.scheduleRetry(2, Duration.ofSeconds(2), "connection reset");
    calls.advance(Duration.ofMillis(500));
    ToolCallView v = presenter.view(c.snapshot());
    assertThat(v.attempt()).isEqualTo(2);
    ToolCallView.Retry r = v.retry().orElseThrow();
    assertThat(r.attempt()).isEqualTo(2);
    assertThat(r.delay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(r.remaining()).isEqualTo(Duration.ofMillis(1500));
    assertThat(r.failure()).isEqualTo("connection reset");
    assertThat(r.waiting()).isTrue();

    calls.advance(Duration.ofSeconds(5));
    assertThat(presenter.view(c.snapshot()).retry().orElseThrow().remaining()).isZero();
    c.complete("ok");
    ToolCallView done = presenter.view(c.snapshot());
    assertThat(done.retry()).isEmpty();
    assertThat(done.attempt()).isEqualTo(2);
  }

  @Test
  void outputTailKeepsTheLastLinesAcrossChunksAndCountsDrops() {
    ToolCall c = calls.call("c1", "build", "make");
    calls.run(c);
    c.appendOutput("one\ntwo\nth", 1, 0);
    c.appendOutput("ree\nfour\n", 2, 3);
    c.appendOutput("progress 10%\rprogress 90%", 3, 1);
    ToolCallView v = presenter.view(c.snapshot());
    assertThat(v.outputTail()).containsExactly("three", "four", "progress 90%");
    assertThat(v.outputDropped()).isEqualTo(4);

    Presenter none = Presenter.builder().ticker(calls.ticks::get).outputTailLines(0).build();
    assertThat(none.view(c.snapshot()).outputTail()).isEmpty();
    assertThat(none.view(c.snapshot()).outputDropped()).isEqualTo(4);
  }

  @Test
  void durationsPerStateFromTheHistory() {
    ToolCall c = calls.call("c1", "shell", "ls");
    calls.advance(Duration.ofMillis(5));
    calls.ask(c, Duration.ofSeconds(60));
    calls.advance(Duration.ofSeconds(4));
    c.transition(PERMISSION_PENDING, PERMISSION_APPROVED, Reason.APPROVED_ONCE);
    calls.advance(Duration.ofMillis(1));
    calls.run(c);
    calls.advance(Duration.ofMillis(1200));
    ToolCallView running = presenter.view(c.snapshot());
    assertThat(running.durations()).containsExactly(
        new ToolCallView.StateDuration(PENDING, Duration.ofMillis(5), false),
        new ToolCallView.StateDuration(PERMISSION_PENDING, Duration.ofSeconds(4), false),
        new ToolCallView.StateDuration(PERMISSION_APPROVED, Duration.ofMillis(1), false),
        new ToolCallView.StateDuration(RUNNING, Duration.ofMillis(1200), true));
    assertThat(running.elapsed()).isEqualTo(Duration.ofMillis(5206));
    assertThat(running.timeInState()).isEqualTo(Duration.ofMillis(1200));

    c.complete("file.txt\nother.txt");
    calls.advance(Duration.ofSeconds(9));
    ToolCallView done = presenter.view(c.snapshot());
    assertThat(done.durations()).hasSize(4).last()
        .isEqualTo(new ToolCallView.StateDuration(RUNNING, Duration.ofMillis(1200), false));
    assertThat(done.elapsed()).as("ends at the terminal transition").isEqualTo(Duration.ofMillis(5206));
    assertThat(done.result()).hasValue("file.txt\nother.txt");
    assertThat(done.error()).isEmpty();

    assertThat(done.copyText()).isEqualTo("""
        Tool: shell
        Call: c1
        Arguments: ls
        State: completed (Done)
        Result:
        file.txt
        other.txt
        Durations: pending 5ms, permission_pending 4.0s, permission_approved 1ms, running 1.2s; total 5.2s
        """);
  }

  @Test
  void copyTextOfAFailedRetriedNestedCall() {
    ToolCall parent = calls.call("p", "agent", "find bugs");
    ToolCall c = calls.nested("c1", "grep", "p");
    calls.run(c);
    c.scheduleRetry(2, Duration.ZERO, "io");
    calls.advance(Duration.ofMillis(40));
    c.fail(FailureKind.TOOL_ERROR, "pattern is empty");
    ToolCallView v = presenter.views(List.of(parent.snapshot(), c.snapshot())).get(1);
    assertThat(v.copyText()).isEqualTo("""
        Tool: grep
        Call: c1
        Parent: p
        Arguments: {}
        State: failed
        Attempts: 2
        Error: Error (tool_error): pattern is empty
        Durations: pending 0ms, running 40ms; total 40ms
        """);
    assertThat(v.copyText()).doesNotContain("\u001b");
  }

  @Test
  void anArrivedResultOverridesTheStateInTheView() {
    ToolCall c = calls.call("c1", "shell", "ls");
    calls.run(c);
    ToolCallView v = presenter.views(CallTree.of(List.of(c.snapshot())), calls.now(),
        Map.of("c1", new Outcome.Failed(FailureKind.TOOL_ERROR, "exit 2"))).get(0);
    assertThat(v.state()).isEqualTo(RUNNING);
    assertThat(v.displayState()).isEqualTo(FAILED);
    assertThat(v.icon()).isEqualTo("❌");
    assertThat(v.error()).hasValue("Error (tool_error): exit 2");
  }

  @Test
  void visibilityWithNestingComesFromTheTree() {
    ToolCall parent = calls.call("p", "agent", "task");
    calls.advance(Duration.ofMillis(1));
    ToolCall child = calls.nested("k", "read", "p");
    calls.advance(Duration.ofMillis(1));
    ToolCall alone = calls.call("a", "read", "x");
    List<ToolCallView> views = presenter.views(List.of(child.snapshot(), alone.snapshot(), parent.snapshot()));
    assertThat(views).extracting(ToolCallView::callId).containsExactly("p", "k", "a");
    ToolCallView p = views.get(0);
    ToolCallView k = views.get(1);
    ToolCallView a = views.get(2);
    assertThat(p.hasNested()).isTrue();
    assertThat(p.isNested()).isFalse();
    assertThat(p.showContent()).as("pending parent shows its nested calls").isTrue();
    assertThat(k.isNested()).isTrue();
    assertThat(k.depth()).isEqualTo(1);
    assertThat(k.parentCallId()).hasValue("p");
    assertThat(k.showContent()).as("pending nested call").isFalse();
    assertThat(a.showContent()).as("pending lone call").isFalse();
  }

  @Test
  void argumentsPreviewIsOneLineAndCut() {
    ToolCall c = calls.call("c1", "write", "line one\n\n   line   two " + "x".repeat(200));
    Presenter p = Presenter.builder().ticker(calls.ticks::get).argumentsPreviewLength(20).build();
    ToolCallView v = p.view(c.snapshot());
    assertThat(v.argumentsPreview()).isEqualTo("line one line two x…").hasSize(20);
    assertThat(v.arguments()).startsWith("line one\n\n");
  }

  @Test
  void badSettingsAreRefusedNamingTheParameter() {
    assertThatThrownBy(() -> Presenter.builder().outputTailLines(-1)).hasMessageContaining("outputTailLines");
    assertThatThrownBy(() -> Presenter.builder().argumentsPreviewLength(3))
        .hasMessageContaining("argumentsPreviewLength");
    assertThatThrownBy(() -> Presenter.builder().theme(null)).hasMessageContaining("theme");
    ToolCallSnapshot s = calls.call("c", "t", "a").snapshot();
    assertThatThrownBy(() -> presenter.view(s, 0, -1, false, null)).hasMessageContaining("depth");
  }
}
