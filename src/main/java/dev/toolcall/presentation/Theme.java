package dev.toolcall.presentation;

import static dev.toolcall.ToolCallState.CANCELLED;
import static dev.toolcall.ToolCallState.COMPLETED;
import static dev.toolcall.ToolCallState.FAILED;
import static dev.toolcall.ToolCallState.PENDING;
import static dev.toolcall.ToolCallState.PERMISSION_APPROVED;
import static dev.toolcall.ToolCallState.PERMISSION_DENIED;
import static dev.toolcall.ToolCallState.PERMISSION_PENDING;
import static dev.toolcall.ToolCallState.RUNNING;

import dev.toolcall.ToolCallState;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How each of the eight states looks: a {@link StateStyle} per {@link ToolCallState}. A theme is a plain immutable
 * value: a UI may use one of the two that ship, derive one with {@link #with}, or build its own with {@link #of}.
 *
 * <p>The two shipped themes follow their source documents; where those disagree each follows its own:
 * <ul>
 *   <li>{@link #emoji()}: the icons, colours and animations of {@code 01-tool-call-state-machine.md}
 *       (running: {@link Animation#DOT_BLINK}; approved: {@link Animation#BLINK}; completed: static).</li>
 *   <li>{@link #compact()}: the one-character icons of {@code 02-tool-call-state-implementation-flow.md}
 *       (running: {@link Animation#SPINNER}, its colour cycling from {@link ColorToken#GREEN_DARK} to
 *       {@link ColorToken#GREEN}; approved: {@link Animation#PULSE}; completed: {@link Animation#BLINK}).
 *       That document names no icon for approved, failed, cancelled or denied; this theme uses {@code ⋯} (green,
 *       like the other waiting states), {@code ✗} (red), {@code ■} (orange, a stop square, like seed 01's ⏹️) and
 *       {@code ⊘} (red, a prohibition sign, like seed 01's 🚫).</li>
 * </ul>
 * Both use the labels of {@code 02-...} ({@link #DEFAULT_LABELS}: none for the final states) and its "Done"
 * {@link Badge} on completed calls; seed 01 names neither.
 *
 * @param name a short name, for example {@code "emoji"}
 * @param styles a style for every state: an immutable {@link EnumMap} copy
 */
public record Theme(String name, Map<ToolCallState, StateStyle> styles) {

  /**
   * The labels of {@code 02-...}: pending, permission pending and running, a label in the same voice for approved
   * (which that document leaves out), and none for the final states (a completed call shows a "Done"
   * {@link Badge} instead). Immutable.
   */
  public static final Map<ToolCallState, String> DEFAULT_LABELS = labels();

  private static final Theme EMOJI = withDone(new Theme("emoji", styles(
      PENDING, "⏳", ColorToken.GRAY_MUTED, Animation.STATIC,
      PERMISSION_PENDING, "🔐", ColorToken.PAPRIKA, Animation.TIMER,
      PERMISSION_APPROVED, "✅", ColorToken.GREEN_DARK, Animation.BLINK,
      PERMISSION_DENIED, "🚫", ColorToken.RED, Animation.STATIC,
      RUNNING, "▶️", ColorToken.GREEN, Animation.DOT_BLINK,
      COMPLETED, "✅", ColorToken.GREEN, Animation.STATIC,
      FAILED, "❌", ColorToken.RED, Animation.STATIC,
      CANCELLED, "⏹️", ColorToken.ORANGE, Animation.STATIC)));

  private static final Theme COMPACT = withDone(new Theme("compact", styles(
      PENDING, "⋯", ColorToken.GRAY_MUTED, Animation.STATIC,
      PERMISSION_PENDING, "⋯", ColorToken.PAPRIKA, Animation.TIMER,
      PERMISSION_APPROVED, "⋯", ColorToken.GREEN, Animation.PULSE,
      PERMISSION_DENIED, "⊘", ColorToken.RED, Animation.STATIC,
      RUNNING, "⋯", ColorToken.GREEN_DARK, Animation.SPINNER,
      COMPLETED, "✓", ColorToken.GREEN, Animation.BLINK,
      FAILED, "✗", ColorToken.RED, Animation.STATIC,
      CANCELLED, "■", ColorToken.ORANGE, Animation.STATIC)))
      .with(RUNNING, new StateStyle("⋯", ColorToken.GREEN_DARK, Animation.SPINNER, "Running...", ColorToken.GREEN,
          Badge.NONE));

  /**
   * Checks there is a style for every state and keeps an immutable copy.
   *
   * @throws IllegalArgumentException naming the states without a style
   */
  public Theme {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    Objects.requireNonNull(styles, "styles");
    EnumMap<ToolCallState, StateStyle> copy = new EnumMap<>(ToolCallState.class);
    styles.forEach((state, style) -> copy.put(Objects.requireNonNull(state, "state in styles"),
        Objects.requireNonNull(style, "style of " + state)));
    if (copy.size() != ToolCallState.values().length) {
      EnumMap<ToolCallState, Boolean> missing = new EnumMap<>(ToolCallState.class);
      for (ToolCallState s : ToolCallState.values()) {
        if (!copy.containsKey(s)) {
          missing.put(s, true);
        }
      }
      throw new IllegalArgumentException("theme '" + name + "' needs a style for every state; missing "
          + missing.keySet());
    }
    styles = Collections.unmodifiableMap(copy);
  }

  /** The emoji theme of {@code 01-tool-call-state-machine.md}. */
  public static Theme emoji() {
    return EMOJI;
  }

  /** The compact theme of {@code 02-tool-call-state-implementation-flow.md}. */
  public static Theme compact() {
    return COMPACT;
  }

  /** A theme of the given styles (every state needs one). */
  public static Theme of(String name, Map<ToolCallState, StateStyle> styles) {
    return new Theme(name, styles);
  }

  /**
   * A shipped theme by name, ignoring case: {@code "emoji"} or {@code "compact"} (for a {@code --theme} option).
   *
   * @throws IllegalArgumentException naming the valid names
   */
  public static Theme named(String name) {
    Objects.requireNonNull(name, "name");
    switch (name.toLowerCase(Locale.ROOT)) {
      case "emoji":
        return EMOJI;
      case "compact":
        return COMPACT;
      default:
        throw new IllegalArgumentException("unknown theme '" + name + "'; valid names are emoji, compact");
    }
  }

  /** The style of {@code state}. */
  public StateStyle style(ToolCallState state) {
    return styles.get(Objects.requireNonNull(state, "state"));
  }

  /** This theme with {@code state} styled as {@code style}, under the same name. */
  public Theme with(ToolCallState state, StateStyle style) {
    EnumMap<ToolCallState, StateStyle> copy = new EnumMap<>(styles);
    copy.put(Objects.requireNonNull(state, "state"), Objects.requireNonNull(style, "style"));
    return new Theme(name, copy);
  }

  private static Map<ToolCallState, String> labels() {
    EnumMap<ToolCallState, String> m = new EnumMap<>(ToolCallState.class);
    m.put(PENDING, "Waiting for tool to start...");
    m.put(PERMISSION_PENDING, "Awaiting permission...");
    m.put(PERMISSION_APPROVED, "Approved, starting...");
    m.put(PERMISSION_DENIED, "");
    m.put(RUNNING, "Running...");
    m.put(COMPLETED, "");
    m.put(FAILED, "");
    m.put(CANCELLED, "");
    return Collections.unmodifiableMap(m);
  }

  private static Map<ToolCallState, StateStyle> styles(Object... parts) {
    EnumMap<ToolCallState, StateStyle> m = new EnumMap<>(ToolCallState.class);
    for (int i = 0; i < parts.length; i += 4) {
      ToolCallState s = (ToolCallState) parts[i];
      m.put(s, new StateStyle((String) parts[i + 1], (ColorToken) parts[i + 2], (Animation) parts[i + 3],
          DEFAULT_LABELS.get(s)));
    }
    return m;
  }

  /** {@code theme} with seed 02's "Done" badge on completed calls. */
  private static Theme withDone(Theme theme) {
    return theme.with(COMPLETED, theme.style(COMPLETED).withBadge(Badge.of("Done")));
  }

  @Override
  public String toString() {
    return "Theme[" + name + "]";
  }
}
