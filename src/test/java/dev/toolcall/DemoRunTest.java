package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.demo.Demo;
import dev.toolcall.execution.CallResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Runs the terminal demo unattended and with keystrokes, with a plain (non-terminal) display. */
class DemoRunTest {

  private static final String[] AUTO = {"--auto", "--deploy-timeout-ms", "300"};

  @Test
  void autoModeEndsEveryCallInTheExpectedStateWithoutEscapeCodes() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    List<CallResult> results = Demo.run(AUTO, new ByteArrayInputStream(new byte[0]),
        new PrintStream(buf, true, StandardCharsets.UTF_8), false);
    String out = buf.toString(StandardCharsets.UTF_8);
    Map<String, CallResult> byTool = results.stream()
        .collect(Collectors.toMap(CallResult::toolName, Function.identity()));

    assertThat(results).hasSize(7).allMatch(r -> r.snapshot().isTerminal());
    assertThat(byTool.get("shell").snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(byTool.get("deploy").snapshot().state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    assertThat(byTool.get("deploy").messageForModel()).contains("in time");
    assertThat(byTool.get("fetch_url").snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(byTool.get("fetch_url").snapshot().attempt()).isEqualTo(3);
    assertThat(byTool.get("reed_file").snapshot().state()).isEqualTo(ToolCallState.FAILED);
    assertThat(byTool.get("reed_file").messageForModel()).contains("Did you mean read_file");
    assertThat(byTool.get("sub_agent").snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
    assertThat(byTool.get("sub_agent").messageForModel())
        .contains("call_7.1=COMPLETED", "call_7.2=COMPLETED");
    assertThat(out).contains("Timeline:", "call_7.1 read_file", "call_7.2 list_dir")
        .doesNotContain("\u001b");
  }

  @Test
  void interactiveDenyWithAReasonReachesTheModel() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    List<CallResult> results = Demo.run(new String[] {"--deploy-timeout-ms", "300"},
        new ByteArrayInputStream("d\nnot now\n".getBytes(StandardCharsets.UTF_8)),
        new PrintStream(buf, true, StandardCharsets.UTF_8), false);
    CallResult shell = results.stream().filter(r -> r.toolName().equals("shell")).findFirst().orElseThrow();

    assertThat(results).allMatch(r -> r.snapshot().isTerminal());
    assertThat(shell.snapshot().state()).isEqualTo(ToolCallState.PERMISSION_DENIED);
    assertThat(shell.messageForModel()).contains("not now");
    assertThat(buf.toString(StandardCharsets.UTF_8)).doesNotContain("\u001b");
  }
}
