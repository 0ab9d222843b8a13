package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallState;
import dev.toolcall.testing.Logs;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 16, part 4: one runtime learns of another's stored changes through {@code LISTEN}/{@code NOTIFY} (a
 * separate {@code DataSource} writes, the feed hears every version), and when the feed's connection is killed
 * ({@code pg_terminate_backend}) it reconnects and re-scans, so a change made while it was down is still told.
 */
@ExtendWith(Logs.class)
class ChangeFeedTest {
  static DataSource listenerSide;
  static PostgresCallStore writer;

  @BeforeAll
  static void database() {
    listenerSide = PostgresCallStoreTest.named(PgCluster.database("toolcall_feed_test"), "toolcall-feed");
    writer = PostgresCallStore.create(PostgresCallStoreTest.named(listenerSide, "toolcall-writer"));
    writer.applySchema();
  }

  @SuppressWarnings("try") // the resource is held by the try, not used in it
  @Test
  void everyStoredVersionIsToldAndALostConnectionIsMadeUpFor() throws Exception {
    BlockingQueue<ChangeFeed.Change> heard = new LinkedBlockingQueue<>();
    try (ChangeFeed feed = ChangeFeed.start(listenerSide, heard::add, Duration.ofMillis(100))) {
      awaitListening(listenerSide, "toolcall-feed");
      StoredCall c = new StoredCall("s/1", "call:7", "shell", ToolCallState.PERMISSION_PENDING, 0, "{}");
      assertThat(writer.insert(c)).isTrue();
      StoredCall v1 = writer.compareAndSet(c, c.next(ToolCallState.PERMISSION_APPROVED, "{}")).current();
      assertThat(next(heard)).isEqualTo(new ChangeFeed.Change("s/1", "call:7", 0));
      assertThat(next(heard)).isEqualTo(new ChangeFeed.Change("s/1", "call:7", 1));

      Logs.expect(ChangeFeed.class);
      try (Connection admin = listenerSide.getConnection(); Statement s = admin.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
              + " WHERE application_name = 'toolcall-feed' AND query LIKE 'LISTEN%'")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
      writer.compareAndSet(v1, v1.next(ToolCallState.RUNNING, "{}")); // likely while the feed is down
      List<ChangeFeed.Change> after = new ArrayList<>();
      ChangeFeed.Change ch;
      while ((ch = heard.poll(20, TimeUnit.SECONDS)) != null) {
        after.add(ch);
        if (ch.version() == 2) {
          break;
        }
      }
      assertThat(after).as("the change made around the lost connection is told").last()
          .isEqualTo(new ChangeFeed.Change("s/1", "call:7", 2));
    }
  }

  /**
   * Each change of a conversation a reader sees is told on the same feed (schema version 5): a step taken, its
   * snapshot written back; a renewed hold is not (it changes nothing a reader sees), and a call's change still is.
   */
  @Test
  void takesAndWriteBacksOfAConversationAreToldButARenewalIsNot() throws Exception {
    BlockingQueue<Object> heard = new LinkedBlockingQueue<>();
    DataSource side = PostgresCallStoreTest.named(listenerSide, "toolcall-feed-conv");
    var conversations = writer.conversations();
    String id = "conv:1/é";
    try (ChangeFeed feed = ChangeFeed.start(side, heard::add, heard::add, Duration.ofMillis(100));
        dev.toolcall.runtime.ToolCallRuntime rt = dev.toolcall.runtime.ToolCallRuntime.builder().build()) {
      awaitQuery(listenerSide, "toolcall-feed-conv", "LISTEN toolcall_conversation");
      var taken = (dev.toolcall.conversation.ConversationStore.Taken) conversations.take(id, "me",
          Duration.ofMinutes(1));
      assertThat(next(heard)).isEqualTo(new ChangeFeed.ConversationChange(id, taken.revision()));
      assertThat(conversations.renew(taken, Duration.ofMinutes(2))).isTrue();
      StoredCall c = new StoredCall("s", "after-renewal", "shell", ToolCallState.PERMISSION_PENDING, 0, "{}");
      assertThat(writer.insert(c)).isTrue();
      assertThat(next(heard)).as("the renewal before it is not told")
          .isEqualTo(new ChangeFeed.Change("s", "after-renewal", 0));
      var snapshot = dev.toolcall.conversation.Agent.builder(new ClusterModel(), rt).conversationId(id).build()
          .snapshot();
      assertThat(conversations.put(taken, snapshot)).isTrue();
      assertThat(next(heard)).isEqualTo(new ChangeFeed.ConversationChange(id, taken.revision() + 1));
    }
  }

  @Test
  void aMalformedPayloadIsIgnored() {
    Logs.expect(ChangeFeed.class);
    assertThat(ChangeFeed.parse("nonsense")).isNull();
    assertThat(ChangeFeed.parse("3:a/b4:c:d//9")).isEqualTo(new ChangeFeed.Change("a/b", "c:d/", 9));
    assertThat(ChangeFeed.parseConversation("nonsense")).isNull();
    assertThat(ChangeFeed.parseConversation("4:c/:\uD83D\uDE00/12"))
        .isEqualTo(new ChangeFeed.ConversationChange("c/:\uD83D\uDE00", 12));
  }

  private static <T> T next(BlockingQueue<T> q) throws InterruptedException {
    T c = q.poll(20, TimeUnit.SECONDS);
    assertThat(c).as("a change told within 20 s").isNotNull();
    return c;
  }

  /** Waits until the feed's connection has run LISTEN (bounded; a query, not a sleep). */
  static void awaitListening(DataSource db, String feedName) throws Exception {
    awaitQuery(db, feedName, "LISTEN%");
  }

  /** Waits until the last statement of the connection named {@code name} is like {@code like} (bounded). */
  static void awaitQuery(DataSource db, String name, String like) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try (Connection admin = db.getConnection(); Statement s = admin.createStatement()) {
      while (System.nanoTime() < deadline) {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity"
            + " WHERE application_name = '" + name + "' AND query LIKE '" + like + "'")) {
          rs.next();
          if (rs.getInt(1) == 1) {
            return;
          }
        }
      }
    }
    throw new AssertionError("the feed never listened");
  }
}
