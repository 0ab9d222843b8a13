package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.agui.Browser;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import dev.toolcall.wire.SessionTokens;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 4: the approval page open on instance A while the answer is given on instance B, two runtimes on
 * one PostgreSQL ({@link PgCluster}) each with its own server: A's page shows the request, B takes the decision, A's
 * page shows the call approved and run, once.
 */
class ApprovalPageTwoInstancesTest {

  @Test
  void anotherInstanceAnswersAndThePageShowsIt() throws Exception {
    DataSource admin = PgCluster.database("toolcall_page_two_instances");
    PostgresCallStore.create(admin).applySchema();
    List<String> ran = new CopyOnWriteArrayList<>();
    ToolCallRuntime a = runtime("a", ran);
    ToolCallRuntime b = runtime("b", ran);
    SessionTokens tokens = SessionTokens.create();   // one token service for both instances (a shared login)
    try (ApprovalServer onA = ApprovalServer.builder(a).access(tokens).start();
        ApprovalServer onB = ApprovalServer.builder(b).access(tokens).start();
        Browser browser = Browser.open()) {
      Batch batch = a.schedule("s", List.of(CallRequest.of("c1", "shell", "{\"command\":\"make\"}")));
      PermissionRequest asked = a.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      browser.go(onA.pageUrl("s"));
      browser.cardIn("c1", "permission_pending");

      HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              onB.baseUri().resolve("/api/sessions/s/decisions"))
          .header("Content-Type", "application/json").header("X-Toolcall-Token", tokens.token("s").orElseThrow())
          .POST(HttpRequest.BodyPublishers.ofString("{\"requestId\":\"" + asked.requestId()
              + "\",\"decision\":\"approve_once\",\"argumentsVersion\":" + asked.argumentsVersion() + "}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);

      browser.cardIn("c1", "completed");
      List<CallResult> results = batch.whenDone().toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(results.get(0).snapshot().state()).isEqualTo(ToolCallState.COMPLETED);
      assertThat(((Outcome.Completed) results.get(0).snapshot().outcome()).content()).startsWith("ran make on ");
      assertThat(ran).as("run once, on whichever instance claimed it").hasSize(1);
    } finally {
      a.close();
      b.close();
    }
  }

  private static ToolCallRuntime runtime(String name, List<String> ran) {
    DataSource db = Pool.of(TwoRuntimesTest.second("toolcall_page_two_instances"), 4);
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
      ran.add(name);
      return ToolResult.of("ran " + inv.arguments().asJson().path("command").asText() + " on " + name);
    });
    return ToolCallRuntime.builder().tools(shell)
        .sharedStore(PostgresCallStore.create(db).shared(name, Duration.ofSeconds(30))).build();
  }
}
