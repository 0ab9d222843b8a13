package dev.toolcall.wire;

import java.time.Clock;
import java.time.Instant;

/**
 * Where the revocations of signed {@link SessionTokens} are kept: a session's tokens issued up to an instant, or one
 * token by its id. A signed token is checked by its signature alone on any instance, so a revocation reaches an
 * instance only through this store: give every instance the same one ({@code dev.toolcall.postgres}'s
 * {@code PostgresTokenRevocations} keeps them in PostgreSQL); {@link #inMemory()} reaches only the instance that holds
 * it.
 *
 * <p>A record is needed only while a token it refuses could still be accepted otherwise: each write says until when
 * ({@code keepUntil}, the latest expiry of a token it refuses), and an implementation may forget the record after
 * that. Revocations only add: a session's cutoff never moves back, and a revoked token id stays revoked until its
 * {@code keepUntil}.
 *
 * <p>Implementations must be thread-safe. {@link #isRevoked} is asked once for every credential whose signature
 * verified, so it should cost at most one indexed read; it may throw when it cannot tell (the database is down), and
 * {@link SessionTokens} then refuses the credential (fails closed) and logs. A write that throws recorded nothing.
 */
public interface TokenRevocations {

  /**
   * Refuses from now on every token of {@code sessionId} issued at or before {@code issuedUpTo}. A later cutoff
   * replaces an earlier one; an earlier one changes nothing.
   *
   * @param keepUntil when the record may be forgotten: no token it refuses is valid after it
   * @throws NullPointerException if an argument is null
   */
  void revokeSession(String sessionId, Instant issuedUpTo, Instant keepUntil);

  /**
   * Refuses from now on the token whose id is {@code tokenId} (idempotent).
   *
   * @param keepUntil when the record may be forgotten: the token's expiry
   * @throws NullPointerException if an argument is null
   */
  void revokeToken(String tokenId, Instant keepUntil);

  /**
   * Whether the token {@code tokenId} of {@code sessionId}, issued at {@code issuedAt}, is revoked: by its id, or by a
   * cutoff of its session at or after {@code issuedAt}.
   */
  boolean isRevoked(String sessionId, String tokenId, Instant issuedAt);

  /**
   * Revocations in this object's memory, forgotten at their {@code keepUntil} by the system clock: they reach only the
   * {@link SessionTokens} that use this object, and not after a restart.
   */
  static TokenRevocations inMemory() {
    return new MemoryTokenRevocations(Clock.systemUTC());
  }

  /** As {@link #inMemory()}, forgetting records by {@code clock}. */
  static TokenRevocations inMemory(Clock clock) {
    return new MemoryTokenRevocations(java.util.Objects.requireNonNull(clock, "clock"));
  }
}
