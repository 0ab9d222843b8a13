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
    assertStyle(t, RUNNING, "⋯", GREEN, SPINNER);
    assertStyle(t, COMPLETED, "✓", GREEN, BLINK);
    assertStyle(t, FAILED, "✗", RED, STATIC);
    assertStyle(t, CANCELLED, "■", ORANGE, STATIC);
    assertStyle(t, PERMISSION_DENIED, "⊘", RED, STATIC);
  }

  /** Seed 02's labels, and ours in the same voice for the states it leaves out; both themes share them. */
  @ParameterizedTest
  @EnumSource(ToolCallState.class)
  void labelsAreTheSeedsAndSharedByBothThemes(ToolCallState s) {
    Map<ToolCallState, String> expected = Map.of(
        PENDING, "Waiting for tool to start...",
        PERMISSION_PENDING, "Awaiting permission...",
        PERMISSION_APPROVED, "Approved, starting...",
        PERMISSION_DENIED, "Permission denied",
        RUNNING, "Running...",
        COMPLETED, "Done",
        FAILED, "Failed",
        CANCELLED, "Cancelled");
    assertThat(Theme.emoji().style(s).label()).isEqualTo(expected.get(s));
    assertThat(Theme.compact().style(s).label()).isEqualTo(expected.get(s));
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
