package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The diagram in {@code docs/state-machine.md} is the one the enum draws. When they disagree this test fails and
 * says how to regenerate the block: run it with {@code -Dtoolcall.docs.write=true}, which rewrites the block between
 * the markers (and passes), then review and commit the file.
 */
class DocsTest {

  static final Path STATE_MACHINE = Path.of("docs", "state-machine.md");
  static final String BEGIN = "<!-- BEGIN GENERATED: ToolCallState.TABLE.toMermaid(ToolCallState::wireName) -->\n";
  static final String END = "<!-- END GENERATED -->";
  static final String REGENERATE =
      "mvn -B -q test -Dtest=DocsTest -Dtoolcall.docs.write=true";

  static String generatedBlock() {
    return "```mermaid\n" + ToolCallState.TABLE.toMermaid(ToolCallState::wireName) + "```\n";
  }

  @Test
  void stateMachineDiagramMatchesTheEnum() throws IOException {
    String doc = Files.readString(STATE_MACHINE, StandardCharsets.UTF_8);
    int begin = doc.indexOf(BEGIN);
    int end = doc.indexOf(END);
    assertThat(begin).as("%s must contain the marker %s", STATE_MACHINE, BEGIN.strip()).isNotNegative();
    assertThat(end).as("%s must contain the marker %s after the begin marker", STATE_MACHINE, END)
        .isGreaterThan(begin);
    String current = doc.substring(begin + BEGIN.length(), end);
    String expected = generatedBlock();
    if (Boolean.getBoolean("toolcall.docs.write") && !current.equals(expected)) {
      Files.writeString(STATE_MACHINE, doc.substring(0, begin + BEGIN.length()) + expected + doc.substring(end),
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(current)
        .as("the diagram in %s is not the one ToolCallState.TABLE draws; regenerate it with: %s", STATE_MACHINE,
            REGENERATE)
        .isEqualTo(expected);
  }

  @Test
  void stateMachineDocNamesEveryWireName() throws IOException {
    String doc = Files.readString(STATE_MACHINE, StandardCharsets.UTF_8);
    for (ToolCallState s : ToolCallState.values()) {
      assertThat(doc).as("docs/state-machine.md mentions %s", s.wireName()).contains("`" + s.wireName() + "`");
    }
  }
}
