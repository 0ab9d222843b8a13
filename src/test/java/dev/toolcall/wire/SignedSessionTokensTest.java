package dev.toolcall.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.testing.Logs;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import dev.toolcall.testing.MovableClock;
import org.junit.jupiter.api.Test;

/**
 * Signed session tokens: any instance built with the same key accepts a token, before and after a restart; expired,
 * tampered, forged, another session's and another key's tokens are refused, each for its own reason; a rotated key
 * still verifies its tokens while new ones use the new key; revocations reach every instance that reads the same
 * store; builder errors name the parameter; {@code toString} shows neither a token nor a key. (Revocations through
 * PostgreSQL: {@code PostgresTokenRevocationsTest}; every mutation of a token: {@code SignedTokenProperties}.)
 */
class SignedSessionTokensTest {
  static final Instant T0 = Instant.parse("2026-11-26T09:00:00Z");

  static byte[] key(int seed) {
    byte[] k = new byte[32];
    new java.util.Random(seed).nextBytes(k);
    return k;
  }

  @Test
  void aTokenIssuedByOneInstanceOpensItsSessionOnAnotherAndAfterARestart() {
    SessionTokens a = SessionTokens.signed(key(1));
    SessionTokens b = SessionTokens.signed(key(1)); // another instance: the same key, read from its configuration
    String token = a.issue("alice");
    assertThat(token).matches("[A-Za-z0-9_-]{92}");
    assertThat(b.mayRead("alice", token)).isTrue();
    assertThat(b.mayDecide("alice", token)).isTrue();
    SessionTokens restarted = SessionTokens.signed(key(1));
    assertThat(restarted.mayDecide("alice", token)).as("after a restart").isTrue();
    assertThat(restarted.token("alice")).as("signed tokens are kept nowhere").isEmpty();
    assertThat(b.mayDecide("bob", token)).as("another session").isFalse();
    assertThat(b.check("bob", token)).isEqualTo(SignedTokens.Check.BAD_SIGNATURE);
    SessionTokens other = SessionTokens.signed(key(2));
    assertThat(other.mayRead("alice", token)).as("another key").isFalse();
    assertThat(other.check("alice", token)).isEqualTo(SignedTokens.Check.UNKNOWN_KEY);
    assertThat(a.issue("alice")).as("issuing again").isNotEqualTo(token);
    assertThat(b.mayDecide("alice", token)).as("signed: an earlier token stays valid").isTrue();
  }

  @Test
  void aTokenExpiresAtItsTtlByTheInjectedClock() {
    MovableClock clock = new MovableClock(T0);
    SessionTokens tokens = SessionTokens.builder().key(key(1)).clock(clock).build();
    String token = tokens.issue("s");
    clock.advance(Duration.ofHours(12).minusMillis(1));
    assertThat(tokens.mayRead("s", token)).as("default TTL: 12 hours").isTrue();
    clock.advance(Duration.ofMillis(1));
    assertThat(tokens.mayRead("s", token)).isFalse();
    assertThat(tokens.check("s", token)).isEqualTo(SignedTokens.Check.EXPIRED);
    assertThat(tokens.revokeToken("s", token)).as("an expired token needs no revocation").isFalse();

    SessionTokens shortLived = SessionTokens.builder().key(key(1)).clock(clock).ttl(Duration.ofMinutes(5)).build();
    String brief = shortLived.issue("s");
    clock.advance(Duration.ofMinutes(5).minusMillis(1));
    assertThat(tokens.mayDecide("s", brief)).as("the expiry is in the token: another TTL on the verifier").isTrue();
    clock.advance(Duration.ofMillis(1));
    assertThat(tokens.check("s", brief)).isEqualTo(SignedTokens.Check.EXPIRED);
  }

