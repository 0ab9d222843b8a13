package dev.toolcall.postgres;

import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import dev.toolcall.wire.TokenRevocations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The revocations of signed {@code dev.toolcall.wire.SessionTokens} in PostgreSQL (table
 * {@code toolcall_token_revocation}, created by {@link PostgresCallStore#applySchema()}), shared by every instance on
 * the database and kept across restarts: give each instance's {@code SessionTokens.builder().revocations(...)} one
 * of these on the same database.
 *
 * <p><b>Cost.</b> A check is at most one query, which reads the primary key's index for two keys (the session's
 * cutoff and the token's id). Its answer is cached on this instance for {@link Builder#cacheTtl} (default one
 * second; at most {@link Builder#maxCached} entries, least recently used dropped first), so a page's burst of
 * requests costs one read. <b>Reach:</b> a revocation made through this object is seen by its own checks at once (its
 * cache entries for that session or token are dropped); every other instance sees it within {@code cacheTtl} of the
 * commit. {@code Duration.ZERO} turns the cache off: every check reads the table.
 *
 * <p><b>Retention.</b> A row is kept until its {@code keep_until} (the last expiry of a token it refuses); each
 * revocation first deletes the rows past theirs (an index range scan on {@code keep_until}), so the table holds only
 * rows that can still refuse a token. Revocations only add: a session's cutoff never moves back.
 *
 * <p><b>Failures.</b> A check or a revocation the database fails throws {@link StoreException}; {@code SessionTokens}
 * then refuses the credential (fails closed: an answer cached before the outage still counts until it expires) and
 * a revocation that threw was not recorded, or (with {@link StoreException#outcomeUnknown()}) may have been: both
 * writes are idempotent, so retry it. U+0000 in session ids is escaped as the call rows escape it.
 *
 * <p>Thread-safe; immutable configuration. Each operation takes its own connection from the {@link DataSource} (pass
 * a pooled one).
 */
public final class PostgresTokenRevocations implements TokenRevocations {
  private static final String SESSION = "session";
  private static final String TOKEN = "token";

  /** A check's key: the cache holds the table's answer for it. */
  private record Key(String sessionId, String tokenId) {}

  /** What the table holds for a key: the session's cutoff (null if none) and whether the token is revoked. */
  private record Answer(Instant sessionCutoff, boolean tokenRevoked) {}

  private final DataSource dataSource;
  private final Clock clock;
  private final Duration cacheTtl;
  private final int timeoutSeconds;
  private final Cache<Key, Answer> cache; // null when cacheTtl is zero
  /**
   * Counts this object's revocations: a read that began before one does not cache its answer, which may predate it
   * (else a check racing a local revocation could cache "not revoked" after the revocation dropped the entry).
   */
  private final java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();

  private PostgresTokenRevocations(Builder b) {
    this.dataSource = b.dataSource;
    this.clock = b.clock;
    this.cacheTtl = b.cacheTtl;
    this.timeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, b.statementTimeout.toSeconds()));
    Clock c = b.clock;
    this.cache = cacheTtl.isZero() ? null : CacheBuilder.newBuilder()
        .maximumSize(b.maxCached)
        .expireAfterWrite(cacheTtl.toNanos(), TimeUnit.NANOSECONDS)
        .ticker(new Ticker() {
          @Override
          public long read() {
            Instant now = c.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
          }
        })
        .build();
  }

  /**
   * Revocations on {@code dataSource}: answers cached for one second (at most 10,000), the system clock, each
   * statement limited to 10 seconds. Apply the schema first ({@link PostgresCallStore#applySchema()}).
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static PostgresTokenRevocations create(DataSource dataSource) {
    return builder(dataSource).build();
  }

  /**
   * A builder of revocations on {@code dataSource}.
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  @Override
  public void revokeSession(String sessionId, Instant issuedUpTo, Instant keepUntil) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(issuedUpTo, "issuedUpTo");
    Objects.requireNonNull(keepUntil, "keepUntil");
    write(SESSION, sessionId, issuedUpTo, keepUntil);
    writes.incrementAndGet();
    if (cache != null) {
      cache.asMap().keySet().removeIf(k -> k.sessionId().equals(sessionId));
    }
  }

  @Override
  public void revokeToken(String tokenId, Instant keepUntil) {
    Objects.requireNonNull(tokenId, "tokenId");
    Objects.requireNonNull(keepUntil, "keepUntil");
    write(TOKEN, tokenId, null, keepUntil);
    writes.incrementAndGet();
    if (cache != null) {
      cache.asMap().keySet().removeIf(k -> k.tokenId().equals(tokenId));
    }
  }

  /**
   * One read of the table (or the cached answer).
   *
   * @throws StoreException if the database cannot be read
   */
  @Override
  public boolean isRevoked(String sessionId, String tokenId, Instant issuedAt) {
    Key key = new Key(sessionId, tokenId);
    Answer answer = cache == null ? null : cache.getIfPresent(key);
    if (answer == null) {
      long before = writes.get();
      answer = read(key);
      if (cache != null && writes.get() == before) {
        cache.put(key, answer);
      }
    }
    return answer.tokenRevoked() || (answer.sessionCutoff() != null && !issuedAt.isAfter(answer.sessionCutoff()));
  }

  private Answer read(Key key) {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT kind, issued_up_to FROM toolcall_token_revocation WHERE (kind, subject) IN (('" + SESSION
            + "', ?), ('" + TOKEN + "', ?))")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, Nul.escape(key.sessionId()));
      ps.setString(2, Nul.escape(key.tokenId()));
      Instant cutoff = null;
      boolean token = false;
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (SESSION.equals(rs.getString(1))) {
            cutoff = rs.getTimestamp(2).toInstant();
          } else {
            token = true;
          }
        }
      }
      return new Answer(cutoff, token);
    } catch (SQLException e) {
      throw new StoreException("reading token revocations failed: " + e.getMessage(), e);
    }
  }

  /** Deletes the rows past their keep_until, then inserts or widens the row; one transaction. */
  private void write(String kind, String subject, Instant issuedUpTo, Instant keepUntil) {
    try (Connection c = Writes.writeConnection(dataSource)) {
      c.setAutoCommit(false);
      try (PreparedStatement purge = c.prepareStatement(
              "DELETE FROM toolcall_token_revocation WHERE keep_until < ?");
          PreparedStatement upsert = c.prepareStatement("INSERT INTO toolcall_token_revocation"
              + " (kind, subject, issued_up_to, keep_until) VALUES (?, ?, ?, ?) ON CONFLICT (kind, subject) DO UPDATE"
              + " SET issued_up_to = GREATEST(toolcall_token_revocation.issued_up_to, EXCLUDED.issued_up_to),"
              + " keep_until = GREATEST(toolcall_token_revocation.keep_until, EXCLUDED.keep_until)")) {
        purge.setQueryTimeout(timeoutSeconds);
        purge.setTimestamp(1, Timestamp.from(clock.instant()));
        purge.executeUpdate();
        upsert.setQueryTimeout(timeoutSeconds);
        upsert.setString(1, kind);
        upsert.setString(2, Nul.escape(subject));
        upsert.setTimestamp(3, issuedUpTo == null ? null : Timestamp.from(issuedUpTo));
        upsert.setTimestamp(4, Timestamp.from(keepUntil));
        upsert.executeUpdate();
        c.commit();
      } catch (SQLException e) {
        try {
          c.rollback();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("revoking session tokens failed: " + e.getMessage(), e, Writes.connectionLost(e));
    }
  }

  /** The cache's setting and size; never an id. */
  @Override
  public String toString() {
    return "PostgresTokenRevocations[cacheTtl " + cacheTtl + (cache == null ? "" : ", " + cache.size() + " cached")
        + "]";
  }

  /**
   * Builds {@link PostgresTokenRevocations}; each option is checked when it is set, naming the parameter. Not
   * thread-safe; the built object is.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private Duration cacheTtl = Duration.ofSeconds(1);
    private int maxCached = 10_000;
    private Clock clock = Clock.systemUTC();
    private Duration statementTimeout = Duration.ofSeconds(10);

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * How long a check's answer is reused on this instance (default one second): the longest a revocation made on
     * another instance takes to reach this one. {@code Duration.ZERO}: no cache, every check reads the table.
     *
     * @throws IllegalArgumentException if it is negative or longer than an hour
     */
    public Builder cacheTtl(Duration cacheTtl) {
      Objects.requireNonNull(cacheTtl, "cacheTtl");
      if (cacheTtl.isNegative() || cacheTtl.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("cacheTtl must be between zero and one hour, was " + cacheTtl);
      }
      this.cacheTtl = cacheTtl;
      return this;
    }

    /**
     * The most answers cached (default 10,000).
     *
     * @throws IllegalArgumentException if it is not positive
     */
    public Builder maxCached(int maxCached) {
      if (maxCached < 1) {
        throw new IllegalArgumentException("maxCached must be positive, was " + maxCached);
      }
      this.maxCached = maxCached;
      return this;
    }

    /** The clock of the cache's expiry and of the retention (default: the system's, UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The longest each statement may run (default 10 seconds; whole seconds, at least one).
     *
     * @throws IllegalArgumentException if it is not positive
     */
    public Builder statementTimeout(Duration statementTimeout) {
      Objects.requireNonNull(statementTimeout, "statementTimeout");
      if (statementTimeout.isNegative() || statementTimeout.isZero()) {
        throw new IllegalArgumentException("statementTimeout must be positive, was " + statementTimeout);
      }
      this.statementTimeout = statementTimeout;
      return this;
    }

    /** The revocations. Reads nothing until the first check. */
    public PostgresTokenRevocations build() {
      return new PostgresTokenRevocations(this);
    }
  }
}
