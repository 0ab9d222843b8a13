package dev.toolcall.presentation;

import static dev.toolcall.ToolCallState.*;
import static dev.toolcall.presentation.Animation.*;
import static dev.toolcall.presentation.ColorToken.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.ToolCallState;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The two shipped themes against the seeds' tables, written out here by hand from the seeds. */
class ThemeTest {

  /** Seed 01, "STATE VISUALIZATION": colour, icon, animation per state. */
  @Test
  void emojiThemeIsSeed01() {
    Theme t = Theme.emoji();
    assertStyle(t, PENDING, "⏳", GRAY_MUTED, STATIC);
    assertStyle(t, PERMISSION_PENDING, "🔐", PAPRIKA, TIMER);
    assertStyle(t, PERMISSION_APPROVED, "✅", GREEN_DARK, BLINK);
    assertStyle(t, RUNNING, "▶️", GREEN, DOT_BLINK);
    assertStyle(t, COMPLETED, "✅", GREEN, STATIC);
    assertStyle(t, FAILED, "❌", RED, STATIC);
    assertStyle(t, CANCELLED, "⏹️", ORANGE, STATIC);
    assertStyle(t, PERMISSION_DENIED, "🚫", RED, STATIC);
  }

  /**
   * Seed 02: pending ⋯ muted static, permission pending ⋯ paprika timer, approved pulse green, running ⋯ green
   * spinner, completed ✓ green blink, failed/denied static error colour; the icons the seed does not name are ours.
   */
  @Test
  void compactThemeIsSeed02() {
    Theme t = Theme.compact();
    assertStyle(t, PENDING, "⋯", GRAY_MUTED, STATIC);
    assertStyle(t, PERMISSION_PENDING, "⋯", PAPRIKA, TIMER);
    assertStyle(t, PERMISSION_APPROVED, "⋯", GREEN, PULSE);
    assertStyle(t, RUNNING, "⋯", GREEN_DARK, SPINNER);
    assertThat(t.style(RUNNING).cycleColor()).as("seed 02: GradColorA GreenDark, GradColorB Green, CycleColors")
        .isEqualTo(GREEN);
    assertThat(t.style(RUNNING).cyclesColor()).isTrue();
    assertStyle(t, COMPLETED, "✓", GREEN, BLINK);
    assertStyle(t, FAILED, "✗", RED, STATIC);
    assertStyle(t, CANCELLED, "■", ORANGE, STATIC);
    assertStyle(t, PERMISSION_DENIED, "⊘", RED, STATIC);
  }

  /**
   * Seed 02's labels (empty for the final states: "Label: '' // Empty for final states"), and ours in the same voice
   * for approved, which it leaves out; both themes share them.
   */
  @ParameterizedTest
  @EnumSource(ToolCallState.class)
  void labelsAreTheSeedsAndSharedByBothThemes(ToolCallState s) {
    Map<ToolCallState, String> expected = Map.of(
        PENDING, "Waiting for tool to start...",
        PERMISSION_PENDING, "Awaiting permission...",
        PERMISSION_APPROVED, "Approved, starting...",
        PERMISSION_DENIED, "",
        RUNNING, "Running...",
        COMPLETED, "",
        FAILED, "",
        CANCELLED, "");
    assertThat(Theme.emoji().style(s).label()).isEqualTo(expected.get(s));
    assertThat(Theme.compact().style(s).label()).isEqualTo(expected.get(s));
  }

  /** Seed 02: a completed call renders "Done" with FgSubtle on BgBaseLighter; no other state has a badge. */
  @ParameterizedTest
  @EnumSource(ToolCallState.class)
  void onlyACompletedCallHasTheDoneBadgeInSeed02sTokens(ToolCallState s) {
    for (Theme t : new Theme[] {Theme.emoji(), Theme.compact()}) {
      Badge b = t.style(s).badge();
      if (s == COMPLETED) {
        assertThat(b).isEqualTo(new Badge("Done", ColorToken.FG_SUBTLE, ColorToken.BG_BASE_LIGHTER));
      } else {
        assertThat(b.isEmpty()).as("%s badge of %s", t.name(), s).isTrue();
      }
    }
  }

  /** Seed 01's running state is a green dot blink, no colour cycle; only seed 02's spinner cycles. */
  @Test
  void onlyTheCompactRunningStyleCyclesColours() {
    for (ToolCallState s : ToolCallState.values()) {
      assertThat(Theme.emoji().style(s).cyclesColor()).as("emoji %s", s).isFalse();
      assertThat(Theme.compact().style(s).cyclesColor()).as("compact %s", s).isEqualTo(s == RUNNING);
    }
  }

  @Test
  void animatedAnimationsAreThoseThatMove() {
    assertThat(STATIC.isAnimated()).isFalse();
    for (Animation a : new Animation[] {TIMER, BLINK, PULSE, DOT_BLINK, SPINNER}) {
      assertThat(a.isAnimated()).as(a.name()).isTrue();
    }
  }

  @Test
  void aThemeIsAValueAUiCanReplace() {
    StateStyle mine = StateStyle.of("R", ORANGE, PULSE, "Working");
    Theme t = Theme.compact().with(RUNNING, mine);
    assertThat(t.style(RUNNING)).isEqualTo(mine);
    assertThat(t.style(PENDING)).isEqualTo(Theme.compact().style(PENDING));
    assertThat(Theme.compact().style(RUNNING).icon()).isEqualTo("⋯");
    assertThat(Theme.of("copy", Theme.emoji().styles())).isEqualTo(new Theme("copy", Theme.emoji().styles()));
    assertThatThrownBy(() -> t.styles().put(PENDING, mine)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aThemeMissingAStateIsRefusedNamingIt() {
    EnumMap<ToolCallState, StateStyle> m = new EnumMap<>(Theme.emoji().styles());
    m.remove(FAILED);
    m.remove(CANCELLED);
    assertThatThrownBy(() -> Theme.of("broken", m)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("broken").hasMessageContaining("[FAILED, CANCELLED]");
    assertThatThrownBy(() -> StateStyle.of(" ", RED, STATIC, "")).hasMessageContaining("icon");
    assertThatThrownBy(() -> Theme.of(" ", m)).hasMessageContaining("name");
  }

  @Test
  void shippedThemesByName() {
    assertThat(Theme.named("compact")).isSameAs(Theme.compact());
    assertThat(Theme.named("EMOJI")).isSameAs(Theme.emoji());
    assertThatThrownBy(() -> Theme.named("neon")).hasMessageContaining("neon").hasMessageContaining("emoji, compact");
  }

  private static void assertStyle(Theme t, ToolCallState s, String icon, ColorToken color, Animation animation) {
    StateStyle st = t.style(s);
    assertThat(st.icon()).as("%s icon of %s", t.name(), s).isEqualTo(icon);
    assertThat(st.color()).as("%s colour of %s", t.name(), s).isEqualTo(color);
    assertThat(st.animation()).as("%s animation of %s", t.name(), s).isEqualTo(animation);
  }
}
