package dev.toolcall;

import java.util.Objects;

/**
 * A runtime snapshot that cannot be restored: truncated or malformed JSON, an unknown field or state, a newer schema,
 * a duplicate id, a negative version, or a history that breaks the state matrix. It names the bad entry; nothing was
 * restored.
 */
public final class CorruptSnapshotException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Where in the document: {@code calls[3]}, {@code call 'c1'}, {@code schemaVersion}, or {@code document}. */
  private final String entry;
  private final String why;

  /** A corrupt {@code entry}, for {@code why}. */
  public CorruptSnapshotException(String entry, String why) {
    super("corrupt runtime snapshot at " + Objects.requireNonNull(entry, "entry") + ": "
        + Objects.requireNonNull(why, "why"));
    this.entry = entry;
    this.why = why;
  }

  /** A corrupt {@code entry}, for {@code why}, found through {@code cause}. */
  public CorruptSnapshotException(String entry, String why, Throwable cause) {
    this(entry, why);
    initCause(cause);
  }

  /** The bad entry. */
  public String entry() {
    return entry;
  }

  /** What is wrong with it. */
  public String why() {
    return why;
  }
}
