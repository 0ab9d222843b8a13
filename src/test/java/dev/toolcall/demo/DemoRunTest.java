package dev.toolcall.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Change;
import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.StateTransition;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.TurnResult;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Runs the terminal demo end to end, a whole agent turn on {@code Agent}: unattended ({@code --auto}), with
 * keystrokes fed through its input as a person would type them (approve, edit, deny with a reason, Esc to cancel),
 * and once with the terminal drawing on. The pace is fast; what is checked is the order of things, never how long
 * they took.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DemoRunTest {

  static final String[] FAST = {"--pace", "0.05", "--deploy-timeout-ms", "400"};
  static final String ESC = "\u001b";

  static String[] args(String... more) {
    String[] all = new String[FAST.length + more.length];
    System.arraycopy(FAST, 0, all, 0, FAST.length);
    System.arraycopy(more, 0, all, FAST.length, more.length);
    return all;
  }

  static Map<String, ToolCallSnapshot> byId(Demo.Run run) {
    return run.calls().stream().collect(Collectors.toMap(ToolCallSnapshot::callId, Function.identity()));
  }

  static List<ToolCallState> states(ToolCallSnapshot s) {
    List<ToolCallState> out = new java.util.ArrayList<>();
    for (StateTransition t : s.history()) {
      out.add(t.from());
    }
    out.add(s.state());
    return out;
  }

  @Test
  void autoModeRunsTheWholeTurnAndReachesEveryExpectedState() throws Exception {
    Transcript out = new Transcript();
    Demo.Run run = Demo.run(args("--auto"), InputStream.nullInputStream(), out.printStream());
    Map<String, ToolCallSnapshot> calls = byId(run);

    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(run.calls()).hasSize(9).allMatch(ToolCallSnapshot::isTerminal);
    assertThat(calls.keySet()).containsExactlyInAnyOrder("call_1", "call_2", "call_3", "call_4", "call_5", "call_6",
        "call_7", "call_7.1", "call_7.2");
    // parallel read-only calls
    assertThat(states(calls.get("call_1"))).containsExactly(ToolCallState.PENDING, ToolCallState.RUNNING,
        ToolCallState.COMPLETED);
    assertThat(states(calls.get("call_2"))).containsExactly(ToolCallState.PENDING, ToolCallState.RUNNING,
        ToolCallState.COMPLETED);
    // retried: two transient failures, then success, all within RUNNING
    ToolCallSnapshot flaky = calls.get("call_3");
    assertThat(flaky.state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(flaky.attempt()).isEqualTo(3);
    assertThat(flaky.versions().stream().filter(v -> v.change() instanceof Change.RetryScheduled)).hasSize(2);
    // did you mean
    ToolCallSnapshot typo = calls.get("call_4");
    assertThat(typo.toolName()).isEqualTo("reed_file");
    assertThat(states(typo)).containsExactly(ToolCallState.PENDING, ToolCallState.RUNNING, ToolCallState.FAILED);
    assertThat(typo.outcome().messageForModel()).contains("Did you mean read_file?");
    // approved by the script at the prompt
    assertThat(states(calls.get("call_5"))).containsExactly(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING,
        ToolCallState.PERMISSION_APPROVED, ToolCallState.RUNNING, ToolCallState.COMPLETED);
    // denied by timeout
    ToolCallSnapshot deploy = calls.get("call_6");
    assertThat(states(deploy)).containsExactly(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING,
        ToolCallState.PERMISSION_DENIED);
    assertThat(deploy.outcome()).isInstanceOfSatisfying(Outcome.Denied.class,
        d -> assertThat(d.source()).isEqualTo(DenialSource.TIMEOUT));
    // nested
    for (String id : List.of("call_7.1", "call_7.2")) {
      assertThat(calls.get(id).identity().parentCallId()).isEqualTo("call_7");
      assertThat(calls.get(id).state()).isEqualTo(ToolCallState.COMPLETED);
    }
    assertThat(run.calls().stream().map(ToolCallSnapshot::callId)).as("tree order: nested calls under their parent")
        .containsSubsequence("call_7", "call_7.1", "call_7.2");
    assertThat(calls.get("call_7").outcome().messageForModel()).contains("sleeps 100 ms");
    // the final answer is the model's, from what happened
    assertThat(run.turn().text()).contains("Tests: they pass here (`mvn test`)",
        "Deploy: not done: nobody answered the permission request in time", "Cause: createsOrder sleeps 100 ms");

    String text = out.text();
    assertThat(text).doesNotContain(ESC);
    assertThat(text).containsSubsequence("you ▸ CI is red", "model ▸ I'll read the README",
        "· conversation: executing_tools", "· conversation: transient_failure (a tool call waits to retry, retry 1)",
        "Allow shell?  [o]nce  [s]ession  [a]lways  [e]dit  [d]eny", "✔ shell: approved once",
        "deploy asks for approval",
        "model ▸ Here is where things stand:", "Timeline", "call_7.1 read_file",
        "9 calls, every one in a terminal state: 7 completed, 2 not");
    // deploy's request opens while the model still streams (calls are created and authorized as announced), so
    // the conversation's awaiting_tool_approval line comes after the request, not before it
    assertThat(text).contains("· conversation: awaiting_tool_approval");
    assertThat(text).contains("· conversation: awaiting_llm_response", "· conversation: generating_response",
        "Done  after 3 attempts", "└ Error (unknown_tool): Unknown tool 'reed_file'. Did you mean read_file?",
        "pending", "permission_pending", "permission_denied");
  }

  @Test
  void withMcpTheServersToolsJoinTheTurnInTheSameTimeline() throws Exception {
    Transcript out = new Transcript();
    Demo.Run run = Demo.run(args("--auto", "--mcp"), InputStream.nullInputStream(), out.printStream());
    Map<String, ToolCallSnapshot> calls = byId(run);

    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(run.calls()).hasSize(11).allMatch(ToolCallSnapshot::isTerminal);
    ToolCallSnapshot log = calls.get("call_m1");
    assertThat(log.toolName()).isEqualTo("repo.git_log"); // the model called the alias repo_git_log
    assertThat(log.outcome().messageForModel()).contains("a1f3c2e Make OrderService validate totals");
    assertThat(log.versions().stream().filter(v -> v.change() instanceof Change.OutputAppended)
        .map(v -> ((Change.OutputAppended) v.change()).tail()).reduce((a, b) -> b)) // the history keeps the tail
        .hasValue("[1/3] reading refs\n[2/3] walking history\n[3/3] formatting\n");
    Outcome.Completed chart = (Outcome.Completed) calls.get("call_m2").outcome();
    assertThat(chart.content()).isEqualTo("7 of the last 10 builds passed; the last 3 failed.\n"
        + "[image: image/png, 47.1 KB]");
    assertThat(out.text()).contains("call_m1 repo.git_log", "call_m2 repo.ci_chart",
        "11 calls, every one in a terminal state: 9 completed, 2 not");
  }

  @ParameterizedTest(name = "[{0}] {1}")
  @CsvSource({"o, approved once", "s, approved for this session", "a, approved always (a grant is stored)"})
  void approvingAtThePromptRunsTheShellCommand(String key, String note) throws Exception {
    Transcript out = new Transcript();
    Demo.Run run = Demo.run(FAST, input(key + "\n"), out.printStream());

    ToolCallSnapshot shell = byId(run).get("call_5");
    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(run.calls()).allMatch(ToolCallSnapshot::isTerminal);
    assertThat(states(shell)).contains(ToolCallState.PERMISSION_APPROVED).endsWith(ToolCallState.COMPLETED);
    assertThat(out.text()).contains("✔ shell: " + note).doesNotContain(ESC);
  }

  @Test
  void editingTheCommandRunsTheEditedOneAndTheModelSeesIt() throws Exception {
    Transcript out = new Transcript();
    Demo.Run run = Demo.run(FAST, input("e\nmvn -q test -Dtest=OrderServiceTest\n"), out.printStream());

    ToolCallSnapshot shell = byId(run).get("call_5");
    assertThat(shell.state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(shell.arguments().raw()).isEqualTo("{\"command\":\"mvn -q test -Dtest=OrderServiceTest\"}");
    // the model's streamed arguments are ArgumentsModified by "model (streaming)" / "model"; the person edited once
    assertThat(shell.versions().stream()
        .filter(v -> v.change() instanceof Change.ArgumentsModified m && m.by().equals("user"))).hasSize(1);
    assertThat(shell.outcome().messageForModel()).startsWith("$ mvn -q test -Dtest=OrderServiceTest");
    assertThat(out.text()).containsSubsequence("New command", "✔ shell: approved with the command edited to: "
        + "mvn -q test -Dtest=OrderServiceTest");
    assertThat(run.turn().text()).contains("Tests: they pass here (`mvn -q test -Dtest=OrderServiceTest`)");
  }

  @Test
  void anEmptyEditGoesBackToTheChoiceAndBackspaceErases() throws Exception {
    Demo.Run run = Demo.run(FAST, input("e\n\ne\nls -lx\u007f\n"), new Transcript().printStream());

    assertThat(byId(run).get("call_5").arguments().raw()).isEqualTo("{\"command\":\"ls -l\"}");
  }

  @Test
  void denyingWithAReasonTellsTheModel() throws Exception {
    Transcript out = new Transcript();
    Demo.Run run = Demo.run(FAST, input("d\nnot now, CI is busy\n"), out.printStream());

    ToolCallSnapshot shell = byId(run).get("call_5");
    assertThat(states(shell)).containsExactly(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING,
        ToolCallState.PERMISSION_DENIED);
    assertThat(shell.outcome()).isEqualTo(new Outcome.Denied(DenialSource.USER, "not now, CI is busy"));
    assertThat(run.calls()).hasSize(9).allMatch(ToolCallSnapshot::isTerminal);
    assertThat(run.turn().text()).contains("Tests: not run: you denied it, saying \"not now, CI is busy\".");
    assertThat(out.text()).contains("✔ shell: denied, reason for the model: not now, CI is busy")
        .doesNotContain(ESC);
  }

  @Test
  void arrowKeysAtThePromptAreNotEsc() throws Exception {
    Demo.Run run = Demo.run(FAST, input(ESC + "[A" + ESC + "[B" + ESC + "OPo\n"), new Transcript().printStream());

    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(byId(run).get("call_5").state()).isEqualTo(ToolCallState.COMPLETED);
  }

  @Test
  void whenTheInputEndsThePromptIsDenied() throws Exception {
    Demo.Run run = Demo.run(FAST, InputStream.nullInputStream(), new Transcript().printStream());

    assertThat(byId(run).get("call_5").outcome()).isEqualTo(new Outcome.Denied(DenialSource.USER,
        "nobody is at the keyboard (the input ended)"));
    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
  }

  @Test
  void escAtThePromptCancelsTheTurnAndEveryCallStillEndsAndTheTimelinePrints() throws Exception {
    Transcript out = new Transcript();
    InputStream typing = out.typeWhenShown("Allow shell", ESC);
    Demo.Run run = Demo.run(FAST, typing, out.printStream());

    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(run.calls()).hasSize(5).allMatch(ToolCallSnapshot::isTerminal);
    assertThat(states(byId(run).get("call_5"))).containsExactly(ToolCallState.PENDING,
        ToolCallState.PERMISSION_PENDING, ToolCallState.CANCELLED);
    assertThat(out.text()).containsSubsequence("Allow shell", "· Esc: cancelling the turn",
        "Turn ended ABORTED (Esc)", "Timeline", "call_5 shell", "cancelled",
        "5 calls, every one in a terminal state");
  }

  @Test
  void escWhileTheSubAgentRunsCancelsItsNestedCallsToo() throws Exception {
    Transcript out = new Transcript();
    InputStream typing = out.typeWhenShown("read_file {\"path\":\"src/test/java/shop/OrderServiceTest.java\"}  "
        + "Running...", ESC);
    Demo.Run run = Demo.run(args("--auto", "--pace", "0.3"), typing, out.printStream());

    Map<String, ToolCallSnapshot> calls = byId(run);
    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(run.calls()).allMatch(ToolCallSnapshot::isTerminal);
    assertThat(calls.get("call_7").state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(calls.get("call_7.1").state()).isEqualTo(ToolCallState.CANCELLED);
    assertThat(out.text()).contains("Timeline", "call_7.1 read_file");
  }

  @Test
  void onATerminalItRepaintsInPlaceWithinTheScreenAndRestoresTheCursor() throws Exception {
    Transcript out = new Transcript();
    Demo.Io io = new Demo.Io(InputStream.nullInputStream(), out.printStream(), true, true, 80, 12);
    Demo.Run run = Demo.run(Demo.Options.parse(args("--auto", "--theme", "compact")), io, () -> { });

    assertThat(run.turn().ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    String text = out.text();
    assertThat(text).startsWith(ESC + "[?25l").endsWith(ESC + "[?25h");
    Matcher up = Pattern.compile(ESC + "\\[(\\d+)A").matcher(text);
    int moves = 0;
    while (up.find()) {
      moves++;
      assertThat(Integer.parseInt(up.group(1))).as("never moves above the screen's top line").isLessThan(12);
    }
    assertThat(moves).as("repainted in place").isGreaterThan(10);
    assertThat(text).contains("awaiting your approval · round trip 2", "Allow shell", "lines above",
        ESC + "[38;5;40m", "⠋");
  }

  // --- fixtures -----------------------------------------------------------------------------------------------------

  static InputStream input(String typed) {
    return new ByteArrayInputStream(typed.getBytes(StandardCharsets.UTF_8));
  }

  /** The demo's output, which a test can wait on. */
  static final class Transcript extends OutputStream {
    private final StringBuilder bytes = new StringBuilder();
    private final java.io.ByteArrayOutputStream raw = new java.io.ByteArrayOutputStream();

    PrintStream printStream() {
      return new PrintStream(this, true, StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void write(int b) {
      raw.write(b);
      notifyAll();
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      raw.write(b, off, len);
      notifyAll();
    }

    synchronized String text() {
      return raw.toString(StandardCharsets.UTF_8);
    }

    /** An input that types {@code keys} once the output shows {@code shown}, then ends. */
    InputStream typeWhenShown(String shown, String keys) {
      byte[] typed = keys.getBytes(StandardCharsets.UTF_8);
      return new InputStream() {
        private int pos = -1;

        @Override
        public int read() {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
          if (pos < 0) {
            synchronized (Transcript.this) {
              while (!text().contains(shown)) {
                try {
                  Transcript.this.wait();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return -1;
                }
              }
            }
            pos = 0;
          }
          if (pos >= typed.length) {
            return -1;
          }
          int n = Math.min(len, typed.length - pos);
          System.arraycopy(typed, pos, b, off, n);
          pos += n;
          return n;
        }
      };
    }
  }
}
