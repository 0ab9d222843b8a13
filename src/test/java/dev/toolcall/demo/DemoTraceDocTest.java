package dev.toolcall.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The demo's {@code --trace} prints the turn's span tree, and {@code docs/observability.md} shows exactly that tree
 * (its generated block is this run's output). Regenerate with
 * {@code mvn -q test -Dtest=DemoTraceDocTest -Dtoolcall.docs.write=true} and review the diff.
 */
class DemoTraceDocTest {
  static final Path DOC = Path.of("docs", "observability.md");
  static final String BEGIN = "<!-- BEGIN GENERATED: span tree of the demo's turn (DemoTraceDocTest) -->\n";
  static final String END = "<!-- END GENERATED: span tree -->";

  @Test
  void theDemoPrintsItsSpanTreeAndTheDocShowsIt() throws Exception {
    DemoRunTest.Transcript out = new DemoRunTest.Transcript();
    Demo.Run run = Demo.run(DemoRunTest.args("--auto", "--trace"), InputStream.nullInputStream(),
        out.printStream());
    assertThat(run.calls()).hasSize(9);
    String text = out.text();
    int at = text.indexOf("Trace  the turn's OpenTelemetry spans (--trace)\n");
    assertThat(at).as("the trace section").isNotNegative();
    String tree = text.substring(text.indexOf('\n', at) + 1);
    assertThat(tree).startsWith("invoke_agent  [gen_ai.conversation.id=demo")
        .contains("  execute_tool deploy  [gen_ai.tool.call.id=call_6, toolcall.outcome=denied]\n"
            + "    · toolcall.permission.asked\n    · toolcall.permission.decided (timeout)\n")
        .contains("    execute_tool read_file  [gen_ai.tool.call.id=call_7.1, toolcall.outcome=completed]");

    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int b = doc.indexOf(BEGIN);
    int e = doc.indexOf(END);
    assertThat(b).as("begin marker in %s", DOC).isNotNegative();
    assertThat(e).as("end marker after begin in %s", DOC).isGreaterThan(b);
    String updated = doc.substring(0, b + BEGIN.length()) + "```\n" + tree + "```\n" + doc.substring(e);
    if (Boolean.getBoolean("toolcall.docs.write")) {
      Files.writeString(DOC, updated, StandardCharsets.UTF_8);
      doc = updated;
    }
    assertThat(doc).as("%s is stale: regenerate with -Dtoolcall.docs.write=true", DOC).isEqualTo(updated);
  }
}
