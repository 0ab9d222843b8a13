package dev.toolcall.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.AgentDirectory;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.wire.SessionTokens;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two clients answer one {@code input-required} task at the same moment (two threads released by one latch, over
 * real HTTP), 100 times: exactly one answer is taken (the task completes, the tool runs once), the other is refused
 * {@code -32004}. The window is the compare-and-set of the task's row.
 */
class A2aRaceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROUNDS = 100;

  @Test
  void ofTwoAnswersRacingForOneTaskExactlyOneIsTaken() throws Exception {
    A2aFixtures.Runs runs = new A2aFixtures.Runs();
    SessionTokens tokens = SessionTokens.create();
    String token = tokens.issue("ctx-race");
    HttpClient http = HttpClient.newHttpClient();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (ToolCallRuntime runtime = ToolCallRuntime.builder()
            .tools(A2aFixtures.tools(runs, Duration.ofHours(1))).build();
        AgentDirectory directory = AgentDirectory.builder(runtime, ConversationStore.inMemory(),
            id -> Agent.builder(A2aFixtures.model(), runtime)).build();
        A2aServer server = A2aServer.builder(runtime, directory).access(tokens).start()) {
      URI endpoint = server.endpointUri();
      List<String> bad = new ArrayList<>();
      for (int round = 0; round < ROUNDS; round++) {
        JsonNode task = call(http, endpoint, token, message("deploy r" + round, null, null)).path("result")
            .path("task");
        assertThat(task.path("status").path("state").asText()).isEqualTo("TASK_STATE_INPUT_REQUIRED");
        JsonNode interrupt = task.path("status").path("message").path("parts").get(1).path("data");
        ObjectNode answer = message(null, task.path("id").asText(), interrupt);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<JsonNode>> both = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          both.add(pool.submit(() -> {
            go.await();
            return call(http, endpoint, token, answer);
          }));
        }
        go.countDown();
        int taken = 0;
        int refused = 0;
        for (Future<JsonNode> f : both) {
          JsonNode r = f.get(30, TimeUnit.SECONDS);
          if (r.has("result") && r.path("result").path("task").path("status").path("state").asText()
              .equals("TASK_STATE_COMPLETED")) {
            taken++;
          } else if (r.path("error").path("code").asInt() == -32004) {
            refused++;
          }
        }
        if (taken != 1 || refused != 1) {
          bad.add("round " + round + ": " + taken + " taken, " + refused + " refused");
        }
      }
      assertThat(bad).isEmpty();
      assertThat(runs.deploy).hasValue(ROUNDS);
    } finally {
      pool.shutdownNow();
    }
  }

  private static ObjectNode message(String text, String taskId, JsonNode interrupt) {
    ObjectNode req = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", "SendMessage");
    ObjectNode m = req.putObject("params").putObject("message");
    m.put("messageId", java.util.UUID.randomUUID().toString()).put("role", "ROLE_USER").put("contextId", "ctx-race");
    if (taskId != null) {
      m.put("taskId", taskId);
      ObjectNode d = m.putArray("parts").addObject().putObject("data").put("v", 1);
      d.putArray("decisions").addObject().put("requestId", interrupt.path("requestId").asText())
          .put("argumentsVersion", interrupt.path("argumentsVersion").asInt()).put("decision", "approve_once");
    } else {
      m.putArray("parts").addObject().put("text", text);
    }
    return req;
  }

  private static JsonNode call(HttpClient http, URI endpoint, String token, ObjectNode body) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(endpoint).header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
        .build(), HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }
}
