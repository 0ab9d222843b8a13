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
  ORANGE
}
