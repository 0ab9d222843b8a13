package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCallState;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.permission.PermissionRequest;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 5: the embedded server refuses what is not the caller's, and a refusal moves nothing. Alice's turn
 * waits for an answer; Bob has a session and a token of his own. Each attack is refused with its status, and after
 * each one Alice's request is still open on the same arguments and nothing ran.
 */
class RemoteSecurityTest {
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final SessionTokens tokens = SessionTokens.create();
  Shell shell;
  ApprovalServer server;
  PermissionRequest alice;
  CompletableFuture<TurnResult> aliceTurn;
  String aliceToken;
  String bobToken;

  @BeforeEach
  void start() throws Exception {
    shell = new Shell(Duration.ofMinutes(5));
    server = ApprovalServer.builder(shell.runtime).access(tokens).agents(shell::agent).maxStreams(3)
        .maxBodyBytes(16 * 1024).start();
    aliceToken = tokens.issue("alice");
    bobToken = tokens.issue("bob");
    aliceTurn = shell.agent("alice").send("run cat secrets").toCompletableFuture();
    alice = shell.runtime.permissions().awaitNext(Duration.ofSeconds(20)).orElseThrow();
  }

  @AfterEach
  void stop() {
    server.close();
    shell.close();
  }

  void nothingMoved() {
    PermissionRequest now = shell.runtime.permissions().request(alice.requestId()).orElseThrow();
    assertThat(now.argumentsVersion()).isEqualTo(alice.argumentsVersion());
    assertThat(now.arguments().raw()).isEqualTo(alice.arguments().raw());
    assertThat(shell.ran).isEmpty();
    assertThat(aliceTurn).isNotDone();
  }

