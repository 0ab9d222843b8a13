package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.ToolArguments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A hand-edited grant file never widens a grant: every malformed field rejects the whole file, naming the entry and
 * the field ({@code any arguments} has one spelling, {@code *}). Two stores (two processes, in effect) sharing a file
 * keep each other's grants. Before: a restriction written as an object, an array or null was read as any arguments
 * ({@code {"prefix":"npm test"}} approved {@code rm -rf /}), and the second writer overwrote the first one's grants.
 */
class GrantFileTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @TempDir Path dir;

  private Path file(String grant) throws IOException {
    Path f = dir.resolve("grants.json");
    Files.writeString(f, "{\"version\":2,\"grants\":[" + grant + "]}");
    return f;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "arguments object | {'id':'g','tool':'shell','match':'prefix','arguments':{'prefix':'npm test'},'createdAt':'2026-01-01T00:00:00Z'} | field 'arguments' must be a string",
      "arguments array  | {'id':'g','tool':'shell','match':'exact','arguments':['npm test'],'createdAt':'2026-01-01T00:00:00Z'} | field 'arguments' must be a string",
      "arguments null   | {'id':'g','tool':'shell','match':'exact','arguments':null,'createdAt':'2026-01-01T00:00:00Z'} | field 'arguments' must be a string",
      "arguments number | {'id':'g','tool':'shell','match':'exact','arguments':7,'createdAt':'2026-01-01T00:00:00Z'} | field 'arguments' must be a string",
      "arguments absent | {'id':'g','tool':'shell','match':'prefix','createdAt':'2026-01-01T00:00:00Z'} | no field 'arguments'",
      "match absent     | {'id':'g','tool':'shell','arguments':'*','createdAt':'2026-01-01T00:00:00Z'} | no field 'match'",
      "match unknown    | {'id':'g','tool':'shell','match':'glob','arguments':'npm*','createdAt':'2026-01-01T00:00:00Z'} | field 'match'",
      "match object     | {'id':'g','tool':'shell','match':{'kind':'any'},'createdAt':'2026-01-01T00:00:00Z'} | field 'match' must be a string",
      "any with a value | {'id':'g','tool':'shell','match':'any','arguments':'npm test','createdAt':'2026-01-01T00:00:00Z'} | has no field 'arguments'",
      "prefix empty     | {'id':'g','tool':'shell','match':'prefix','arguments':'','createdAt':'2026-01-01T00:00:00Z'} | must not be empty",
      "tool object      | {'id':'g','tool':{'name':'shell'},'match':'any','createdAt':'2026-01-01T00:00:00Z'} | field 'tool' must be a string",
      "tool blank       | {'id':'g','tool':' ','match':'any','createdAt':'2026-01-01T00:00:00Z'} | is not a valid grant",
      "id absent        | {'tool':'shell','match':'any','createdAt':'2026-01-01T00:00:00Z'} | no field 'id'",
      "createdAt bad    | {'id':'g','tool':'shell','match':'any','createdAt':'yesterday'} | field 'createdAt' must be an ISO-8601 instant",
      "expiresAt number | {'id':'g','tool':'shell','match':'any','createdAt':'2026-01-01T00:00:00Z','expiresAt':0} | field 'expiresAt' must be a string",
      "unknown field    | {'id':'g','tool':'shell','match':'any','argument':'npm test:*','createdAt':'2026-01-01T00:00:00Z'} | unknown field 'argument'",
      "not an object    | 42 | must be an object",
  })
  void aMalformedEntryRejectsTheFileNamingTheEntryAndTheField(String what, String grant, String message)
      throws IOException {
    Path f = file(grant.replace('\'', '"'));
    assertThatThrownBy(() -> GrantStore.jsonFile(f)).as(what).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("grant #0").hasMessageContaining(message);
  }

  @Test
  void theStoresOwnSpellingsReadBack() throws IOException {
    Path f = file("{\"id\":\"a\",\"tool\":\"shell\",\"match\":\"any\",\"createdAt\":\"2026-01-01T00:00:00Z\"},"
        + "{\"id\":\"b\",\"tool\":\"shell\",\"match\":\"prefix\",\"arguments\":\"npm test\","
        + "\"createdAt\":\"2026-01-01T00:00:00Z\",\"expiresAt\":\"2026-02-01T00:00:00Z\"},"
        + "{\"id\":\"c\",\"tool\":\"redis\",\"match\":\"exact\",\"arguments\":\"*\","
        + "\"createdAt\":\"2026-01-01T00:00:00Z\"}");
    GrantStore store = GrantStore.jsonFile(f);
    assertThat(store.grants()).extracting(Grant::arguments).containsExactly(ArgumentPattern.ANY,
        ArgumentPattern.prefix("npm test"), ArgumentPattern.exact("*"));
    assertThat(store.find("shell", ToolArguments.ofText("rm -rf /"), T0)).map(Grant::id).contains("a");
    assertThat(store.find("redis", ToolArguments.ofText("FLUSHALL"), T0)).isEmpty();
  }

  /**
   * A version 1 file (one string spelled {@code *}, {@code prefix:*} or a command) still reads, never wider than it
   * was written: {@code *} and {@code x:*} could also have been those exact commands, so they are read as such, with
   * a warning naming the grant; the next change writes version 2. Before, {@code *} read back as any arguments.
   */
  @Test
  void aVersionOneFileReadsNeverWiderThanWritten() throws IOException {
    Path f = dir.resolve("old.json");
    Files.writeString(f, "{\"version\":1,\"grants\":[{\"id\":\"a\",\"tool\":\"shell\",\"arguments\":\"*\","
        + "\"createdAt\":\"2026-01-01T00:00:00Z\"},{\"id\":\"b\",\"tool\":\"redis\",\"arguments\":\"KEYS user:*\","
        + "\"createdAt\":\"2026-01-01T00:00:00Z\"},{\"id\":\"c\",\"tool\":\"shell\",\"arguments\":\"ls -la\","
        + "\"createdAt\":\"2026-01-01T00:00:00Z\"}]}");
    dev.toolcall.testing.Logs.expect(JsonFileGrantStore.class);
    GrantStore store = GrantStore.jsonFile(f);
    assertThat(dev.toolcall.testing.Logs.of(JsonFileGrantStore.class)).hasSize(2)
        .allSatisfy(e -> assertThat(e.message()).contains("version 1", "exact command"));
    assertThat(store.grants()).extracting(Grant::arguments).containsExactly(ArgumentPattern.exact("*"),
        ArgumentPattern.exact("KEYS user:*"), ArgumentPattern.exact("ls -la"));
    assertThat(store.find("shell", ToolArguments.ofText("rm -rf /"), T0)).isEmpty();
    assertThat(store.find("redis", ToolArguments.ofText("KEYS user:* --flush-all"), T0)).isEmpty();
    assertThat(store.find("redis", ToolArguments.ofText("KEYS user:*"), T0)).map(Grant::id).contains("b");
    store.revoke("c");
    assertThat(Files.readString(f)).contains("\"version\" : 2", "\"match\" : \"exact\"");
    assertThat(GrantStore.jsonFile(f).grants()).extracting(Grant::arguments)
        .containsExactly(ArgumentPattern.exact("*"), ArgumentPattern.exact("KEYS user:*"));
  }

  /**
   * Two stores on one file (as two processes would be), each adding grants from its own thread at the same time:
   * every grant of both ends in the file, and each store sees the other's. Revoking in one is seen by the other.
   */
  @Test
  void twoStoresOnOneFileKeepEachOthersGrants() throws Exception {
    Path f = dir.resolve("shared.json");
    GrantStore one = GrantStore.jsonFile(f);
    GrantStore two = GrantStore.jsonFile(f);
    int each = 40;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (GrantStore store : List.of(one, two)) {
        String prefix = store == one ? "one-" : "two-";
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < each; i++) {
            store.add(new Grant(prefix + i, "shell", ArgumentPattern.exact("make " + i), T0, null));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> d : done) {
        d.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(GrantStore.jsonFile(f).grants()).hasSize(2 * each);
    assertThat(one.grants()).hasSize(2 * each);
    assertThat(two.grants()).hasSize(2 * each);
    assertThat(one.revoke("two-3")).isTrue();
    assertThat(two.grants()).extracting(Grant::id).doesNotContain("two-3").hasSize(2 * each - 1);
    assertThat(two.revoke("two-3")).as("already revoked by the other store").isFalse();
  }
}
