package dev.toolcall.presentation;

import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.ToolCallState;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Seed 02's ShouldShowContentForState and getEffectiveDisplayState, case by case. */
class DisplayRulesTest {

  /**
   * Every state x isNested x hasNested, written out: permission states show; pending shows only as a top-level parent
   * of nested calls; running and final states show; denied hides.
   */
  static Stream<Arguments> visibility() {
    // state, (top, no nested), (top, has nested), (nested, no nested), (nested, has nested)
    return Stream.of(
        Arguments.of(PENDING, false, true, false, false),
        Arguments.of(PERMISSION_PENDING, true, true, true, true),
        Arguments.of(PERMISSION_APPROVED, true, true, true, true),
        Arguments.of(PERMISSION_DENIED, false, false, false, false),
        Arguments.of(RUNNING, true, true, true, true),
        Arguments.of(COMPLETED, true, true, true, true),
        Arguments.of(FAILED, true, true, true, true),
        Arguments.of(CANCELLED, true, true, true, true));
  }

  @ParameterizedTest
  @MethodSource("visibility")
  void contentVisibility(ToolCallState s, boolean top, boolean topParent, boolean nested, boolean nestedParent) {
    assertThat(DisplayRules.showContent(s, false, false)).as("%s top-level", s).isEqualTo(top);
    assertThat(DisplayRules.showContent(s, false, true)).as("%s top-level parent", s).isEqualTo(topParent);
    assertThat(DisplayRules.showContent(s, true, false)).as("%s nested", s).isEqualTo(nested);
    assertThat(DisplayRules.showContent(s, true, true)).as("%s nested parent", s).isEqualTo(nestedParent);
  }

  @Test
  void theTableCoversEveryState() {
    assertThat(visibility().map(a -> a.get()[0])).containsExactlyInAnyOrder((Object[]) ToolCallState.values());
  }

  /** Without a result the state shows as it is. */
  @ParameterizedTest
  @EnumSource(ToolCallState.class)
  void withoutAResultTheStateShows(ToolCallState s) {
    assertThat(DisplayRules.effectiveState(s, null)).isEqualTo(s);
  }

  /** A result overrides the state: success shows completed, an error failed; denial and cancellation their own. */
  @ParameterizedTest
  @EnumSource(ToolCallState.class)
  void anArrivedResultOverridesTheState(ToolCallState s) {
    assertThat(DisplayRules.effectiveState(s, new Outcome.Completed("ok"))).isEqualTo(COMPLETED);
    assertThat(DisplayRules.effectiveState(s, new Outcome.Failed(FailureKind.TOOL_ERROR, "boom")))
        .isEqualTo(FAILED);
    assertThat(DisplayRules.effectiveState(s, new Outcome.Denied(DenialSource.USER, "no")))
        .isEqualTo(PERMISSION_DENIED);
    assertThat(DisplayRules.effectiveState(s, new Outcome.Cancelled("esc"))).isEqualTo(CANCELLED);
  }
}
