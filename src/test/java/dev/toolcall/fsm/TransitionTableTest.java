package dev.toolcall.fsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The generic table: builder errors, the illegal-edge message, and the diagram, over a small enum of its own. */
class TransitionTableTest {

  enum Light { OFF, ON, BROKEN }

  static TransitionTable<Light> table() {
    return TransitionTable.builder(Light.class, Light.OFF)
        .edge(Light.OFF, Light.ON, "switch on")
        .edge(Light.ON, Light.OFF, "")
        .edges(Light.ON, EnumSet.of(Light.BROKEN), "burn out")
        .build();
  }

  @Test
  void selfLoopIsRefusedNamingTheState() {
    assertThatThrownBy(() -> TransitionTable.builder(Light.class, Light.OFF).edge(Light.ON, Light.ON, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("self-loop ON -> ON");
  }

  @Test
  void duplicateEdgeIsRefusedNamingIt() {
    TransitionTable.Builder<Light> b = TransitionTable.builder(Light.class, Light.OFF).edge(Light.OFF, Light.ON, "a");
    assertThatThrownBy(() -> b.edge(Light.OFF, Light.ON, "b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate edge OFF -> ON");
  }

  @Test
  void builderRejectsNullsNamingTheParameter() {
    assertThatThrownBy(() -> TransitionTable.builder(null, Light.OFF)).hasMessage("type");
    assertThatThrownBy(() -> TransitionTable.builder(Light.class, null)).hasMessage("initial");
    TransitionTable.Builder<Light> b = TransitionTable.builder(Light.class, Light.OFF);
    assertThatThrownBy(() -> b.edge(null, Light.ON, "")).isInstanceOf(NullPointerException.class).hasMessage("from");
    assertThatThrownBy(() -> b.edge(Light.OFF, null, "")).isInstanceOf(NullPointerException.class).hasMessage("to");
    assertThatThrownBy(() -> b.edge(Light.OFF, Light.ON, null)).isInstanceOf(NullPointerException.class)
        .hasMessage("label");
  }

  @Test
  void checkNamesFromToAndTheAllowedTargets() {
    TransitionTable<Light> t = table();
    assertThatThrownBy(() -> t.check(Light.OFF, Light.BROKEN))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("Light")
        .hasMessageContaining("OFF -> BROKEN")
        .hasMessageContaining("[ON]");
    assertThatThrownBy(() -> t.check(Light.BROKEN, Light.ON))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("BROKEN -> ON")
        .hasMessageContaining("terminal");
    IllegalTransitionException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalTransitionException.class,
        () -> t.check(Light.ON, Light.ON));
    assertThat(e.from()).isEqualTo(Light.ON);
    assertThat(e.to()).isEqualTo(Light.ON);
    assertThat(e.allowed()).isEqualTo(EnumSet.of(Light.OFF, Light.BROKEN));
  }

  @Test
  void derivedFactsComeFromTheEdges() {
    TransitionTable<Light> t = table();
    assertThat(t.edgeCount()).isEqualTo(3);
    assertThat(t.successors(Light.ON)).containsExactly(Light.OFF, Light.BROKEN);
    assertThat(t.isTerminal(Light.BROKEN)).isTrue();
    assertThat(t.isTerminal(Light.OFF)).isFalse();
    assertThat(t.label(Light.OFF, Light.ON)).isEqualTo("switch on");
    assertThat(t.label(Light.OFF, Light.BROKEN)).isEmpty();
    assertThat(t.stateType()).isEqualTo(Light.class);
    assertThat(t.toString()).contains("Light").contains("3 edges");
  }

  @Test
  void tableIsNotChangedByItsBuilderAfterBuild() {
    TransitionTable.Builder<Light> b = TransitionTable.builder(Light.class, Light.OFF).edge(Light.OFF, Light.ON, "");
    TransitionTable<Light> t = b.build();
    b.edge(Light.ON, Light.BROKEN, "");
    assertThat(t.edgeCount()).isEqualTo(1);
    assertThat(t.allows(Light.ON, Light.BROKEN)).isFalse();
  }

  @Test
  void mermaidIsDeterministicInEnumOrderWithLabelsAndExits() {
    String expected = """
        stateDiagram-v2
            [*] --> off
            off --> on : switch on
            on --> off
            on --> broken : burn out
            broken --> [*]
        """;
    String a = table().toMermaid(s -> s.name().toLowerCase(Locale.ROOT));
    // a table built with the edges in another order draws the same diagram
    String b = TransitionTable.builder(Light.class, Light.OFF)
        .edge(Light.ON, Light.BROKEN, "burn out")
        .edge(Light.ON, Light.OFF, "")
        .edge(Light.OFF, Light.ON, "switch on")
        .build().toMermaid(s -> s.name().toLowerCase(Locale.ROOT));
    assertThat(a).isEqualTo(expected);
    assertThat(b).isEqualTo(expected);
  }
}