  @Test
  void tamperedForgedAndMalformedCredentialsAreRefusedWithoutThrowing() {
    MovableClock clock = new MovableClock(T0);
    SessionTokens tokens = SessionTokens.builder().key(key(1)).clock(clock).build();
    String token = tokens.issue("alice");
    byte[] bytes = Base64.getUrlDecoder().decode(token);

    // A longer life written into a valid token: the MAC no longer matches.
    byte[] extended = bytes.clone();
    ByteBuffer.wrap(extended).putLong(13, Long.MAX_VALUE);
    assertThat(tokens.check("alice", encode(extended))).isEqualTo(SignedTokens.Check.BAD_SIGNATURE);
    // Forged: the right key id, fresh claims, a random MAC.
    byte[] forged = bytes.clone();
    byte[] mac = new byte[32];
    new SecureRandom().nextBytes(mac);
    System.arraycopy(mac, 0, forged, 37, 32);
    assertThat(tokens.check("alice", encode(forged))).isEqualTo(SignedTokens.Check.BAD_SIGNATURE);
    // Signed with another key, relabelled with this key's id.
    byte[] foreign = Base64.getUrlDecoder().decode(SessionTokens.signed(key(2)).issue("alice"));
    System.arraycopy(bytes, 1, foreign, 1, 4);
    assertThat(tokens.check("alice", encode(foreign))).isEqualTo(SignedTokens.Check.BAD_SIGNATURE);
    // Another format version.
    byte[] v2 = bytes.clone();
    v2[0] = 2;
    assertThat(tokens.check("alice", encode(v2))).isEqualTo(SignedTokens.Check.MALFORMED);
    // Sessions that differ only where a lossy encoding would merge them.
    String lone = tokens.issue("a\uD800");
    assertThat(tokens.mayRead("a?", lone)).isFalse();
    assertThat(tokens.mayRead("a\uD800", lone)).isTrue();
    assertThat(tokens.mayRead("alic", token)).isFalse();
    assertThat(tokens.mayRead("alicee", token)).isFalse();

    List<String> malformed = new ArrayList<>(List.of("", " ", token.substring(1), token + "A", token + "=",
        token.substring(0, 91) + "=", token.replace('-', '+').replace('_', '/'), token.toLowerCase(),
        "é".repeat(92), "\0".repeat(92), SessionTokens.create().issue("alice")));
    malformed.removeIf(token::equals);
    for (String m : malformed) {
      assertThat(tokens.mayRead("alice", m)).as(m).isFalse();
      assertThat(tokens.mayDecide("alice", m)).as(m).isFalse();
    }
    assertThat(tokens.mayRead("alice", null)).isFalse();
    assertThat(tokens.mayDecide(null, token)).isFalse();
    assertThat(tokens.check("alice", "")).isEqualTo(SignedTokens.Check.MALFORMED);
    assertThat(tokens.mayDecide("alice", token)).as("the genuine one still opens").isTrue();
  }

  @Test
  void aRotatedKeyStillVerifiesItsTokensAndNewTokensUseTheNewKey() {
    SessionTokens before = SessionTokens.signed(key(1));
    String old = before.issue("s");
    SessionTokens rotated = SessionTokens.builder().key(key(2)).previousKey(key(1)).build();
    assertThat(rotated.mayDecide("s", old)).as("a token of the previous key").isTrue();
    String fresh = rotated.issue("s");
    assertThat(keyId(fresh)).as("the new key's id").isEqualTo(keyId(SessionTokens.signed(key(2)).issue("x")))
        .isNotEqualTo(keyId(old));
    assertThat(SessionTokens.signed(key(2)).mayDecide("s", fresh)).as("signed by the new key").isTrue();
    assertThat(before.check("s", fresh)).as("an instance not yet rotated").isEqualTo(SignedTokens.Check.UNKNOWN_KEY);
    SessionTokens dropped = SessionTokens.signed(key(2));
    assertThat(dropped.check("s", old)).as("the previous key dropped").isEqualTo(SignedTokens.Check.UNKNOWN_KEY);
    assertThat(SessionTokens.builder().key(key(3)).previousKey(key(2)).previousKey(key(1)).build()
        .mayRead("s", old)).as("several previous keys").isTrue();
  }

