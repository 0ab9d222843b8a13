package dev.toolcall.agui;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The embedded default {@link SessionAccess}: an unguessable per-session token, the HMAC-SHA256 of the session id
 * under a secret key. Nothing is stored, so a token stays valid across a restart and on every instance that has the
 * same key (give them one with {@link #withKey}); one session's token says nothing about another's. Compared in
 * constant time. Immutable and thread-safe.
 */
public final class SessionTokens implements SessionAccess {

  private final byte[] key;

  private SessionTokens(byte[] key) {
    this.key = key.clone();
  }

  /** Tokens under a fresh random 256-bit key: valid in this process only. */
  public static SessionTokens random() {
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    return new SessionTokens(k);
  }

  /**
   * Tokens under {@code key}: every instance with the same key issues and accepts the same tokens.
   *
   * @throws IllegalArgumentException if {@code key} is shorter than 16 bytes
   */
  public static SessionTokens withKey(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length < 16) {
      throw new IllegalArgumentException("key must have at least 16 bytes, has " + key.length);
    }
    return new SessionTokens(key);
  }

  /** The token of {@code sessionId}: 43 URL-safe characters. */
  public String token(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] h = mac.doFinal(sessionId.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(h);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  @Override
  public boolean permits(String sessionId, String credential) {
    if (sessionId == null || credential == null) {
      return false;
    }
    return MessageDigest.isEqual(token(sessionId).getBytes(StandardCharsets.US_ASCII),
        credential.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "SessionTokens[HmacSHA256]";
  }
}
