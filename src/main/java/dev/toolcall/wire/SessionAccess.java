package dev.toolcall.wire;

/**
 * Who may read a session's events and requests, and who may decide its requests: the check a remote path (an HTTP
 * endpoint, an event stream) makes before it shows or changes anything. Pluggable: an application with its own users
 * implements it against its sessions and login; {@link SessionTokens} is the embedded default (an unguessable token
 * per session).
 *
 * <p>Implementations must be thread-safe, quick and free of side effects visible to the caller, and must answer
 * false (never throw) for a credential they do not recognize, a null credential included. A refused check changes
 * nothing; a remote path answers it the same way whether or not the session exists.
 */
public interface SessionAccess {

  /**
   * Whether the holder of {@code credential} may read session {@code sessionId}'s events and open requests.
   *
   * @param sessionId the session (an agent's conversation id); never null
   * @param credential what the client presented (a token, a user id resolved by the caller); may be null
   */
  boolean mayRead(String sessionId, String credential);

  /**
   * Whether the holder of {@code credential} may decide session {@code sessionId}'s requests.
   *
   * @param sessionId the session (an agent's conversation id); never null
   * @param credential what the client presented; may be null
   */
  boolean mayDecide(String sessionId, String credential);

  /** Refuses everything (a safe placeholder). */
  SessionAccess DENY_ALL = new SessionAccess() {
    @Override
    public boolean mayRead(String sessionId, String credential) {
      return false;
    }

    @Override
    public boolean mayDecide(String sessionId, String credential) {
      return false;
    }

    @Override
    public String toString() {
      return "SessionAccess.DENY_ALL";
    }
  };
}
