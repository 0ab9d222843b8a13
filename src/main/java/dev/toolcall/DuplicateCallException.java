package dev.toolcall;

/**
 * A call could not be created because its {@link CallStore} holds a call of that session and id already (made before
 * a restart, or by another runtime sharing the store): the id was used before. Nothing was stored or published. The
 * scheduler answers it as it answers an id reused in memory: the new call fails {@link FailureKind#DUPLICATE_CALL}
 * with a message for the model.
 */
public final class DuplicateCallException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** For the call {@code callId} of {@code sessionId}. */
  public DuplicateCallException(String sessionId, String callId) {
    super("call " + sessionId + "/" + callId + " is stored already");
  }
}
