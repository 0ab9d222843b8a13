package dev.toolcall;

import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.fsm.IllegalTransitionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The matrix, pair by pair, against the seed's table written out independently here; and the generated docs. */
class ToolCallStateTest {

  /** The seed's matrix (01-tool-call-state-machine.md), transcribed by hand. */
  static final Map<ToolCallState, Set<ToolCallState>> SEED = Map.of(
      PENDING, EnumSet.of(PERMISSION_PENDING, PERMISSION_APPROVED, RUNNING, CANCELLED),
      PERMISSION_PENDING, EnumSet.of(PERMISSION_APPROVED, PERMISSION_DENIED, CANCELLED),
      PERMISSION_APPROVED, EnumSet.of(RUNNING, CANCELLED),
      PERMISSION_DENIED, EnumSet.noneOf(ToolCallState.class),
      RUNNING, EnumSet.of(COMPLETED, FAILED, CANCELLED),
      COMPLETED, EnumSet.noneOf(ToolCallState.class),
      FAILED, EnumSet.noneOf(ToolCallState.class),
      CANCELLED, EnumSet.noneOf(ToolCallState.class));

  @Test
  void all64PairsAgreeWithTheSeed() {
    int edges = 0;
    for (ToolCallState from : values()) {
      for (ToolCallState to : values()) {
        boolean expected = SEED.get(from).contains(to);
        assertThat(from.canTransitionTo(to)).as("%s -> %s", from, to).isEqualTo(expected);
        if (expected) {
          edges++;
        } else {
          assertThatThrownBy(() -> TABLE.check(from, to)).isInstanceOf(IllegalTransitionException.class)
              .hasMessageContaining(from + " -> " + to);
        }
      }
      assertThat(from.successors()).isEqualTo(SEED.get(from));
      assertThat(from.isTerminal()).isEqualTo(SEED.get(from).isEmpty());
    }
    assertThat(edges).isEqualTo(12);
    assertThat(TABLE.edgeCount()).isEqualTo(12);
    assertThat(terminalStates()).containsExactlyInAnyOrder(PERMISSION_DENIED, COMPLETED, FAILED, CANCELLED);
  }

  @Test
  void wireNamesRoundTripAndUnknownNamesListTheValidOnes() {
    for (ToolCallState s : values()) {
      assertThat(fromWireName(s.wireName())).isSameAs(s);
      assertThat(s.wireName()).isEqualTo(s.name().toLowerCase(java.util.Locale.ROOT));
    }
    assertThatThrownBy(() -> fromWireName("PENDING")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'PENDING'").hasMessageContaining("permission_denied, running, completed");
    assertThatThrownBy(() -> fromWireName(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("wireName");
    assertThatThrownBy(() -> PENDING.canTransitionTo(null)).hasMessageContaining("target");
  }

  static final String BEGIN = "<!-- generated:state-diagram:begin -->";
  static final String END = "<!-- generated:state-diagram:end -->";

  /**
   * docs/state-machine.md holds the diagram generated from {@link ToolCallState#TABLE}; this fails when they
   * disagree. Regenerate with {@code mvn test -Dtest=ToolCallStateTest -Dtoolcall.docs.write=true}.
   */
  @Test
  void docsDiagramIsGeneratedFromTheEnum() throws Exception {
    Path doc = Path.of("docs/state-machine.md");
    String block = BEGIN + "\n```mermaid\n" + TABLE.toMermaid(ToolCallState::wireName) + "```\n" + END;
    String text = Files.readString(doc);
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    assertThat(b).as("begin marker in %s", doc).isNotNegative();
    String current = text.substring(b, e + END.length());
    if (Boolean.getBoolean("toolcall.docs.write") && !current.equals(block)) {
      Files.writeString(doc, text.substring(0, b) + block + text.substring(e + END.length()));
      return;
    }
    assertThat(current).as("docs/state-machine.md is stale: rerun with -Dtoolcall.docs.write=true").isEqualTo(block);
  }
}
