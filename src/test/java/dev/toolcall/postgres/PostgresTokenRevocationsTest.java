package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.testing.Logs;
import dev.toolcall.wire.SessionTokens;
import dev.toolcall.wire.TokenRevocations;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import dev.toolcall.testing.MovableClock;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Revocations of signed session tokens in PostgreSQL ({@link PgCluster}'s throwaway server, a database of its own),
 * between two "instances" (each its own {@link SessionTokens} and {@link PostgresTokenRevocations} on the same
 * database and key): a revocation on one is refused on the other, at once without a cache and within the cache's
 * TTL with one (by the injected clock, no sleeps), and after a restart; a check is one read of the primary key's
 * index; rows go once no token they refuse can be valid; a database that cannot be read refuses (fails closed).
 */
class PostgresTokenRevocationsTest {
  static final Instant T0 = Instant.parse("2026-11-26T09:00:00Z");
  static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static DataSource db;

  @BeforeAll
  static void database() {
    db = PgCluster.database("toolcall_token_revocations");
    PostgresCallStore.create(db).applySchema();
  }

  static SessionTokens instance(TokenRevocations revocations, Clock clock) {
    return SessionTokens.builder().key(KEY).clock(clock).revocations(revocations).build();
  }

  @Test
  void aRevocationOnOneInstanceIsRefusedOnTheOtherAndAfterARestart() {
    MovableClock clock = new MovableClock(T0);
    SessionTokens a = instance(PostgresTokenRevocations.builder(db).clock(clock).cacheTtl(Duration.ZERO).build(),
        clock);
    SessionTokens b = instance(PostgresTokenRevocations.builder(db).clock(clock).cacheTtl(Duration.ZERO).build(),
        clock);
    String page = a.issue("two-instances");
    String tab = a.issue("two-instances");
    String other = a.issue("another-session");
    assertThat(b.mayDecide("two-instances", page)).isTrue();
    clock.advance(Duration.ofSeconds(1));

    assertThat(a.revokeToken("two-instances", page)).isTrue();
    assertThat(b.mayRead("two-instances", page)).as("the revoked token, on the other instance").isFalse();
    assertThat(b.mayRead("two-instances", tab)).as("the session's other token").isTrue();

    assertThat(b.revoke("two-instances")).isTrue();
    assertThat(a.mayDecide("two-instances", tab)).as("the session's tokens, revoked on the other instance")
        .isFalse();
    assertThat(a.mayDecide("another-session", other)).isTrue();
    clock.advance(Duration.ofMillis(1));
    String fresh = b.issue("two-instances");
    assertThat(a.mayDecide("two-instances", fresh)).as("issued after the revocation").isTrue();

    SessionTokens restarted = instance(PostgresTokenRevocations.builder(db).clock(clock).build(), clock);
    assertThat(restarted.mayRead("two-instances", tab)).as("after a restart").isFalse();
    assertThat(restarted.mayRead("two-instances", page)).isFalse();
    assertThat(restarted.mayRead("two-instances", fresh)).isTrue();
  }

  @Test
  void withACacheARevocationReachesTheOtherInstanceWithinTheCacheTtl() {
    MovableClock clock = new MovableClock(T0);
    PostgresTokenRevocations onA = PostgresTokenRevocations.builder(db).clock(clock).build();
    PostgresTokenRevocations onB = PostgresTokenRevocations.builder(db).clock(clock)
        .cacheTtl(Duration.ofSeconds(2)).build();
    SessionTokens a = instance(onA, clock);
    SessionTokens b = instance(onB, clock);
    String token = a.issue("cached");
    assertThat(a.mayRead("cached", token)).isTrue(); // A caches "not revoked"
    assertThat(b.mayRead("cached", token)).isTrue(); // B too
    clock.advance(Duration.ofMillis(10));

    a.revoke("cached");
    assertThat(a.mayRead("cached", token)).as("on the instance that revoked: at once").isFalse();
    assertThat(b.mayRead("cached", token)).as("B's cached answer, within its TTL").isTrue();
    clock.advance(Duration.ofSeconds(2));
    assertThat(b.mayRead("cached", token)).as("B, once its cached answer has expired").isFalse();
    assertThat(onB.toString()).contains("cacheTtl PT2S").doesNotContain("cached\"");
  }

  /** Each check without a cached answer is one SELECT; with one, none; a revocation is one transaction. */
  @Test
  void aCheckIsOneReadOfThePrimaryKey() throws SQLException {
    MovableClock clock = new MovableClock(T0);
    RoundTripsTest.Wire wire = new RoundTripsTest.Wire();
    SessionTokens tokens = instance(PostgresTokenRevocations.builder(wire.over(db)).clock(clock).build(), clock);
    String token = tokens.issue("counted");
    wire.take();
    assertThat(tokens.mayRead("counted", token)).isTrue();
    assertThat(wire.take()).containsExactly("SELECT");
    assertThat(tokens.mayDecide("counted", token)).isTrue();
    assertThat(wire.take()).as("cached").isEmpty();
    assertThat(tokens.mayDecide("counted", "forged")).isFalse();
    assertThat(tokens.mayDecide("other", token)).isFalse();
    assertThat(wire.take()).as("a credential whose signature fails costs no read").isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(tokens.mayDecide("counted", token)).isTrue();
    assertThat(wire.take()).containsExactly("SELECT");
    tokens.revoke("counted");
    assertThat(wire.take()).containsExactly("DELETE", "INSERT", "COMMIT");

    // With many rows, the planner reads the primary key's index for the check's two keys.
    try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO toolcall_token_revocation (kind, subject, keep_until) SELECT 'token', 'filler-' || i,"
          + " now() + interval '1 day' FROM generate_series(1, 20000) i ON CONFLICT DO NOTHING");
      s.execute("ANALYZE toolcall_token_revocation");
      List<String> plan = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("EXPLAIN SELECT kind, issued_up_to FROM toolcall_token_revocation"
          + " WHERE (kind, subject) IN (('session', 'counted'), ('token', 'abc'))")) {
        while (rs.next()) {
          plan.add(rs.getString(1));
        }
      }
      assertThat(String.join("\n", plan)).contains("toolcall_token_revocation_pkey").doesNotContain("Seq Scan");
      s.execute("DELETE FROM toolcall_token_revocation WHERE subject LIKE 'filler-%'");
    }
  }

  @Test
  void rowsAreKeptUntilNoTokenTheyRefuseCanBeValidAndCutoffsNeverMoveBack() throws SQLException {
    MovableClock clock = new MovableClock(T0.plus(Duration.ofDays(30)));
    PostgresTokenRevocations revocations = PostgresTokenRevocations.builder(db).clock(clock)
        .cacheTtl(Duration.ZERO).build();
    SessionTokens tokens = SessionTokens.builder().key(KEY).clock(clock).revocations(revocations)
        .ttl(Duration.ofHours(1)).build();
    String old = tokens.issue("retention\0nul");
    clock.advance(Duration.ofMinutes(1));
    tokens.revoke("retention\0nul");
    tokens.revokeToken("retention\0nul", tokens.issue("retention\0nul"));
    assertThat(retained()).isEqualTo(2);
    assertThat(tokens.mayRead("retention\0nul", old)).isFalse();
    assertThat(tokens.mayRead("retention", old)).as("a session id differing by its NUL").isFalse();

    Instant cutoff = clock.instant();
    revocations.revokeSession("retention\0nul", cutoff.minus(Duration.ofMinutes(30)), cutoff);
    assertThat(revocations.isRevoked("retention\0nul", "x", cutoff)).as("an earlier cutoff changes nothing")
        .isTrue();
    assertThat(revocations.isRevoked("retention\0nul", "x", cutoff.plusMillis(1))).isFalse();

    clock.advance(Duration.ofHours(1));
    revocations.revokeToken("unrelated-" + clock.millis(), clock.instant().plusSeconds(60));
    assertThat(retained()).as("kept up to keep_until itself").isEqualTo(2);
    clock.advance(Duration.ofMillis(1));
    revocations.revokeToken("unrelated-" + clock.millis(), clock.instant().plusSeconds(60));
    assertThat(retained()).as("gone once no token they refuse can be valid").isZero();
  }

  @Test
  void aDatabaseThatCannotBeReadRefusesEveryToken() {
    PGSimpleDataSource down = new PGSimpleDataSource();
    down.setURL("jdbc:postgresql://127.0.0.1:1/postgres?user=toolcall&connectTimeout=2");
    PostgresTokenRevocations revocations = PostgresTokenRevocations.create(down);
    SessionTokens tokens = SessionTokens.builder().key(KEY).revocations(revocations).build();
    String token = tokens.issue("s");
    assertThat(tokens.mayRead("s", token)).isFalse();
    assertThat(tokens.mayDecide("s", token)).isFalse();
    assertThat(Logs.of(SessionTokens.class)).hasSize(1);
    assertThatThrownBy(() -> tokens.revoke("s")).isInstanceOfSatisfying(StoreException.class,
        e -> assertThat(e.getMessage()).contains("not sent"));
    assertThatThrownBy(() -> PostgresTokenRevocations.builder(db).cacheTtl(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("cacheTtl");
    assertThatThrownBy(() -> PostgresTokenRevocations.builder(db).maxCached(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxCached");
  }

  /** The rows of the retention test: its session's and its token's (not the unrelated ones that purge). */
  private static int retained() throws SQLException {
    try (Connection c = db.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM toolcall_token_revocation WHERE keep_until BETWEEN '"
            + T0.plus(Duration.ofDays(30)) + "' AND '" + T0.plus(Duration.ofDays(31)) + "'"
            + " AND subject NOT LIKE 'unrelated-%'")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
