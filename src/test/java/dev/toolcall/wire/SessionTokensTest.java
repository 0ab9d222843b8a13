package dev.toolcall.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, part 5: the embedded {@link SessionAccess}. A session's token reads and decides that session only;
 * another session's token, a wrong or truncated one, none, and a revoked or replaced one are refused. Tokens are 128
 * random bits (22 base64url characters) and do not repeat.
 */
class SessionTokensTest {

  @Test
  void aTokenOpensItsOwnSessionAndNoOther() {
    SessionTokens tokens = SessionTokens.create();
    String alice = tokens.issue("alice");
    String bob = tokens.issue("bob");
    assertThat(tokens.mayRead("alice", alice)).isTrue();
    assertThat(tokens.mayDecide("alice", alice)).isTrue();
    assertThat(tokens.mayRead("alice", bob)).as("another session's token").isFalse();
    assertThat(tokens.mayDecide("alice", bob)).as("another session's token").isFalse();
    assertThat(tokens.mayDecide("alice", null)).isFalse();
    assertThat(tokens.mayDecide("alice", "")).isFalse();
    assertThat(tokens.mayDecide("alice", alice.substring(0, alice.length() - 1))).isFalse();
    assertThat(tokens.mayDecide("alice", alice + "x")).isFalse();
    assertThat(tokens.mayDecide("carol", alice)).as("a session without a token").isFalse();
    assertThat(tokens.mayDecide(null, alice)).isFalse();

    String again = tokens.issue("alice");
    assertThat(tokens.mayDecide("alice", alice)).as("replaced").isFalse();
    assertThat(tokens.mayDecide("alice", again)).isTrue();
    assertThat(tokens.revoke("alice")).isTrue();
    assertThat(tokens.mayRead("alice", again)).as("revoked").isFalse();
    assertThat(tokens.token("bob")).contains(bob);
    assertThatThrownBy(() -> tokens.issue(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sessionId");
  }

  @Test
  void tokensAre128RandomBitsThatDoNotRepeat() {
    SessionTokens tokens = SessionTokens.create();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      String t = tokens.issue("s" + i);
      assertThat(t).matches("[A-Za-z0-9_-]{22}");
      assertThat(seen.add(t)).isTrue();
    }
    assertThat(SessionAccess.DENY_ALL.mayRead("s0", tokens.token("s0").orElseThrow())).isFalse();
  }
}
