package dev.toolcall.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signed tokens of {@link SessionTokens#builder()}: issuing, verifying, revoking. Immutable after construction
 * and thread-safe (each MAC computation works on its own clone of a key's initialized {@link Mac}).
 *
 * <p>A token is 69 bytes, written in base64url without padding (92 characters; 69 is a multiple of 3, so every
 * 92-character string decodes to exactly one byte string and every byte string has one spelling):
 * <pre>
 *  0      format version (1: the token reads and decides its session)
 *  1..4   key id: the first 4 bytes of SHA-256(label, key), so no application names its keys
 *  5..12  issued at, milliseconds since the epoch (big-endian)
 *  13..20 expires at, milliseconds since the epoch
 *  21..36 token id: 128 bits from SecureRandom (what a revocation of one token names)
 *  37..68 HMAC-SHA256 under the key of bytes 0..36 followed by the session id (each UTF-16 code unit as two bytes,
 *         so every Java string, unpaired surrogates included, has its own encoding)
 * </pre>
 * The session id is bound, not carried: a token is checked against the session the request names. Verification reads
 * the structure, finds the key by its id, compares the MAC in constant time ({@link MessageDigest#isEqual}), then
 * checks the expiry and last asks the revocations (so a forged or expired credential costs no look-up). When the
 * revocations cannot be read the credential is refused: one WARN (logger {@code dev.toolcall.wire.SessionTokens})
 * when that starts, one INFO when it ends, DEBUG in between.
 */
final class SignedTokens {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SessionTokens.class);
  static final int MIN_KEY_BYTES = 32;
  static final Duration DEFAULT_TTL = Duration.ofHours(12);
  static final int LENGTH = 69;
  static final int CHARS = 92;
  private static final byte FORMAT = 1;
  private static final int CLAIMS = 37;
  private static final int ID_AT = 21;
  private static final int ID_BYTES = 16;
  private static final byte[] KEY_ID_LABEL = "dev.toolcall.wire.SessionTokens key id\0"
      .getBytes(StandardCharsets.US_ASCII);
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

  /** What a check found; package-private so that tests can tell why a credential was refused. */
  enum Check { ACCEPTED, MALFORMED, UNKNOWN_KEY, BAD_SIGNATURE, EXPIRED, REVOKED, REVOCATIONS_FAILED }

  /** A token's fields once its MAC has been verified. */
  record Claims(int keyId, Instant issuedAt, Instant expiresAt, String tokenId) {}

  /** A key: its id and a MAC initialized with it, cloned for each use. Immutable. */
  private record Key(int id, Mac prototype) {
    Mac mac() {
      try {
        return (Mac) prototype.clone();
      } catch (CloneNotSupportedException e) {
        throw new IllegalStateException("HmacSHA256 of " + prototype.getProvider() + " cannot be cloned", e);
      }
    }
  }

  private final Key current;
  private final List<Key> previous;
  private final Map<Integer, Key> keys;
  private final Duration ttl;
  private final Clock clock;
  private final TokenRevocations revocations;
  private final SecureRandom random = new SecureRandom();
  /** Whether the last look-up of the revocations failed (so that an outage logs one WARN, not one per request). */
  private final java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * @param secrets the current key first, then the previous ones (already checked: at least 32 bytes each)
   * @throws IllegalArgumentException if two of the keys have the same id (the same key given twice)
   */
  SignedTokens(List<byte[]> secrets, List<String> parameterNames, Duration ttl, Clock clock,
      TokenRevocations revocations) {
    Map<Integer, Key> byId = new LinkedHashMap<>();
    for (int i = 0; i < secrets.size(); i++) {
      Key k = key(secrets.get(i));
      if (byId.putIfAbsent(k.id(), k) != null) {
        throw new IllegalArgumentException(parameterNames.get(i) + " is the same key as one given before (key id "
            + hex(k.id()) + "): give each key once");
      }
    }
    this.keys = Map.copyOf(byId);
    List<Key> all = List.copyOf(byId.values());
    this.current = all.get(0);
    this.previous = all.subList(1, all.size());
    this.ttl = ttl;
    this.clock = clock;
    this.revocations = revocations;
  }

  private static Key key(byte[] secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.clone(); // fails here, at build time, if the provider's MAC cannot be cloned
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(KEY_ID_LABEL);
      byte[] digest = sha.digest(secret);
      return new Key(ByteBuffer.wrap(digest, 0, 4).getInt(), mac);
    } catch (GeneralSecurityException | CloneNotSupportedException e) {
      throw new IllegalStateException("this JVM has no usable HmacSHA256 or SHA-256: " + e.getMessage(), e);
    }
  }

  Duration ttl() {
    return ttl;
  }

  Clock clock() {
    return clock;
  }

  TokenRevocations revocations() {
    return revocations;
  }

  String issue(String sessionId) {
    Instant now = clock.instant();
    long issued = now.toEpochMilli();
    long expires = now.plus(ttl).toEpochMilli();
    byte[] token = new byte[LENGTH];
    ByteBuffer b = ByteBuffer.wrap(token);
    b.put(FORMAT).putInt(current.id()).putLong(issued).putLong(expires);
    byte[] id = new byte[ID_BYTES];
    random.nextBytes(id);
    b.put(id);
    b.put(mac(current, token, sessionId));
    return ENCODER.encodeToString(token);
  }

  /** Checks {@code credential} for {@code sessionId}; never throws (a failing revocation store is an answer). */
  Check check(String sessionId, String credential) {
    Claims claims = verified(sessionId, credential);
    if (claims == null) {
      return refusal(credential);
    }
    if (!clock.instant().isBefore(claims.expiresAt())) {
      return Check.EXPIRED;
    }
    boolean revoked;
    try {
      revoked = revocations.isRevoked(sessionId, claims.tokenId(), claims.issuedAt());
    } catch (RuntimeException e) {
      if (failing.compareAndSet(false, true)) {
        log.warn("refusing session tokens until the revocations can be read again ({}): {}", revocations,
            e.toString(), e);
      } else {
        log.debug("refused a session token: the revocations cannot be read ({})", e.toString());
      }
      return Check.REVOCATIONS_FAILED;
    }
    if (failing.compareAndSet(true, false)) {
      log.info("the revocations can be read again ({}): session tokens are checked again", revocations);
    }
    return revoked ? Check.REVOKED : Check.ACCEPTED;
  }

  /** The claims of {@code credential} if it is well formed and its MAC under a known key verifies; else null. */
  Claims verified(String sessionId, String credential) {
    byte[] token = decode(credential);
    if (token == null || token[0] != FORMAT) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(token);
    Key key = keys.get(b.getInt(1));
    if (key == null) {
      return null;
    }
    byte[] expected = mac(key, token, sessionId);
    byte[] given = java.util.Arrays.copyOfRange(token, CLAIMS, LENGTH);
    if (!MessageDigest.isEqual(expected, given)) {
      return null;
    }
    long issued = b.getLong(5);
    long expires = b.getLong(13);
    if (expires < issued) {
      return null; // only the key's holder could have made it; refused all the same
    }
    return new Claims(key.id(), Instant.ofEpochMilli(issued), Instant.ofEpochMilli(expires),
        ENCODER.encodeToString(java.util.Arrays.copyOfRange(token, ID_AT, ID_AT + ID_BYTES)));
  }

  /** Why an unverified credential was refused (tests only read it; the answer to a client is always just "no"). */
  private Check refusal(String credential) {
    byte[] token = decode(credential);
    if (token == null || token[0] != FORMAT) {
      return Check.MALFORMED;
    }
    if (!keys.containsKey(ByteBuffer.wrap(token).getInt(1))) {
      return Check.UNKNOWN_KEY;
    }
    return Check.BAD_SIGNATURE;
  }

  /** The bytes of a well-formed credential (92 base64url characters), else null. */
  private static byte[] decode(String credential) {
    if (credential == null || credential.length() != CHARS) {
      return null;
    }
    for (int i = 0; i < CHARS; i++) {
      char c = credential.charAt(i);
      boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      if (!ok) {
        return null;
      }
    }
    return Base64.getUrlDecoder().decode(credential);
  }

  private static byte[] mac(Key key, byte[] token, String sessionId) {
    Mac mac = key.mac();
    mac.update(token, 0, CLAIMS);
    byte[] session = new byte[sessionId.length() * 2];
    for (int i = 0; i < sessionId.length(); i++) {
      char c = sessionId.charAt(i);
      session[2 * i] = (byte) (c >>> 8);
      session[2 * i + 1] = (byte) c;
    }
    return mac.doFinal(session);
  }

  static String hex(int keyId) {
    return String.format("%08x", keyId);
  }

  /** The key ids, the TTL and the revocations; never a key or a token. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("signed, key ").append(hex(current.id()));
    if (!previous.isEmpty()) {
      s.append(", previous keys");
      previous.forEach(k -> s.append(' ').append(hex(k.id())));
    }
    return s.append(", ttl ").append(ttl).append(", ").append(revocations).toString();
  }

  static void requireKey(byte[] key, String parameter) {
    Objects.requireNonNull(key, parameter);
    if (key.length < MIN_KEY_BYTES) {
      throw new IllegalArgumentException(parameter + " must be at least 256 bits (32 bytes) of secret random data,"
          + " was " + key.length * 8 + " bits");
    }
  }
}
