package dev.toolcall;

/**
 * A change of a call was refused by its {@link CallStore} because another writer (another runtime on the same
 * store) changed the call first: this runtime's view of the call is stale. Nothing changed here.
 */
public final class StaleCallException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** For the call {@code where} (session/call) at {@code version}. */
  public StaleCallException(String where, int version) {
    super("call " + where + " was changed by another writer after version " + version
        + "; this runtime's view of it is stale (reload it from the store)");
  }
}
