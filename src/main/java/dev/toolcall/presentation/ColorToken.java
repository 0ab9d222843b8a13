package dev.toolcall.presentation;

/**
 * A colour by meaning, named as in the source documents. A UI maps each token to its own palette (the
 * {@link TerminalRenderer} maps them to 256-colour ANSI codes); the library never names a concrete colour.
 */
public enum ColorToken {
  /** Muted grey: a call that waits and needs nothing. */
  GRAY_MUTED,
  /** Paprika (a warm red-orange): a call that needs a person's attention. */
  PAPRIKA,
  /** Dark green: approved, about to run. */
  GREEN_DARK,
  /** Green: running, or succeeded. */
  GREEN,
  /** Red: failed or denied. */
  RED,
  /** Orange: cancelled. */
  ORANGE,
  /** Subtle foreground (seed 02's {@code FgSubtle}): the text of the "Done" badge. */
  FG_SUBTLE,
  /** A background slightly lighter than the base (seed 02's {@code BgBaseLighter}): the "Done" badge's background. */
  BG_BASE_LIGHTER
}
