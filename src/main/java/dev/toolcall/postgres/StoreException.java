package dev.toolcall.postgres;

/**
 * The store could not do what was asked: the database is down, a statement timed out, a commit failed, or a row
 * cannot be read by this version of the library. Nothing was changed by the operation that threw, except where
 * {@link #outcomeUnknown()} says the database may have applied it and a re-read could not settle it.
 */
public final class StoreException extends RuntimeException implements dev.toolcall.CallStore.Failure {
  private static final long serialVersionUID = 1L;
  private final boolean outcomeUnknown;

  StoreException(String message, Throwable cause) {
    this(message, cause, false);
  }

  StoreException(String message, Throwable cause, boolean outcomeUnknown) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
  }

  /**
   * Whether the same operation may succeed later (the database was unreachable, a commit failed); false when trying
   * again cannot fix it (the data cannot be stored, the row cannot be read). The runtime tries a retriable write again
   * until it lands, and ends the call instead on one that is not.
   */
  @Override
  public boolean retriable() {
    return true;
  }

  /** Whether the write may have been applied although this was thrown (a re-read could not tell). */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}
