package dev.toolcall.presentation;

/**
 * How a state's icon moves. The view model only names the animation; a UI draws it. Every animation is a pure
 * function of the time a frame is drawn, so any number of frames may be drawn, or none.
 */
public enum Animation {
  /** No movement. */
  STATIC(false),
  /** A countdown: the remaining time of a permission request is shown and ticks down. */
  TIMER(true),
  /** The icon blinks (shown, hidden). On a terminal state it blinks briefly after the state is entered, then stays. */
  BLINK(true),
  /** The icon pulses (bright, dim). */
  PULSE(true),
  /** A dot after the label blinks (seed 01's "dot blink" for a running call). */
  DOT_BLINK(true),
  /** A spinner cycles in place of the icon. */
  SPINNER(true);

  private final boolean animated;

  Animation(boolean animated) {
    this.animated = animated;
  }

  /** Whether frames drawn at different times may differ, so a UI must keep repainting while it is shown. */
  public boolean isAnimated() {
    return animated;
  }
}
