package dev.toolcall.presentation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCallState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/presentation.md} cannot drift: its generated block (the theme tables, the visibility table and the
 * effective-state table) must equal what the code produces. To regenerate it after a deliberate change, run
 * {@code mvn -B -q -o test -Dtest=PresentationDocTest -Dtoolcall.docs.write=true} and review the diff.
 */
class PresentationDocTest {
  static final Path DOC = Path.of("docs", "presentation.md");
  static final String BEGIN = "<!-- BEGIN GENERATED: presentation tables (PresentationDocTest) -->\n";
  static final String END = "<!-- END GENERATED: presentation tables -->";

  @Test
  void docTablesAreWhatTheCodeProduces() throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int b = doc.indexOf(BEGIN);
    int e = doc.indexOf(END);
    assertThat(b).as("begin marker in %s", DOC).isNotNegative();
    assertThat(e).as("end marker after begin in %s", DOC).isGreaterThan(b);
    String updated = doc.substring(0, b + BEGIN.length()) + tables() + doc.substring(e);
    if (Boolean.getBoolean("toolcall.docs.write")) {
      Files.writeString(DOC, updated, StandardCharsets.UTF_8);
      doc = updated;
    }
    assertThat(doc).as("%s is stale: regenerate with -Dtoolcall.docs.write=true", DOC).isEqualTo(updated);
  }

  static String tables() {
    StringBuilder b = new StringBuilder();
    theme(b, Theme.emoji(), "Emoji theme (`Theme.emoji()`, seed 01)");
    theme(b, Theme.compact(), "Compact theme (`Theme.compact()`, seed 02)");
    b.append("### Content visibility (`DisplayRules.showContent`)\n\n");
    b.append("| Displayed state | top-level | top-level with nested calls | nested | nested with nested calls |\n");
    b.append("|---|---|---|---|---|\n");
    for (ToolCallState s : ToolCallState.values()) {
      b.append("| `").append(s.wireName()).append("` | ").append(yes(DisplayRules.showContent(s, false, false)))
          .append(" | ").append(yes(DisplayRules.showContent(s, false, true)))
          .append(" | ").append(yes(DisplayRules.showContent(s, true, false)))
          .append(" | ").append(yes(DisplayRules.showContent(s, true, true))).append(" |\n");
    }
    b.append("\n### Effective display state (`DisplayRules.effectiveState`)\n\n");
    b.append("| Result that has arrived | Displayed state (whatever the call's state) |\n|---|---|\n");
    b.append("| none | the call's state |\n");
    for (Outcome o : List.of(new Outcome.Completed(""), new Outcome.Failed(FailureKind.TOOL_ERROR, ""),
        new Outcome.Denied(DenialSource.USER, ""), new Outcome.Cancelled(""))) {
      b.append("| `Outcome.").append(o.getClass().getSimpleName()).append("` | `")
          .append(DisplayRules.effectiveState(ToolCallState.PENDING, o).wireName()).append("` |\n");
    }
    b.append('\n');
    return b.toString();
  }

  private static void theme(StringBuilder b, Theme t, String title) {
    b.append("### ").append(title).append("\n\n");
    b.append("| State | Icon | Colour | Animation | Label |\n|---|---|---|---|---|\n");
    for (ToolCallState s : ToolCallState.values()) {
      StateStyle st = t.style(s);
      b.append("| `").append(s.wireName()).append("` | ").append(st.icon()).append(" | `").append(st.color())
          .append("` | `").append(st.animation()).append("` | ").append(st.label().isEmpty() ? "(none)"
              : st.label()).append(" |\n");
    }
    b.append('\n');
  }

  private static String yes(boolean v) {
    return v ? "shown" : "hidden";
  }
}
