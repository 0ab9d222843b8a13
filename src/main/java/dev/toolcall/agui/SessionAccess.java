package dev.toolcall.agui;

/**
 * Who may read a session's events and decide its requests. Asked on every read (a run, an event stream, the page's
 * calls) and every decision, before anything is read or moved; a refusal is answered 403 and changes nothing.
 * Implementations must be thread-safe and fast (no I/O on the caller's thread if it can be avoided).
 */
@FunctionalInterface
public interface SessionAccess {

  /**
   * Whether {@code credential} lets its holder read and decide session {@code sessionId}.
   *
   * @param sessionId the session (conversation, AG-UI thread) id, non-null
   * @param credential what the client sent (a bearer token), or null when it sent none
   * @return true to let the request through
   */
  boolean permits(String sessionId, String credential);
}
