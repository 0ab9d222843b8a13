package dev.toolcall.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changes every runtime stores, told to this one as they commit: {@code LISTEN toolcall_call} on a connection of
 * its own (the schema's trigger sends one notification per stored version), on one daemon thread
 * ({@code toolcall-change-feed}); given a consumer of conversations, also {@code LISTEN toolcall_conversation} on the
 * same connection (one notification per step taken or stored, schema version 5). When that connection is lost, the feed reconnects and re-scans the rows changed
 * since shortly before it was last known to be listening (polling as the fallback), so a change made meanwhile is
 * still told; a change may then be told twice. Order comes from versions: a consumer keeps the highest version it has
 * seen of each call and ignores the others.
 *
 * <p>The consumer runs on the feed's thread, one change at a time; it should be quick (hand the change to an
 * executor) and must not throw: a {@link RuntimeException} it throws is logged at ERROR with the change and the feed
 * goes on; an {@link Error} ends the feed's thread. {@link #close()} stops the thread and closes the connection.
 *
 * <p>Failures never reach the caller: {@link #start} returns at once, and a database that is down (at start or later)
 * is retried every {@code wait}, with one WARN when the connection is lost and one INFO when the feed listens again.
 * A notification that is not in the trigger's form is skipped with a WARN. Thread-safe: {@link #close()} may be called
 * from any thread. What it does not tell: which state a version holds (read the row); and it tells each change at
 * least once, not exactly once.
 */
public final class ChangeFeed implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ChangeFeed.class);
  /** How far before the last moment it was listening the re-scan starts: covers the clocks of app and server. */
  private static final Duration RESCAN_MARGIN = Duration.ofSeconds(5);

  /**
   * One stored version of a call.
   *
   * @param sessionId the call's session
   * @param callId the call's id
   * @param version the version stored
   */
  public record Change(String sessionId, String callId, int version) {}

  /**
   * A change of a stored conversation: a step took it, or stored its snapshot (or its state was saved).
   *
   * @param conversationId the conversation
   * @param revision its revision after the change (a saved state keeps it; read the row to learn what changed)
   */
  public record ConversationChange(String conversationId, long revision) {}

  private final DataSource dataSource;
  private final Consumer<? super Change> consumer;
  /** Told of conversation changes, or null: the feed then does not listen for them. */
  private final Consumer<? super ConversationChange> conversations;
  private final long waitMillis;
  private final Thread thread;
  private volatile boolean closed;
  private volatile Connection connection;

  private ChangeFeed(DataSource dataSource, Consumer<? super Change> consumer,
      Consumer<? super ConversationChange> conversations, Duration wait) {
    this.dataSource = dataSource;
    this.consumer = consumer;
    this.conversations = conversations;
    this.waitMillis = Math.max(1, wait.toMillis());
    this.thread = new Thread(this::loop, "toolcall-change-feed");
    this.thread.setDaemon(true);
  }

  /**
   * Starts a feed: its thread connects, listens and tells {@code consumer} each change from then on (no change made
   * before it listened, except by the re-scan after a lost connection). Returns before the first connection.
   *
   * @param wait how long one wait for notifications lasts, and how long the feed waits before reconnecting after a
   *     lost connection (say 500 ms)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code wait} is not positive
   */
  public static ChangeFeed start(DataSource dataSource, Consumer<? super Change> consumer, Duration wait) {
    Objects.requireNonNull(consumer, "consumer");
    return start(dataSource, consumer, null, wait);
  }

  /**
   * Starts a feed of calls and conversations: as {@link #start(DataSource, Consumer, Duration)}, and on the same
   * connection and thread, {@code conversations} is told each change of a stored conversation (a re-scan after a lost
   * connection tells those whose snapshot was stored meanwhile; a step taken meanwhile without one is not re-told).
   * Needs schema version 5 ({@link PostgresCallStore#applySchema()}); on an older schema no conversation is told.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code wait} is not positive
   */
  public static ChangeFeed start(DataSource dataSource, Consumer<? super Change> consumer,
      Consumer<? super ConversationChange> conversations, Duration wait) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(wait, "wait");
    if (wait.isNegative() || wait.isZero()) {
      throw new IllegalArgumentException("wait must be positive, was " + wait);
    }
    ChangeFeed f = new ChangeFeed(dataSource, consumer, conversations, wait);
    f.thread.start();
    return f;
  }

  private void loop() {
    Instant listening = null; // the last moment the feed was known to be listening
    boolean warned = false;
    while (!closed) {
      try {
        Connection c = connection;
        if (c == null) {
          c = dataSource.getConnection();
          connection = c;
          try (Statement s = c.createStatement()) {
            s.execute("LISTEN toolcall_call");
            if (conversations != null) {
              s.execute("LISTEN toolcall_conversation");
            }
          }
          if (listening != null) {
            rescan(c, listening.minus(RESCAN_MARGIN));
          }
          if (warned) {
            log.info("change feed listening again");
            warned = false;
          }
        }
        listening = Instant.now();
        PGNotification[] ns = c.unwrap(PGConnection.class).getNotifications((int) Math.min(waitMillis,
            Integer.MAX_VALUE));
        if (ns != null) {
          for (PGNotification n : ns) {
            if (n.getName().equals("toolcall_conversation")) {
              tell(conversations, parseConversation(n.getParameter()));
            } else {
              tell(consumer, parse(n.getParameter()));
            }
          }
        }
      } catch (SQLException e) {
        closeQuietly();
        if (closed) {
          return;
        }
        if (!warned) {
          log.warn("change feed lost its connection ({}); reconnecting, then re-scanning what changed meanwhile",
              e.getMessage());
          warned = true;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(waitMillis)); // back off before reconnecting
      }
    }
  }

  /** Tells every row changed since {@code since}, oldest first. */
  private void rescan(Connection c, Instant since) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT session_id, call_id, version FROM toolcall_call"
        + " WHERE updated_at >= ? ORDER BY updated_at, seq")) {
      ps.setTimestamp(1, Timestamp.from(since));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Change ch;
          try {
            ch = new Change(Nul.unescape(rs.getString(1)), Nul.unescape(rs.getString(2)), rs.getInt(3));
          } catch (IllegalArgumentException e) {
            continue; // a row with ids this version cannot read: the store names it when it is read
          }
          tell(consumer, ch);
        }
      }
    }
    if (conversations == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT conversation_id, revision FROM toolcall_conversation"
        + " WHERE updated_at >= ? ORDER BY updated_at")) {
      ps.setTimestamp(1, Timestamp.from(since));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ConversationChange ch;
          try {
            ch = new ConversationChange(Nul.unescape(rs.getString(1)), rs.getLong(2));
          } catch (IllegalArgumentException e) {
            continue; // an id this version cannot read: the store names it when it is read
          }
          tell(conversations, ch);
        }
      }
    } catch (SQLException e) {
      if (e.getSQLState() == null || !e.getSQLState().startsWith("42")) {
        throw e;
      } // a schema older than version 3 (no revision column): no conversation to re-tell
    }
  }

  /** {@code <len>:<conversation>/<revision>}, as the schema's trigger writes it; null if malformed. */
  static ConversationChange parseConversation(String payload) {
    try {
      int colon = payload.indexOf(':');
      int len = Integer.parseInt(payload.substring(0, colon));
      int slash = payload.offsetByCodePoints(colon + 1, len); // the server counts characters, not UTF-16 units
      if (payload.charAt(slash) != '/') {
        throw new IllegalArgumentException("no '/' after the conversation id");
      }
      return new ConversationChange(Nul.unescape(payload.substring(colon + 1, slash)),
          Long.parseLong(payload.substring(slash + 1)));
    } catch (RuntimeException e) {
      log.warn("change feed ignored a malformed notification '{}'", payload);
      return null;
    }
  }

  /** Hands {@code change} (null: a malformed notification, skipped) to {@code to}; a consumer's failure is logged. */
  private static <T> void tell(Consumer<? super T> to, T change) {
    if (change == null) {
      return;
    }
    try {
      to.accept(change);
    } catch (RuntimeException e) { // the consumer's bug must not stop the feed
      log.error("change feed consumer failed on {}; the feed goes on", change, e);
    }
  }

  /** {@code <len>:<session><len>:<call>/<version>}, as the schema's trigger writes it; null if malformed. */
  static Change parse(String payload) {
    try {
      int colon = payload.indexOf(':');
      int sl = Integer.parseInt(payload.substring(0, colon));
      int rest = payload.offsetByCodePoints(colon + 1, sl); // the server counts characters, not UTF-16 units
      String session = payload.substring(colon + 1, rest);
      int colon2 = payload.indexOf(':', rest);
      int cl = Integer.parseInt(payload.substring(rest, colon2));
      int slash = payload.offsetByCodePoints(colon2 + 1, cl);
      String call = payload.substring(colon2 + 1, slash);
      if (payload.charAt(slash) != '/') {
        throw new IllegalArgumentException("no '/' after the call id");
      }
      int version = Integer.parseInt(payload.substring(slash + 1));
      return new Change(Nul.unescape(session), Nul.unescape(call), version);
    } catch (RuntimeException e) {
      log.warn("change feed ignored a malformed notification '{}'", payload);
      return null;
    }
  }

  private void closeQuietly() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        // lost already
      }
    }
  }

  /** Stops the feed's thread and closes its connection; waits up to five seconds for the thread. Idempotent. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeQuietly();
  }
}
