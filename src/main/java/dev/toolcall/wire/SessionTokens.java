package dev.toolcall.wire;

import com.google.common.io.BaseEncoding;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The embedded {@link SessionAccess}: one unguessable token per session, the same token for reading and deciding.
 * {@link #issue} draws 128 bits from {@link SecureRandom} (base64url, no padding, 22 characters); a check compares
 * in constant time ({@link MessageDigest#isEqual}), so its time does not tell how much of a guess was right. A
 * session without a token, a null or wrong credential, or another session's token is refused.
 *
 * <p>Thread-safe. Tokens live in memory only: after a restart, issue new ones (and give them to the clients again),
 * or implement {@link SessionAccess} against your own sessions.
 */
public final class SessionTokens implements SessionAccess {
  private static final int BITS = 128;
  private final SecureRandom random = new SecureRandom();
  private final ConcurrentHashMap<String, byte[]> tokens = new ConcurrentHashMap<>();

  private SessionTokens() {}

  /** An empty set of tokens: every check is refused until {@link #issue} gives a session one. */
  public static SessionTokens create() {
    return new SessionTokens();
  }

  /**
   * Issues a new token for {@code sessionId}, replacing any earlier one (which stops working).
   *
   * @throws IllegalArgumentException if {@code sessionId} is blank
   */
  public String issue(String sessionId) {
    requireSession(sessionId);
    byte[] bits = new byte[BITS / 8];
    random.nextBytes(bits);
    String token = BaseEncoding.base64Url().omitPadding().encode(bits);
    tokens.put(sessionId, token.getBytes(StandardCharsets.US_ASCII));
    return token;
  }

  /**
   * The current token of {@code sessionId}, if one was issued and not revoked.
   *
   * @throws NullPointerException if {@code sessionId} is null
   */
  public Optional<String> token(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    byte[] t = tokens.get(sessionId);
    return t == null ? Optional.empty() : Optional.of(new String(t, StandardCharsets.US_ASCII));
  }

  /**
   * Revokes the token of {@code sessionId}; true if there was one. Streams already open stay open (they were
   * checked when they opened); later checks are refused.
   *
   * @throws NullPointerException if {@code sessionId} is null
   */
  public boolean revoke(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    return tokens.remove(sessionId) != null;
  }

  /** Whether {@code credential} is the session's current token; false for a null argument or no token. */
  @Override
  public boolean mayRead(String sessionId, String credential) {
    return matches(sessionId, credential);
  }

  /** The same check as {@link #mayRead}: the token both reads and decides. */
  @Override
  public boolean mayDecide(String sessionId, String credential) {
    return matches(sessionId, credential);
  }

  private boolean matches(String sessionId, String credential) {
    if (sessionId == null || credential == null) {
      return false;
    }
    byte[] expected = tokens.get(sessionId);
    if (expected == null) {
      return false;
    }
    return MessageDigest.isEqual(expected, credential.getBytes(StandardCharsets.UTF_8));
  }

  private static void requireSession(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    if (sessionId.isBlank()) {
      throw new IllegalArgumentException("sessionId must not be blank");
    }
  }

  /** Counts the sessions with a token; never shows a token. */
  @Override
  public String toString() {
    return "SessionTokens[" + tokens.size() + " sessions]";
  }
}
