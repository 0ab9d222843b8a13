package dev.toolcall.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.ConversationState;
import dev.toolcall.ToolResult;
import dev.toolcall.agui.ApprovalServer;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.wire.SessionTokens;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The approval page on a session served through a directory, on another instance than the one whose turn suspended:
 * the page's stream lists the suspended turn's open request as the store holds it (no instance holds the call), with
 * the model's text; a decision posted there makes the turn go on (the tool runs once, the model answers), and a second
 * post of it is a 409.
 */
class PageThroughDirectoryTest {

  @Test
  void aPersonApprovesOnInstanceBATurnThatSuspendedOnInstanceA() throws Exception {
    String db = "toolcall_page_directory";
    PostgresCallStore.create(PgCluster.database(db)).applySchema();
    PostgresCallStore storeA = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(db), 4));
    PostgresCallStore storeB = PostgresCallStore.create(Pool.of(TwoRuntimesTest.second(db), 4));
    AtomicInteger runs = new AtomicInteger();
    Tool shell = Tool.of(ToolDefinition.builder("shell").description("Runs a command")
        .permissionTimeout(Duration.ofHours(1)).build(), inv -> {
          runs.incrementAndGet();
          return ToolResult.of("ran " + inv.arguments().asJson().path("command").asText());
        });
    byte[] key = new byte[32];
    java.util.Arrays.fill(key, (byte) 7);
    try (ToolCallRuntime a = ToolCallRuntime.builder().tools(shell).sharedStore(storeA.shared("a", Duration.ofSeconds(3)))
        .build();
        ToolCallRuntime b = ToolCallRuntime.builder().tools(shell).sharedStore(storeB.shared("b", Duration.ofSeconds(3)))
            .build();
        AgentDirectory dirA = AgentDirectory.builder(a, storeA.conversations(),
            id -> Agent.builder(new ClusterModel(), a)).build();
        AgentDirectory dirB = AgentDirectory.builder(b, storeB.conversations(),
            id -> Agent.builder(new ClusterModel(), b)).build()) {
      SessionTokens tokens = SessionTokens.signed(key);
      TurnResult asked = dirA.send("page-1", "deploy web").toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(asked.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
      String requestId = asked.interrupts().get(0).requestId();
      String token = tokens.issue("page-1");
      try (ApprovalServer server = ApprovalServer.builder(b).directory(dirB).access(tokens).start()) {
        HttpClient http = HttpClient.newHttpClient();
        URI base = URI.create("http://127.0.0.1:" + server.port());
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(
            base.resolve("/api/sessions/page-1/stream?token=" + token)).build(), HttpResponse.BodyHandlers.ofInputStream());
        JsonNode snapshot;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null && !line.startsWith("event: snapshot")) {
            // retry: and blank lines
          }
          String data = r.readLine();
          snapshot = new ObjectMapper().readTree(data.substring("data: ".length()));
        }
        JsonNode call = snapshot.path("calls").get(0);
        assertThat(call.path("request").path("requestId").asText()).isEqualTo(requestId);
        assertThat(call.path("toolName").asText()).isEqualTo("shell");
        assertThat(call.path("assistantText").asText()).isEqualTo("Deploying, with your approval.");
        assertThat(call.path("description").asText()).isEqualTo("Runs a command");

        String answer = "{\"requestId\":\"" + requestId + "\",\"decision\":\"approve_once\"}";
        HttpRequest post = HttpRequest.newBuilder(base.resolve("/api/sessions/page-1/decisions"))
            .header("Content-Type", "application/json").header("X-Toolcall-Token", token)
            .POST(HttpRequest.BodyPublishers.ofString(answer)).build();
        HttpResponse<String> won = http.send(post, HttpResponse.BodyHandlers.ofString());
        assertThat(won.statusCode()).as(won.body()).isEqualTo(200);
        assertThat(won.body()).contains("\"result\":\"won\"");
        assertThat(runs).hasValue(1);
        var stored = dirB.snapshot("page-1").orElseThrow();
        assertThat(stored.conversation().state()).isEqualTo(ConversationState.IDLE);
        assertThat(stored.messages().get(stored.messages().size() - 1))
            .isEqualTo(new AssistantMessage("done: [ran deploy web]", List.of()));

        HttpResponse<String> again = http.send(post, HttpResponse.BodyHandlers.ofString());
        assertThat(again.statusCode()).as(again.body()).isIn(404, 409);
        assertThat(runs).hasValue(1);
      }
    }
  }
}
