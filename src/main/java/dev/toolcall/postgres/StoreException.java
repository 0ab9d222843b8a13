package dev.toolcall.postgres;

import java.sql.SQLException;

/**
 * The store could not do what was asked: the database is down, a statement timed out, a commit failed, the database
 * refused the data, or a row cannot be read by this version of the library. Nothing was changed by the operation that
 * threw, except where {@link #outcomeUnknown()} says the write may have been committed and a re-read could not settle
 * it. {@link #retriable()} says whether trying the same operation again may succeed. The message names the
 * operation and the row where there is one; the cause is the driver's {@code SQLException} when there is one.
 * Immutable, so thread-safe. Only the store throws it: its constructors are package-private.
 */
public final class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final boolean outcomeUnknown;
  private final boolean retriable;

  /** A failure whose retriability follows its cause: a database error of the data or constraint classes is not. */
  StoreException(String message, Throwable cause) {
    this(message, cause, false);
  }

  StoreException(String message, Throwable cause, boolean outcomeUnknown) {
    this(message, cause, outcomeUnknown, !refusedData(cause));
  }

  private StoreException(String message, Throwable cause, boolean outcomeUnknown, boolean retriable) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
    this.retriable = retriable;
  }

  /** A row (or a value for one) that cannot be right: reading or writing it again gives the same answer. */
  static StoreException corrupt(String message, Throwable cause) {
    return new StoreException(message, cause, false, false);
  }

  /**
   * Whether the write may have been committed although this was thrown: the connection was lost while the commit was
   * under way and the row could not be read to settle it. False whenever the write certainly did not commit (it was
   * never sent, its statement failed, or the database refused it).
   */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }

  /**
   * Whether the same operation may succeed if tried again (the database was unreachable, a statement timed out, a
   * transaction conflicted). False when retrying cannot fix it: the database refused the data (SQLSTATE class 22, a
   * data exception) or a constraint (class 23), or a row cannot be read by this version or cannot be right.
   */
  public boolean retriable() {
    return retriable;
  }

  /** Whether {@code cause} is the database refusing the data itself: SQLSTATE class 22 or 23. */
  static boolean refusedData(Throwable cause) {
    if (cause instanceof SQLException e && e.getSQLState() != null) {
      String s = e.getSQLState();
      return s.startsWith("22") || s.startsWith("23");
    }
    return false;
  }
}
