package dev.toolcall.agui;

/**
 * A request the remote path refuses before it reads or moves anything: no access, a malformed or oversized body, a
 * cross-site request, an unknown or foreign request id, an answered request, too many open streams. Carries the HTTP
 * status to answer with and a short message for the client (never a secret, never a stack trace). It has no stack
 * trace of its own (cheap to throw, and nothing to log); the embedded server answers it as
 * {@code {error: code, message}} without logging. Immutable, so thread-safe.
 */
public final class RefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  /**
   * @param status the HTTP status (400, 403, 404, 409, 413, 503)
   * @param code a stable machine-readable code, e.g. {@code "forbidden"}
   * @param message a short message for the client
   */
  public RefusedException(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  /** The HTTP status to answer with. */
  public int status() {
    return status;
  }

  /** The stable machine-readable code. */
  public String code() {
    return code;
  }
}
