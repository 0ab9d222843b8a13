package dev.toolcall.wire;

import com.google.common.io.BaseEncoding;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The embedded {@link SessionAccess}: tokens that each open one session, the same token for reading and deciding.
 * Two kinds, one API:
 *
 * <ul>
 *   <li><b>Signed</b> ({@link #signed(byte[])}, {@link #builder()}): for several instances and restarts. A token is
 *       signed with HMAC-SHA256 under a key the application configures (at least 256 bits, the same on every
 *       instance), bound to its session, and carries its issue time, its expiry (12 hours by default), the id of
 *       its key and a random id of its own (92 base64url characters). Any instance built with the same key accepts
 *       it, before and after a restart; nothing is kept per token. Keys rotate: a new key signs, the previous ones
 *       still verify until their tokens expire. A revocation ({@link #revoke}, {@link #revokeToken}) is written to
 *       the {@link TokenRevocations} and reaches every instance that reads the same ones (PostgreSQL:
 *       {@code dev.toolcall.postgres.PostgresTokenRevocations}); the default keeps them in this object's memory.
 *   <li><b>In memory</b> ({@link #create()}): for one process. One random token per session (128 bits from
 *       {@link SecureRandom}, 22 base64url characters), kept in this object's memory: refused by every other
 *       instance, and gone at a restart.
 * </ul>
 *
 * <p>Every check compares in constant time ({@link MessageDigest#isEqual}), so its time does not tell how much of a
 * guess was right, and answers false, never throws, for any credential string (null, malformed, forged, for another
 * session, under an unknown key, expired or revoked). A signed credential is refused too when the revocations cannot
 * be read (one WARN when that starts). One token both reads and decides; an application that wants read-only links
 * implements {@link SessionAccess} itself.
 *
 * <p>Thread-safe; immutable configuration. {@link #toString()} never shows a token or a key.
 */
public final class SessionTokens implements SessionAccess {
  private static final int BITS = 128;
  private final SignedTokens signed;                // null when in memory
  private final SecureRandom random;                // in memory only
  private final ConcurrentHashMap<String, byte[]> tokens; // in memory only: each session's current token

  private SessionTokens(SignedTokens signed) {
    this.signed = signed;
    this.random = signed == null ? new SecureRandom() : null;
    this.tokens = signed == null ? new ConcurrentHashMap<>() : null;
  }

  /**
   * Tokens in this object's memory: every check is refused until {@link #issue} gives a session one. For one process;
   * use {@link #signed(byte[])} when several instances serve the same sessions or tokens must outlive a restart.
   */
  public static SessionTokens create() {
    return new SessionTokens(null);
  }

  /**
   * Signed tokens under {@code key}, valid for 12 hours, with revocations in this object's memory (see
   * {@link #builder()} to share them, rotate keys or change the lifetime).
   *
   * @param key the secret (at least 32 bytes from a secure random source), the same on every instance; copied
   * @throws IllegalArgumentException if {@code key} is shorter than 256 bits
   * @throws NullPointerException if {@code key} is null
   */
  public static SessionTokens signed(byte[] key) {
    return builder().key(key).build();
  }

  /** A builder of signed tokens; {@link Builder#key} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Issues a new token for {@code sessionId}.
   *
   * <p>In memory, it replaces any earlier token of the session (which stops working). Signed, earlier tokens stay
   * valid until they expire or are revoked (several pages of one session each have their own), and nothing is
   * written anywhere.
   *
   * @throws IllegalArgumentException if {@code sessionId} is blank
   * @throws NullPointerException if {@code sessionId} is null
   */
  public String issue(String sessionId) {
    requireSession(sessionId);
    if (signed != null) {
      return signed.issue(sessionId);
    }
    byte[] bits = new byte[BITS / 8];
    random.nextBytes(bits);
    String token = BaseEncoding.base64Url().omitPadding().encode(bits);
    tokens.put(sessionId, token.getBytes(StandardCharsets.US_ASCII));
    return token;
  }

  /**
   * The current token of {@code sessionId}, if one was issued in memory and not revoked. Always empty for signed
   * tokens, which are kept nowhere: keep the one {@link #issue} returned, or issue another.
   *
   * @throws NullPointerException if {@code sessionId} is null
   */
  public Optional<String> token(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    if (signed != null) {
      return Optional.empty();
    }
    byte[] t = tokens.get(sessionId);
    return t == null ? Optional.empty() : Optional.of(new String(t, StandardCharsets.US_ASCII));
  }

  /**
   * Revokes the tokens of {@code sessionId}: later checks are refused; streams already open stay open (they were
   * checked when they opened). In memory: the session's token, and true if there was one. Signed: every token of
   * the session issued until now, on every instance that reads the same {@link TokenRevocations} (tokens issued
   * later are valid), and always true; the record is kept for one TTL.
   *
   * @throws NullPointerException if {@code sessionId} is null
   * @throws RuntimeException what the revocations threw when they could not record it (then nothing was revoked;
   *     PostgreSQL's throw {@code StoreException})
   */
  public boolean revoke(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    if (signed != null) {
      Instant now = signed.clock().instant();
      signed.revocations().revokeSession(sessionId, now, now.plus(signed.ttl()));
      return true;
    }
    return tokens.remove(sessionId) != null;
  }

  /**
   * Revokes one token of {@code sessionId} (a page that signs out), leaving the session's other tokens valid.
   * Returns false and changes nothing if {@code token} would not be accepted for the session anyway (malformed,
   * another session's, forged, expired; in memory: not the current one). Signed, the token's id is recorded until the
   * token expires, on every instance that reads the same {@link TokenRevocations}.
   *
   * @throws NullPointerException if an argument is null
   * @throws RuntimeException what the revocations threw when they could not record it (then nothing was revoked)
   */
  public boolean revokeToken(String sessionId, String token) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(token, "token");
    if (signed != null) {
      SignedTokens.Claims claims = signed.verified(sessionId, token);
      if (claims == null || !signed.clock().instant().isBefore(claims.expiresAt())) {
        return false;
      }
      signed.revocations().revokeToken(claims.tokenId(), claims.expiresAt());
      return true;
    }
    byte[] current = tokens.get(sessionId);
    return current != null && MessageDigest.isEqual(current, token.getBytes(StandardCharsets.UTF_8))
        && tokens.remove(sessionId, current);
  }

  /** Whether {@code credential} is a token of the session that is valid now; false for a null argument. */
  @Override
  public boolean mayRead(String sessionId, String credential) {
    return matches(sessionId, credential);
  }

  /** The same check as {@link #mayRead}: the token both reads and decides. */
  @Override
  public boolean mayDecide(String sessionId, String credential) {
    return matches(sessionId, credential);
  }

  /** Why a signed credential is accepted or refused (tests); null in memory. */
  SignedTokens.Check check(String sessionId, String credential) {
    return signed == null || sessionId == null ? null : signed.check(sessionId, credential);
  }

  private boolean matches(String sessionId, String credential) {
    if (sessionId == null || credential == null) {
      return false;
    }
    if (signed != null) {
      return signed.check(sessionId, credential) == SignedTokens.Check.ACCEPTED;
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

  /** In memory: how many sessions have a token; signed: the key ids, the TTL and the revocations. Never a token. */
  @Override
  public String toString() {
    return signed != null ? "SessionTokens[" + signed + "]" : "SessionTokens[" + tokens.size() + " sessions]";
  }

  /**
   * Builds signed {@link SessionTokens}. Each option is checked when it is set, naming the parameter; the built
   * object keeps copies of the keys. Not thread-safe; the built object is.
   */
  public static final class Builder {
    private byte[] key;
    private final List<byte[]> previous = new ArrayList<>();
    private Duration ttl = SignedTokens.DEFAULT_TTL;
    private TokenRevocations revocations;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * The key that signs new tokens (required): at least 256 bits from a secure random source, the same on every
     * instance, kept secret like a password. Copied.
     *
     * @throws IllegalArgumentException if it is shorter than 256 bits
     */
    public Builder key(byte[] key) {
      SignedTokens.requireKey(key, "key");
      this.key = key.clone();
      return this;
    }

    /**
     * A key that signed tokens before (may be called several times): its tokens are still accepted until they
     * expire, and no new token uses it. To rotate, make the new key {@link #key} and the old one a previous key on
     * every instance; drop it once one TTL has passed. Copied.
     *
     * @throws IllegalArgumentException if it is shorter than 256 bits
     */
    public Builder previousKey(byte[] previousKey) {
      SignedTokens.requireKey(previousKey, "previousKey");
      previous.add(previousKey.clone());
      return this;
    }

    /**
     * How long a token is valid after it is issued (default 12 hours). Use the same on every instance: a session's
     * revocation is kept for one TTL.
     *
     * @throws IllegalArgumentException if it is shorter than a millisecond or longer than 366 days
     */
    public Builder ttl(Duration ttl) {
      Objects.requireNonNull(ttl, "ttl");
      if (ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(Duration.ofDays(366)) > 0) {
        throw new IllegalArgumentException("ttl must be between one millisecond and 366 days, was " + ttl);
      }
      this.ttl = ttl;
      return this;
    }

    /**
     * Where revocations are written and read (default: {@link TokenRevocations#inMemory(Clock)} on this builder's
     * clock, which reaches only this object). Give every instance the same store.
     */
    public Builder revocations(TokenRevocations revocations) {
      this.revocations = Objects.requireNonNull(revocations, "revocations");
      return this;
    }

    /** The clock of issue times and expiries (default: the system's, UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The tokens.
     *
     * @throws IllegalStateException if no {@link #key} was given
     * @throws IllegalArgumentException if the same key was given twice (as key and previous key, say)
     */
    public SessionTokens build() {
      if (key == null) {
        throw new IllegalStateException("key is required: at least 256 bits of secret random data, the same on every"
            + " instance");
      }
      List<byte[]> secrets = new ArrayList<>();
      List<String> names = new ArrayList<>();
      secrets.add(key);
      names.add("key");
      for (byte[] p : previous) {
        secrets.add(p);
        names.add("previousKey");
      }
      return new SessionTokens(new SignedTokens(secrets, names, ttl, clock,
          revocations != null ? revocations : TokenRevocations.inMemory(clock)));
    }
  }
}
