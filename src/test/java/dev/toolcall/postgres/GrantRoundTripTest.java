package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.RuntimeSnapshot;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.ArgumentPattern;
import dev.toolcall.permission.Grant;
import dev.toolcall.permission.GrantStore;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26, defect 1: a grant comes back exactly as it was made, through every form the library writes (a runtime
 * snapshot, a grant file, PostgreSQL). Before, the kind of a pattern was spelled inside its text: an exact grant on
 * the command {@code *} came back as any arguments (and approved {@code rm -rf /}), and one on
 * {@code redis-cli KEYS user:*} came back as the prefix {@code redis-cli KEYS user} (and approved
 * {@code redis-cli KEYS user:* --flush-all}, but no longer its own command).
 */
class GrantRoundTripTest {
  static final Instant T0 = Instant.parse("2026-11-26T09:00:00Z");
  private static final AtomicInteger SESSIONS = new AtomicInteger();
  private static DataSource db;
  private static PostgresCallStore store;

  static synchronized PostgresCallStore store() {
    if (store == null) {
      db = PgCluster.database("toolcall_grant_round_trip");
      store = PostgresCallStore.create(db);
      store.applySchema();
    }
    return store;
  }

  static Tool tool(String name) {
    return Tool.of(ToolDefinition.builder(name).build(), inv -> ToolResult.of("ran " + inv.arguments().raw()));
  }

  /** Every form a grant is written in, each read back by a fresh reader. */
  static List<Grant> throughEveryForm(Grant grant, Path dir) throws IOException {
    String session = "s" + SESSIONS.incrementAndGet();
    // A runtime snapshot, as JSON text, read back.
    RuntimeSnapshot.SessionGrant inSnapshot = new RuntimeSnapshot.SessionGrant(session, grant.id(), grant.toolName(),
        grant.arguments(), grant.createdAt(), grant.expiresAt());
    RuntimeSnapshot snapshot = new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, T0, List.of(), List.of(),
        List.of(inSnapshot));
    RuntimeSnapshot.SessionGrant read = RuntimeSnapshot.fromJson(snapshot.toJson()).sessionGrants().get(0);
    Grant fromSnapshot = new Grant(read.grantId(), read.toolName(), read.arguments(), read.createdAt(),
        read.expiresAt());
    // A grant file, opened by a new store.
    Path file = dir.resolve(session + ".json");
    GrantStore.jsonFile(file).add(grant);
    Grant fromFile = GrantStore.jsonFile(file).grants().get(0);
    // PostgreSQL's session grants, read by a new store on the same database.
    store().sessionGrants().add(session, grant);
    Grant fromPostgres = PostgresCallStore.create(db).sessionGrants().of(session).get(0);
    return List.of(fromSnapshot, fromFile, fromPostgres);
  }

  @Test
  void anExactGrantOnStarIsStillExactAfterARestart(@TempDir Path dir) throws IOException {
    Grant star = new Grant("g-star", "shell", ArgumentPattern.exact("*"), T0, null);
    for (Grant back : throughEveryForm(star, dir)) {
      assertThat(back).isEqualTo(star);
      assertThat(back.covers("shell", ToolArguments.ofText("rm -rf /"), T0)).isFalse();
      assertThat(back.covers("shell", ToolArguments.ofText("*"), T0)).isTrue();
    }
  }

  @Test
  void anExactGrantEndingInColonStarIsStillExactAfterARestart(@TempDir Path dir) throws IOException {
    Grant keys = new Grant("g-keys", "redis", ArgumentPattern.exact("redis-cli KEYS user:*"), T0, null);
    for (Grant back : throughEveryForm(keys, dir)) {
      assertThat(back).isEqualTo(keys);
      assertThat(back.covers("redis", ToolArguments.ofText("redis-cli KEYS user:* --flush-all"), T0)).isFalse();
      assertThat(back.covers("redis", ToolArguments.ofText("redis-cli KEYS user:*"), T0)).isTrue();
    }
  }

  /**
   * The defect as a user met it: a runtime holding a session grant on exactly {@code *} is snapshotted and restored
   * into a fresh runtime; there, {@code rm -rf /} asks for permission instead of running.
   */
  @Test
  void aRestoredRuntimeAsksForACommandItsExactGrantDoesNotCover() throws Exception {
    RuntimeSnapshot snapshot;
    try (ToolCallRuntime first = ToolCallRuntime.builder().tools(tool("shell")).build()) {
      first.permissions().addSessionGrant("s", new Grant("g", "shell", ArgumentPattern.exact("*"), T0, null));
      snapshot = RuntimeSnapshot.fromJson(first.snapshot().toJson());
    }
    try (ToolCallRuntime second = ToolCallRuntime.builder().tools(tool("shell")).build()) {
      second.restore(snapshot);
      PermissionService permissions = second.permissions();
      assertThat(permissions.sessionGrants("s")).extracting(Grant::arguments)
          .containsExactly(ArgumentPattern.exact("*"));
      Batch batch = second.schedule("s", List.of(CallRequest.of("c1", "shell", "{\"command\":\"rm -rf /\"}")));
      assertThat(permissions.awaitNext(Duration.ofSeconds(10))).as("rm -rf / asks").isPresent();
      assertThat(batch.calls().get(0).snapshot().state()).isEqualTo(ToolCallState.PERMISSION_PENDING);
    }
  }

  /**
   * Invariant: for any pattern kind and any value (hostile text included: {@code *}, {@code :*} endings,
   * backslashes, escape look-alikes, U+0000, lone surrogates, any code point), the grant read back from a runtime
   * snapshot, a grant file and PostgreSQL equals the grant written, so it covers exactly what it covered.
   */
  @Property(tries = 150)
  void everyPatternRoundTripsExactlyThroughEveryForm(@ForAll("grants") Grant grant) throws IOException {
    Path dir = Files.createTempDirectory("grant-round-trip");
    try {
      assertThat(throughEveryForm(grant, dir)).containsOnly(grant);
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Provide
  Arbitrary<Grant> grants() {
    Arbitrary<String> hostile = Arbitraries.oneOf(
        Arbitraries.of("*", ":*", "x:*", "redis-cli KEYS user:*", "\\", "\\\\", "\\u0000", "\\u00", "\u0000",
            "a\ud800b", "\udc00", "\ud83d\ude00", "\\ud800", "npm test:*:*", " ", "{\"match\":\"any\"}"),
        Arbitraries.strings().all().ofMinLength(1).ofMaxLength(40),
        Arbitraries.strings().withChars('*', ':', '\\', 'u', '0', '\u0000', '\ud800', '\udc00', ' ', 'a')
            .ofMinLength(1).ofMaxLength(12));
    Arbitrary<ArgumentPattern> patterns = Arbitraries.oneOf(Arbitraries.just(ArgumentPattern.ANY),
        hostile.map(ArgumentPattern::prefix), hostile.map(ArgumentPattern::exact));
    Arbitrary<Instant> expiry = Arbitraries.longs().between(1, 10_000_000).map(T0::plusSeconds).injectNull(0.3);
    return Combinators.combine(patterns, expiry).as((p, e) -> new Grant("g-" + UUID.randomUUID(), "shell", p,
        T0, e));
  }
}