  @Test
  void revocationsReachEveryInstanceThatReadsTheSameStore() {
    MovableClock clock = new MovableClock(T0);
    TokenRevocations shared = TokenRevocations.inMemory(clock);
    SessionTokens a = SessionTokens.builder().key(key(1)).clock(clock).revocations(shared).build();
    SessionTokens b = SessionTokens.builder().key(key(1)).clock(clock).revocations(shared).build();
    String first = a.issue("s");
    String second = a.issue("s");
    String other = a.issue("t");
    clock.advance(Duration.ofSeconds(1));

    assertThat(a.revokeToken("s", first)).isTrue();
    assertThat(b.check("s", first)).isEqualTo(SignedTokens.Check.REVOKED);
    assertThat(b.mayDecide("s", second)).as("the session's other token").isTrue();
    assertThat(a.revokeToken("t", second)).as("another session's token").isFalse();
    assertThat(a.revokeToken("s", "nonsense")).isFalse();

    assertThat(a.revoke("s")).isTrue();
    assertThat(b.check("s", second)).isEqualTo(SignedTokens.Check.REVOKED);
    assertThat(b.mayRead("t", other)).as("another session").isTrue();
    String sameMillisecond = b.issue("s");
    assertThat(b.check("s", sameMillisecond)).as("issued in the millisecond of the revocation: refused too")
        .isEqualTo(SignedTokens.Check.REVOKED);
    clock.advance(Duration.ofMillis(1));
    String after = b.issue("s");
    assertThat(a.mayDecide("s", after)).as("issued after the revocation").isTrue();

    SessionTokens alone = SessionTokens.builder().key(key(1)).clock(clock).build();
    assertThat(alone.mayDecide("s", second)).as("its own in-memory revocations: not reached").isTrue();
  }

  @Test
  void revocationsAreForgottenOnlyOnceTheTokensTheyRefuseHaveExpired() {
    MovableClock clock = new MovableClock(T0);
    TokenRevocations revocations = TokenRevocations.inMemory(clock);
    SessionTokens tokens = SessionTokens.builder().key(key(1)).clock(clock).revocations(revocations)
        .ttl(Duration.ofHours(1)).build();
    String one = tokens.issue("s");
    tokens.revokeToken("s", one);
    tokens.revoke("s");
    assertThat(revocations.toString()).contains("1 sessions, 1 tokens");
    clock.advance(Duration.ofHours(1));
    tokens.revokeToken("s", tokens.issue("s")); // a write forgets what has passed its keepUntil
    assertThat(revocations.toString()).contains("1 sessions, 2 tokens"); // kept up to the instant itself
    clock.advance(Duration.ofMillis(1));
    tokens.revokeToken("s", tokens.issue("s"));
    assertThat(revocations.toString()).contains("0 sessions, 2 tokens");
  }

  @Test
  void aRevocationStoreThatCannotBeReadRefusesAndLogsOnce() {
    AtomicBoolean down = new AtomicBoolean(true);
    TokenRevocations failing = new TokenRevocations() {
      @Override
      public void revokeSession(String sessionId, Instant issuedUpTo, Instant keepUntil) {}

      @Override
      public void revokeToken(String tokenId, Instant keepUntil) {}

      @Override
      public boolean isRevoked(String sessionId, String tokenId, Instant issuedAt) {
        if (down.get()) {
          throw new IllegalStateException("database down");
        }
        return false;
      }
    };
    SessionTokens tokens = SessionTokens.builder().key(key(1)).revocations(failing).build();
    String token = tokens.issue("s");
    for (int i = 0; i < 5; i++) {
      assertThat(tokens.mayRead("s", token)).isFalse();
    }
    assertThat(tokens.check("s", token)).isEqualTo(SignedTokens.Check.REVOCATIONS_FAILED);
    down.set(false);
    assertThat(tokens.mayRead("s", token)).isTrue();
    List<Logs.Entry> logged = Logs.of(SessionTokens.class);
    assertThat(logged).as("one WARN for the outage").hasSize(1);
    assertThat(logged.get(0).message()).contains("refusing session tokens");
  }

