package dev.toolcall.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Change;
import dev.toolcall.ToolCallSnapshot;
import java.util.List;

/** Checks that what listeners saw of a call agrees with the history the call retains. */
public final class Histories {
  private Histories() {}

  /**
   * {@code seen} (the snapshots a listener got, in arrival order) is every version of {@code last}, 0 to its version,
   * each once, in order; and each version {@code last} retains is the one seen, or, for live output that was let go
   * and linked by a copy, a copy with the change seen (its chunk cut to its end). The history lets go of live output
   * only.
   */
  public static void assertSeenEveryVersionOf(List<ToolCallSnapshot> seen, ToolCallSnapshot last) {
    assertThat(seen).hasSize(last.version() + 1);
    for (int i = 0; i < seen.size(); i++) {
      assertThat(seen.get(i).version()).as("event %s", i).isEqualTo(i);
    }
    ToolCallSnapshot before = null;
    for (ToolCallSnapshot kept : last.versions()) {
      ToolCallSnapshot s = seen.get(kept.version());
      if (s != kept) {
        assertThat(kept.change()).as("v%s", kept.version()).isInstanceOf(Change.OutputAppended.class);
        assertOutputKept((Change.OutputAppended) kept.change(), (Change.OutputAppended) s.change());
      }
      if (before != null && kept.version() != before.version() + 1) {
        for (int v = before.version() + 1; v < kept.version(); v++) {
          assertThat(seen.get(v).change()).as("let go: v%s", v).isInstanceOf(Change.OutputAppended.class);
        }
      }
      before = kept;
    }
  }

  /** {@code kept} is {@code seen}, or {@code seen} with its chunk cut to its last {@code TAIL_CHARS} chars. */
  public static void assertOutputKept(Change.OutputAppended kept, Change.OutputAppended seen) {
    if (kept == seen) {
      return;
    }
    assertThat(seen.chunk()).endsWith(kept.chunk());
    assertThat(kept.chunk()).hasSize(Math.min(seen.chunk().length(), Change.OutputAppended.TAIL_CHARS));
    assertThat(kept).isEqualTo(new Change.OutputAppended(kept.chunk(), seen.sequence(), seen.dropped(),
        seen.outputChars(), seen.droppedTotal(), seen.tail()));
  }
}
