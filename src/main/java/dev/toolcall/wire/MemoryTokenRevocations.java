package dev.toolcall.wire;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link TokenRevocations#inMemory}: two concurrent maps. A check is two look-ups; each write first drops the records
 * whose {@code keepUntil} has passed (writes are rare, so the scan costs nothing that matters), so the maps hold only
 * records that can still refuse a token. Thread-safe: every update is one atomic map operation.
 */
final class MemoryTokenRevocations implements TokenRevocations {
  private record Cutoff(Instant issuedUpTo, Instant keepUntil) {}

  private final Clock clock;
  private final ConcurrentHashMap<String, Cutoff> sessions = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Instant> tokens = new ConcurrentHashMap<>();

  MemoryTokenRevocations(Clock clock) {
    this.clock = clock;
  }

  @Override
  public void revokeSession(String sessionId, Instant issuedUpTo, Instant keepUntil) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(issuedUpTo, "issuedUpTo");
    Objects.requireNonNull(keepUntil, "keepUntil");
    forgetExpired();
    sessions.merge(sessionId, new Cutoff(issuedUpTo, keepUntil), (old, now) -> new Cutoff(
        max(old.issuedUpTo(), now.issuedUpTo()), max(old.keepUntil(), now.keepUntil())));
  }

  @Override
  public void revokeToken(String tokenId, Instant keepUntil) {
    Objects.requireNonNull(tokenId, "tokenId");
    Objects.requireNonNull(keepUntil, "keepUntil");
    forgetExpired();
    tokens.merge(tokenId, keepUntil, MemoryTokenRevocations::max);
  }

  @Override
  public boolean isRevoked(String sessionId, String tokenId, Instant issuedAt) {
    if (tokens.containsKey(tokenId)) {
      return true;
    }
    Cutoff cutoff = sessions.get(sessionId);
    return cutoff != null && !issuedAt.isAfter(cutoff.issuedUpTo());
  }

  private void forgetExpired() {
    Instant now = clock.instant();
    sessions.values().removeIf(c -> c.keepUntil().isBefore(now));
    tokens.values().removeIf(until -> until.isBefore(now));
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  /** How many records are kept; never shows an id. */
  @Override
  public String toString() {
    return "TokenRevocations.inMemory[" + sessions.size() + " sessions, " + tokens.size() + " tokens]";
  }
}
