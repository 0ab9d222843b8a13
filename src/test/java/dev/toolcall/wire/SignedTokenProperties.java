package dev.toolcall.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Signed session tokens against every change. Invariants: no change of a valid token's bytes (any byte, any
 * non-zero XOR mask, or several bytes at once), no change of one of its characters, no truncation or extension
 * verifies, for reading or deciding; and no string at all (arbitrary characters, base64url of the right length)
 * makes a check throw or pass.
 */
class SignedTokenProperties {
  private static final SessionTokens TOKENS = SessionTokens.signed(SignedSessionTokensTest.key(7));
  private static final String SESSION = "session-7";
  private static final String TOKEN = TOKENS.issue(SESSION);
  private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  @Property(tries = 2000)
  void noChangeOfOneByteVerifies(@ForAll @IntRange(min = 0, max = 68) int at,
      @ForAll @IntRange(min = 1, max = 255) int mask) {
    byte[] bytes = Base64.getUrlDecoder().decode(TOKEN);
    bytes[at] ^= (byte) mask;
    assertRefused(SignedSessionTokensTest.encode(bytes));
  }

  @Property(tries = 500)
  void noChangeOfSeveralBytesVerifies(@ForAll @IntRange(min = 0, max = 68) int a,
      @ForAll @IntRange(min = 0, max = 68) int b, @ForAll @IntRange(min = 1, max = 255) int mask,
      @ForAll byte other) {
    byte[] bytes = Base64.getUrlDecoder().decode(TOKEN);
    bytes[a] ^= (byte) mask;
    bytes[b] = a == b ? bytes[b] : other;
    assertRefused(SignedSessionTokensTest.encode(bytes));
  }

  @Property(tries = 1000)
  void noChangeOfOneCharacterVerifies(@ForAll @IntRange(min = 0, max = 91) int at, @ForAll char replacement) {
    if (TOKEN.charAt(at) == replacement) {
      return;
    }
    assertRefused(TOKEN.substring(0, at) + replacement + TOKEN.substring(at + 1));
  }

  @Property(tries = 300)
  void noTruncationOrExtensionVerifies(@ForAll @IntRange(min = 0, max = 91) int keep, @ForAll("base64url") String tail) {
    assertRefused(TOKEN.substring(0, keep));
    assertRefused(TOKEN + tail.substring(0, Math.max(1, tail.length())));
    assertRefused(TOKEN.substring(0, keep) + tail);
  }

  @Property(tries = 1000)
  void noStringVerifiesOrThrows(@ForAll("anything") String credential) {
    assertRefused(credential);
  }

  @Provide
  Arbitrary<String> base64url() {
    return Arbitraries.strings().withChars(ALPHABET.toCharArray()).ofMinLength(1).ofMaxLength(100);
  }

  @Provide
  Arbitrary<String> anything() {
    return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(200),
        Arbitraries.strings().withChars(ALPHABET.toCharArray()).ofLength(92),
        Arbitraries.strings().withChars((ALPHABET + "=+/.").toCharArray()).ofMinLength(88).ofMaxLength(96));
  }

  private static void assertRefused(String credential) {
    if (credential.equals(TOKEN)) {
      return;
    }
    assertThat(TOKENS.mayRead(SESSION, credential)).as(credential).isFalse();
    assertThat(TOKENS.mayDecide(SESSION, credential)).as(credential).isFalse();
  }
}
