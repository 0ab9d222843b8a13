package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Outcome;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolResult;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.wire.SessionTokens;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The page's token through a load balancer: two runtimes on one PostgreSQL, each with its own server and its own
 * {@link SessionTokens} built from the same key (what two processes have; nothing shared in memory). A token from A's
 * page URL decides on B; the same setup with in-memory tokens per instance is refused on B (403), as every instance but
 * the issuing one refused before; a revocation on A is refused on B, through {@link PostgresTokenRevocations}.
 */
class SignedTokensTwoInstancesTest {
  static final byte[] KEY = "a key of 32 bytes or more, secret".getBytes(StandardCharsets.US_ASCII);
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aTokenIssuedOnOneInstanceDecidesOnTheOtherUntilItIsRevoked() throws Exception {
    DataSource admin = PgCluster.database("toolcall_signed_two_instances");
    PostgresCallStore.create(admin).applySchema();
    List<String> ran = new CopyOnWriteArrayList<>();
    ToolCallRuntime a = runtime("a", ran);
    ToolCallRuntime b = runtime("b", ran);
    SessionTokens onA = instanceTokens();
    SessionTokens onB = instanceTokens();
    try (ApprovalServer serverA = ApprovalServer.builder(a).access(onA).start();
        ApprovalServer serverB = ApprovalServer.builder(b).access(onB).start();
        ApprovalServer inMemoryB = ApprovalServer.builder(b).access(SessionTokens.create()).start()) {
      Batch first = a.schedule("s", List.of(CallRequest.of("c1", "shell", "{\"command\":\"make\"}")));
      PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      String token = tokenOf(serverA.pageUrl("s"));

      assertThat(post(inMemoryB, token, asked).statusCode()).as("in-memory tokens: B does not know A's")
          .isEqualTo(403);
      HttpResponse<String> answer = post(serverB, token, asked);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      List<CallResult> results = first.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(results.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(((Outcome.Completed) results.get(0).snapshot().outcome()).content()).startsWith("ran make on ");
      assertThat(ran).hasSize(1);

      onA.revoke("s");
      Batch second = a.schedule("s", List.of(CallRequest.of("c2", "shell", "{\"command\":\"test\"}")));
      PermissionRequest again = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      assertThat(post(serverB, token, again).statusCode()).as("revoked on A, refused on B").isEqualTo(403);
      assertThat(a.permissions().request(again.requestId())).as("the refusal moved nothing").isPresent();
      String fresh = tokenOf(serverB.pageUrl("s"));
      assertThat(post(serverA, fresh, again).statusCode()).as("a token issued after the revocation").isEqualTo(200);
      second.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(ran).hasSize(2);
    } finally {
      a.close();
      b.close();
    }
  }

  /** What each instance builds from its configuration: the shared key, the shared revocations (no cache here). */
  private static SessionTokens instanceTokens() {
    DataSource db = TwoRuntimesTest.second("toolcall_signed_two_instances");
    return SessionTokens.builder().key(KEY)
        .revocations(PostgresTokenRevocations.builder(db).cacheTtl(Duration.ZERO).build()).build();
  }

  private HttpResponse<String> post(ApprovalServer server, String token, PermissionRequest r) throws Exception {
    return http.send(HttpRequest.newBuilder(server.baseUri().resolve("/api/sessions/s/decisions"))
        .header("Content-Type", "application/json").header("X-Toolcall-Token", token)
        .timeout(Duration.ofSeconds(20))
        .POST(HttpRequest.BodyPublishers.ofString("{\"requestId\":\"" + r.requestId()
            + "\",\"decision\":\"approve_once\",\"argumentsVersion\":" + r.argumentsVersion() + "}"))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String tokenOf(URI page) {
    String fragment = page.getRawFragment();
    for (String part : fragment.split("&")) {
      if (part.startsWith("token=")) {
        return URLDecoder.decode(part.substring("token=".length()), StandardCharsets.UTF_8);
      }
    }
    throw new AssertionError("no token in " + page);
  }

  private static ToolCallRuntime runtime(String name, List<String> ran) {
    DataSource db = Pool.of(TwoRuntimesTest.second("toolcall_signed_two_instances"), 4);
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      ran.add(name);
      return ToolResult.of("ran " + inv.arguments().asJson().path("command").asText() + " on " + name);
    });
    return ToolCallRuntime.builder().tools(shell)
        .sharedStore(PostgresCallStore.create(db).shared(name, Duration.ofSeconds(30))).build();
  }
}
