package dev.toolcall.presentation;

import java.util.Objects;

/**
 * How one state looks: icon, colour, animation and label. Immutable.
 *
 * @param icon the icon text (an emoji or a symbol; may be several code points, never blank)
 * @param color the colour token
 * @param animation the animation
 * @param label the status text, for example {@code "Running..."} (may be empty)
 * @param cycleColor the colour the icon and label cycle to and back from while animated (seed 02's
 *     {@code CycleColors} between {@code GradColorA} and {@code GradColorB}); equal to {@code color} for no cycling
 * @param badge a tag drawn after the tool name ({@link Badge#NONE} for none)
 */
public record StateStyle(String icon, ColorToken color, Animation animation, String label, ColorToken cycleColor,
    Badge badge) {

  /** A style that does not cycle colours and has no badge. */
  public StateStyle(String icon, ColorToken color, Animation animation, String label) {
    this(icon, color, animation, label, color, Badge.NONE);
  }

  /** Checks the parts: a null part or a blank icon is a programming error. */
  public StateStyle {
    Objects.requireNonNull(icon, "icon");
    if (icon.isBlank()) {
      throw new IllegalArgumentException("icon must not be blank");
    }
    Objects.requireNonNull(color, "color");
    Objects.requireNonNull(animation, "animation");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(cycleColor, "cycleColor");
    Objects.requireNonNull(badge, "badge");
  }

  /** Whether the colour cycles between {@link #color} and {@link #cycleColor}. */
  public boolean cyclesColor() {
    return cycleColor != color;
  }

  /** This style with its colour cycling to {@code cycleColor}. */
  public StateStyle withCycleColor(ColorToken cycleColor) {
    return new StateStyle(icon, color, animation, label, cycleColor, badge);
  }

  /** This style with {@code badge}. */
  public StateStyle withBadge(Badge badge) {
    return new StateStyle(icon, color, animation, label, cycleColor, badge);
  }

  /** A style for the given parts. */
  public static StateStyle of(String icon, ColorToken color, Animation animation, String label) {
    return new StateStyle(icon, color, animation, label);
  }
}