  @Test
  void builderErrorsNameTheParameter() {
    assertThatThrownBy(() -> SessionTokens.signed(new byte[31])).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must be at least 256 bits").hasMessageContaining("was 248 bits");
    assertThatThrownBy(() -> SessionTokens.builder().key(key(1)).previousKey(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("previousKey must be at least 256 bits");
    assertThatThrownBy(() -> SessionTokens.signed(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> SessionTokens.builder().build()).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("key is required");
    assertThatThrownBy(() -> SessionTokens.builder().key(key(1)).previousKey(key(1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("previousKey is the same key");
    assertThatThrownBy(() -> SessionTokens.builder().ttl(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("ttl must be");
    assertThatThrownBy(() -> SessionTokens.builder().ttl(Duration.ofDays(367)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("ttl must be");
    assertThatThrownBy(() -> SessionTokens.signed(key(1)).issue(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sessionId");
    assertThatThrownBy(() -> SessionTokens.signed(key(1)).revokeToken("s", null))
        .isInstanceOf(NullPointerException.class).hasMessage("token");
  }

  @Test
  void theKeyIsCopiedAndToStringShowsNeitherKeyNorToken() {
    byte[] k = key(1);
    SessionTokens tokens = SessionTokens.builder().key(k).previousKey(key(2)).ttl(Duration.ofHours(1)).build();
    String token = tokens.issue("s");
    String shown = tokens.toString();
    java.util.Arrays.fill(k, (byte) 0);
    assertThat(tokens.mayRead("s", token)).as("the caller wiping its array changes nothing").isTrue();
    assertThat(shown).startsWith("SessionTokens[signed, key ").contains("previous keys ").contains("ttl PT1H")
        .doesNotContain(token).doesNotContain(token.substring(0, 20));
    byte[] original = key(1);
    for (String form : List.of(Base64.getEncoder().encodeToString(original),
        Base64.getUrlEncoder().withoutPadding().encodeToString(original), java.util.HexFormat.of().formatHex(original),
        java.util.Arrays.toString(original))) {
      assertThat(shown).doesNotContain(form.substring(0, 12));
    }
  }

  @Test
  void inMemoryTokensCanBeRevokedOneByOne() {
    SessionTokens tokens = SessionTokens.create();
    String t = tokens.issue("s");
    assertThat(tokens.revokeToken("s", t + "x")).isFalse();
    assertThat(tokens.mayRead("s", t)).isTrue();
    assertThat(tokens.revokeToken("s", t)).isTrue();
    assertThat(tokens.mayRead("s", t)).isFalse();
    assertThat(tokens.revokeToken("s", t)).isFalse();
    assertThat(tokens.check("s", t)).as("no signed check in memory").isNull();
  }

  /**
   * Checks on several threads at once (each MAC on its own clone): 100 rounds of four threads released together, each
   * checking valid and wrong tokens; one wrong answer fails.
   */
  @Test
  void concurrentChecksAnswerEachCredentialRightly() throws Exception {
    SessionTokens tokens = SessionTokens.signed(key(1));
    List<String> sessions = new ArrayList<>();
    List<String> issued = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      sessions.add("s" + i);
      issued.add(tokens.issue("s" + i));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      for (int round = 0; round < 100; round++) {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Set<String>>> wrong = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int shift = t;
          wrong.add(pool.submit(() -> {
            start.await();
            Set<String> bad = new HashSet<>();
            for (int i = 0; i < 50; i++) {
              int s = (i + shift) % 8;
              if (!tokens.mayDecide(sessions.get(s), issued.get(s))) {
                bad.add("refused " + s);
              }
              if (tokens.mayDecide(sessions.get(s), issued.get((s + 1) % 8))) {
                bad.add("accepted another's for " + s);
              }
            }
            return bad;
          }));
        }
        start.countDown();
        for (Future<Set<String>> f : wrong) {
          assertThat(f.get(30, TimeUnit.SECONDS)).isEmpty();
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static byte[] keyId(String token) {
    return java.util.Arrays.copyOfRange(Base64.getUrlDecoder().decode(token), 1, 5);
  }

  static String encode(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
