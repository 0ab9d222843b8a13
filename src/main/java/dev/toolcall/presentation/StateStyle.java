package dev.toolcall.presentation;

import java.util.Objects;

/**
 * How one state looks: icon, colour, animation and label. Immutable.
 *
 * @param icon the icon text (an emoji or a symbol; may be several code points, never blank)
 * @param color the colour token
 * @param animation the animation
 * @param label the status text, for example {@code "Running..."} (may be empty)
 */
public record StateStyle(String icon, ColorToken color, Animation animation, String label) {

  /** Checks the parts: a null part or a blank icon is a programming error. */
  public StateStyle {
    Objects.requireNonNull(icon, "icon");
    if (icon.isBlank()) {
      throw new IllegalArgumentException("icon must not be blank");
    }
    Objects.requireNonNull(color, "color");
    Objects.requireNonNull(animation, "animation");
    Objects.requireNonNull(label, "label");
  }

  /** A style for the given parts. */
  public static StateStyle of(String icon, ColorToken color, Animation animation, String label) {
    return new StateStyle(icon, color, animation, label);
  }
}
