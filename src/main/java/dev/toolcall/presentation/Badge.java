package dev.toolcall.presentation;

import java.util.Objects;

/**
 * A short text drawn as a tag after a call's tool name, with colours of its own (seed 02's "Done" on a completed
 * call: subtle text on a slightly lighter background, one space of padding on each side). Immutable.
 *
 * @param text the badge's text; empty for no badge ({@link #NONE})
 * @param foreground the text's colour token
 * @param background the background's colour token
 */
public record Badge(String text, ColorToken foreground, ColorToken background) {

  /** No badge. */
  public static final Badge NONE = new Badge("", ColorToken.FG_SUBTLE, ColorToken.BG_BASE_LIGHTER);

  /** Checks the parts. */
  public Badge {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(foreground, "foreground");
    Objects.requireNonNull(background, "background");
  }

  /** A badge of seed 02's style: {@link ColorToken#FG_SUBTLE} on {@link ColorToken#BG_BASE_LIGHTER}. */
  public static Badge of(String text) {
    return new Badge(text, ColorToken.FG_SUBTLE, ColorToken.BG_BASE_LIGHTER);
  }

  /** Whether there is nothing to draw. */
  public boolean isEmpty() {
    return text.isEmpty();
  }
}
