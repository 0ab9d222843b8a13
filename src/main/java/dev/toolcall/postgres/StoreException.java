package dev.toolcall.postgres;

/**
 * The store could not do what was asked: the database is down, a statement timed out, a commit failed, or a row
 * cannot be read by this version of the library. Nothing was changed by the operation that threw, except where
 * {@link #outcomeUnknown()} says the database may have applied it and a re-read could not settle it.
 */
public final class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final boolean outcomeUnknown;

  StoreException(String message, Throwable cause) {
    this(message, cause, false);
  }

  StoreException(String message, Throwable cause, boolean outcomeUnknown) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
  }

  /** Whether the write may have been applied although this was thrown (a re-read could not tell). */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}