  HttpRequest.Builder decision(String session, String token, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(server.baseUri().resolve("/api/sessions/" + session + "/decisions"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    return token == null ? b : b.header("X-Toolcall-Token", token);
  }

  String approve(PermissionRequest r) {
    return "{\"requestId\":\"" + r.requestId() + "\",\"decision\":\"approve_once\"}";
  }

  HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
    return http.send(b.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void anotherSessionsTokenReadsAndDecidesNothing() throws Exception {
    assertThat(send(decision("alice", bobToken, approve(alice))).statusCode()).isEqualTo(403);
    assertThat(send(HttpRequest.newBuilder(server.baseUri().resolve("/api/sessions/alice/stream?token=" + bobToken)))
        .statusCode()).isEqualTo(403);
    assertThat(send(HttpRequest.newBuilder(server.aguiUri()).header("Content-Type", "application/json").header("Authorization", "Bearer " + bobToken)
        .POST(HttpRequest.BodyPublishers.ofString("{\"threadId\":\"alice\",\"runId\":\"r1\",\"messages\":[],"
            + "\"resume\":[{\"interruptId\":\"" + alice.requestId() + "\",\"status\":\"resolved\","
            + "\"payload\":{\"decision\":\"approve_once\"}}]}"))).statusCode()).isEqualTo(403);
    assertThat(send(decision("alice", null, approve(alice))).statusCode()).as("no token").isEqualTo(403);
    nothingMoved();
  }

  @Test
  void aForgedRequestIdIsUnknownWhetherItExistsElsewhereOrNot() throws Exception {
    HttpResponse<String> foreign = send(decision("bob", bobToken, approve(alice)));
    HttpResponse<String> made = send(decision("bob", bobToken,
        "{\"requestId\":\"perm-aaaaaaaaaaaaaaaaaaaaaaaaaa\",\"decision\":\"approve_once\"}"));
    assertThat(foreign.statusCode()).isEqualTo(404);
    assertThat(made.statusCode()).isEqualTo(404);
    assertThat(foreign.body().replace(alice.requestId(), "ID"))
        .as("Alice's id in Bob's session looks exactly like an id nobody made")
        .isEqualTo(made.body().replace("perm-aaaaaaaaaaaaaaaaaaaaaaaaaa", "ID"));
    // The AG-UI path: a resume naming Alice's request in Bob's thread ends in RUN_ERROR and decides nothing.
    HttpResponse<String> run = send(HttpRequest.newBuilder(server.aguiUri()).header("Content-Type", "application/json").header("Authorization", "Bearer " + bobToken)
        .POST(HttpRequest.BodyPublishers.ofString("{\"threadId\":\"bob\",\"runId\":\"r1\",\"messages\":[],"
            + "\"resume\":[{\"interruptId\":\"" + alice.requestId() + "\",\"status\":\"resolved\","
            + "\"payload\":{\"decision\":\"approve_once\"}}]}")));
    assertThat(run.body()).contains("\"type\":\"RUN_ERROR\"").contains("\"code\":\"unknown_request\"");
    nothingMoved();
  }

  @Test
  void aReplayedDecisionIsRefusedAndTheToolRunsOnce() throws Exception {
    HttpResponse<String> first = send(decision("alice", aliceToken, approve(alice)));
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(aliceTurn.get(20, TimeUnit.SECONDS).text()).isEqualTo("tool said: ran: cat secrets");

    HttpResponse<String> replay = send(decision("alice", aliceToken, approve(alice)));
    assertThat(replay.statusCode()).isEqualTo(409);
    assertThat(replay.body()).contains("already answered: permission_approved");
    HttpResponse<String> deny = send(decision("alice", aliceToken,
        "{\"requestId\":\"" + alice.requestId() + "\",\"decision\":\"deny\",\"reason\":\"changed my mind\"}"));
    assertThat(deny.statusCode()).isEqualTo(409);
    assertThat(shell.ran).containsExactly("cat secrets");
  }

  @Test
  void anOversizedBodyIsRefusedUnread() throws Exception {
    String big = "{\"requestId\":\"" + alice.requestId() + "\",\"decision\":\"deny\",\"reason\":\""
        + "x".repeat(20 * 1024) + "\"}";
    assertThat(send(decision("alice", aliceToken, big)).statusCode()).isEqualTo(413);
    assertThat(send(HttpRequest.newBuilder(server.aguiUri()).header("Content-Type", "application/json").header("Authorization", "Bearer " + aliceToken)
        .POST(HttpRequest.BodyPublishers.ofString(big))).statusCode()).isEqualTo(413);
    nothingMoved();
  }

  @Test
  void aCrossSitePostIsRefused() throws Exception {
    assertThat(send(decision("alice", aliceToken, approve(alice)).header("Origin", "http://evil.example"))
        .statusCode()).isEqualTo(403);
    assertThat(send(decision("alice", aliceToken, approve(alice)).header("Sec-Fetch-Site", "cross-site"))
        .statusCode()).isEqualTo(403);
    // What a cross-site form can send: no custom header, a form content type.
    assertThat(send(HttpRequest.newBuilder(server.baseUri().resolve("/api/sessions/alice/decisions"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("requestId=" + alice.requestId() + "&decision=approve_once")))
        .statusCode()).isEqualTo(403);
    assertThat(send(decision("alice", aliceToken, approve(alice)).setHeader("Content-Type", "text/plain"))
        .statusCode()).isEqualTo(415);
    assertThat(send(HttpRequest.newBuilder(server.baseUri().resolve("/api/sessions/alice/decisions?requestId="
        + alice.requestId())).header("X-Toolcall-Token", aliceToken).GET()).statusCode())
        .as("decisions only by POST").isEqualTo(405);
    nothingMoved();
  }

  @Test
  void openStreamsAreBounded() throws Exception {
    List<InputStream> open = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(
            server.baseUri().resolve("/api/sessions/alice/stream?token=" + aliceToken)).build(),
            HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
        assertThat(in.readLine()).isEqualTo("retry: 1000");
        open.add(r.body());
      }
      HttpResponse<String> fourth = send(HttpRequest.newBuilder(
          server.baseUri().resolve("/api/sessions/alice/stream?token=" + aliceToken)));
      assertThat(fourth.statusCode()).isEqualTo(503);
      assertThat(server.openStreams()).isEqualTo(3);
    } finally {
      for (InputStream in : open) {
        in.close();
      }
    }
    nothingMoved();
    assertThat(shell.runtime.permissions().request(alice.requestId()).map(PermissionRequest::callId))
        .contains(alice.callId());
    assertThat(ToolCallState.PERMISSION_PENDING.isTerminal()).isFalse();
  }
}
