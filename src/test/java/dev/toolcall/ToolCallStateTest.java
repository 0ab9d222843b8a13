package dev.toolcall;

import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.fsm.IllegalTransitionException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The state enum against the seed's matrix, written out here independently of {@link ToolCallState#TABLE}: every one
 * of the 64 (from, to) pairs is checked, so an edge added to or dropped from the enum fails this test.
 */
class ToolCallStateTest {

  /** The seed's matrix (01-tool-call-state-machine.md), copied by hand: 12 edges, nothing more. */
  static final Map<ToolCallState, Set<ToolCallState>> SEED = new EnumMap<>(ToolCallState.class);

  static {
    SEED.put(PENDING, EnumSet.of(PERMISSION_PENDING, PERMISSION_APPROVED, RUNNING, CANCELLED));
    SEED.put(PERMISSION_PENDING, EnumSet.of(PERMISSION_APPROVED, PERMISSION_DENIED, CANCELLED));
    SEED.put(PERMISSION_APPROVED, EnumSet.of(RUNNING, CANCELLED));
    SEED.put(PERMISSION_DENIED, EnumSet.noneOf(ToolCallState.class));
    SEED.put(RUNNING, EnumSet.of(COMPLETED, FAILED, CANCELLED));
    SEED.put(COMPLETED, EnumSet.noneOf(ToolCallState.class));
    SEED.put(FAILED, EnumSet.noneOf(ToolCallState.class));
    SEED.put(CANCELLED, EnumSet.noneOf(ToolCallState.class));
  }

  static Stream<Arguments> allPairs() {
    List<Arguments> pairs = new ArrayList<>();
    for (ToolCallState from : values()) {
      for (ToolCallState to : values()) {
        pairs.add(Arguments.of(from, to));
      }
    }
    return pairs.stream();
  }

  @Test
  void thereAreEightStatesAndExactlyTwelveEdges() {
    assertThat(values()).hasSize(8);
    assertThat(allPairs()).hasSize(64);
    assertThat(SEED.values().stream().mapToInt(Set::size).sum()).isEqualTo(12);
    assertThat(TABLE.edgeCount()).isEqualTo(12);
    assertThat(TABLE.initial()).isEqualTo(PENDING);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("allPairs")
  void everyPairAgreesWithTheSeedMatrix(ToolCallState from, ToolCallState to) {
    boolean legal = SEED.get(from).contains(to);
    assertThat(from.canTransitionTo(to)).as("%s -> %s", from, to).isEqualTo(legal);
    assertThat(TABLE.allows(from, to)).as("%s -> %s", from, to).isEqualTo(legal);
    if (legal) {
      TABLE.check(from, to); // does not throw
    } else {
      assertThatThrownBy(() -> TABLE.check(from, to))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessageContaining(from + " -> " + to)
          .satisfies(e -> {
            IllegalTransitionException ite = (IllegalTransitionException) e;
            assertThat(ite.from()).isEqualTo(from);
            assertThat(ite.to()).isEqualTo(to);
            assertThat(ite.allowed()).isEqualTo(SEED.get(from));
          });
    }
  }

  @ParameterizedTest
  @EnumSource(ToolCallState.class)
  void successorsAndTerminalityFollowTheMatrix(ToolCallState s) {
    assertThat(s.successors()).isEqualTo(SEED.get(s));
    assertThat(s.isTerminal()).isEqualTo(SEED.get(s).isEmpty());
    assertThat(TABLE.isTerminal(s)).isEqualTo(s.isTerminal());
    assertThatThrownBy(() -> s.successors().add(s)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void theTerminalStatesAreTheFourEndings() {
    assertThat(terminalStates()).containsExactlyInAnyOrder(PERMISSION_DENIED, COMPLETED, FAILED, CANCELLED);
  }

  @Test
  void noStateCanMoveToItself() {
    for (ToolCallState s : values()) {
      assertThat(s.canTransitionTo(s)).as("%s -> %s", s, s).isFalse();
    }
  }

  @Test
  void wireNamesAreTheSeedsAndRoundTrip() {
    assertThat(values()).extracting(ToolCallState::wireName).containsExactly("pending", "permission_pending",
        "permission_approved", "permission_denied", "running", "completed", "failed", "cancelled");
    for (ToolCallState s : values()) {
      assertThat(fromWireName(s.wireName())).isSameAs(s);
    }
  }

  @Test
  void unknownWireNameListsTheValidOnes() {
    assertThatThrownBy(() -> fromWireName("PENDING"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'PENDING'")
        .hasMessageContaining("pending, permission_pending, permission_approved, permission_denied, running, "
            + "completed, failed, cancelled");
    assertThatThrownBy(() -> fromWireName("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void nullsAreRejectedNamingTheParameter() {
    assertThatThrownBy(() -> fromWireName(null)).isInstanceOf(NullPointerException.class).hasMessage("wireName");
    assertThatThrownBy(() -> RUNNING.canTransitionTo(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("target");
    assertThatThrownBy(() -> TABLE.allows(null, RUNNING)).isInstanceOf(NullPointerException.class)
        .hasMessage("from");
    assertThatThrownBy(() -> TABLE.allows(PENDING, null)).isInstanceOf(NullPointerException.class)
        .hasMessage("to");
    assertThatThrownBy(() -> TABLE.successors(null)).isInstanceOf(NullPointerException.class).hasMessage("from");
    assertThatThrownBy(() -> TABLE.check(null, RUNNING)).isInstanceOf(NullPointerException.class)
        .hasMessage("from");
  }

  @Test
  void terminalStateMessageSaysItAllowsNothing() {
    assertThatThrownBy(() -> TABLE.check(COMPLETED, RUNNING))
        .hasMessageContaining("COMPLETED -> RUNNING")
        .hasMessageContaining("terminal");
  }
}
