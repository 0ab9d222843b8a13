package dev.toolcall.agui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.wire.SessionTokens;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the embedded server does with the bodies a client posts: one over the bound is always answered with the
 * documented 413 and its JSON (never a reset connection), and a document with a key given twice is refused with 400
 * naming the key, on both routes that take a body. Nothing moves either way.
 */
class ApprovalServerBodyTest {
  static final int LIMIT = 16 * 1024;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final SessionTokens tokens = SessionTokens.create();
  Shell shell;
  ApprovalServer server;
  PermissionRequest alice;
  String aliceToken;

  @BeforeEach
  void start() throws Exception {
    shell = new Shell(Duration.ofMinutes(5));
    server = ApprovalServer.builder(shell.runtime).access(tokens).agents(shell::agent).maxBodyBytes(LIMIT).start();
    aliceToken = tokens.issue("alice");
    shell.agent("alice").send("run cat secrets");
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
    assertThat(shell.ran).isEmpty();
  }

  /** One POST over a fresh socket: the whole body is written, then the whole response read (status line and body). */
  String post(String path, String headers, byte[] body, boolean chunked) throws IOException {
    try (Socket s = new Socket(server.baseUri().getHost(), server.port())) {
      s.setSoTimeout(20_000);
      OutputStream out = s.getOutputStream();
      String head = "POST " + path + " HTTP/1.1\r\nHost: " + server.baseUri().getAuthority() + "\r\n"
          + "Content-Type: application/json\r\n" + headers
          + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + body.length + "\r\n")
          + "Connection: close\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      if (chunked) {
        for (int i = 0; i < body.length; i += 8192) {
          int n = Math.min(8192, body.length - i);
          out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(body, i, n);
          out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      } else {
        out.write(body);
      }
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      in.transferTo(got);
      return got.toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void everyOversizedBodyIsAnswered413WithItsJson() throws Exception {
    List<String> bad = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      // from just over the bound to 64 times it, by Content-Length and chunked, on both routes
      int size = LIMIT + 1 + (i % 8) * 8 * LIMIT + i;
      byte[] body = ("{\"requestId\":\"" + alice.requestId() + "\",\"decision\":\"deny\",\"reason\":\""
          + "x".repeat(size) + "\"}").getBytes(StandardCharsets.UTF_8);
      boolean chunked = i % 2 == 1;
      boolean agui = i % 4 >= 2;
      String path = agui ? "/agui" : "/api/sessions/alice/decisions";
      String headers = agui ? "Authorization: Bearer " + aliceToken + "\r\n" : "X-Toolcall-Token: " + aliceToken + "\r\n";
      String response;
      try {
        response = post(path, headers, body, chunked);
      } catch (IOException e) {
        bad.add("POST " + i + " (" + body.length + " bytes" + (chunked ? ", chunked" : "") + " to " + path + "): " + e);
        continue;
      }
      if (!response.startsWith("HTTP/1.1 413") || !response.contains("{\"error\":\"too_large\"")) {
        bad.add("POST " + i + " (" + body.length + " bytes to " + path + "): "
            + response.substring(0, Math.min(200, response.length())));
      }
    }
    assertThat(bad).as("oversized POSTs not answered 413 with its JSON").isEmpty();
    nothingMoved();
  }

  @Test
  void aRefusalBeforeTheBodyIsReadStillAnswers() throws Exception {
    // 403 before the body is read (a token of another session): the client still gets the answer.
    byte[] body = ("{\"requestId\":\"" + alice.requestId() + "\",\"decision\":\"approve_once\",\"reason\":\""
        + "x".repeat(LIMIT - 200) + "\"}").getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < 20; i++) {
      String response = post("/api/sessions/alice/decisions", "X-Toolcall-Token: " + tokens.issue("bob") + "\r\n",
          body, false);
      assertThat(response).startsWith("HTTP/1.1 403").contains("\"error\":\"forbidden\"");
    }
    nothingMoved();
  }

  @Test
  void aKeyGivenTwiceIsRefusedNamingIt() throws Exception {
    String twice = "{\"requestId\":\"perm-aaaaaaaaaaaaaaaaaaaaaaaaaa\",\"requestId\":\"" + alice.requestId()
        + "\",\"decision\":\"approve_once\"}";
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(server.baseUri().resolve("/api/sessions/alice/decisions"))
        .header("Content-Type", "application/json").header("X-Toolcall-Token", aliceToken)
        .POST(HttpRequest.BodyPublishers.ofString(twice)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains("bad_request").contains("requestId");

    String nested = "{\"requestId\":\"" + alice.requestId() + "\",\"decision\":\"approve_once\","
        + "\"arguments\":{\"command\":\"ls\",\"command\":\"rm -rf /\"}}";
    r = http.send(HttpRequest.newBuilder(server.baseUri().resolve("/api/sessions/alice/decisions"))
        .header("Content-Type", "application/json").header("X-Toolcall-Token", aliceToken)
        .POST(HttpRequest.BodyPublishers.ofString(nested)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains("command");

    String run = "{\"threadId\":\"alice\",\"runId\":\"r1\",\"messages\":[],\"resume\":[{\"interruptId\":\""
        + alice.requestId() + "\",\"status\":\"resolved\",\"status\":\"cancelled\",\"payload\":{\"decision\":\"approve_once\"}}]}";
    r = http.send(HttpRequest.newBuilder(server.aguiUri()).header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + aliceToken).POST(HttpRequest.BodyPublishers.ofString(run)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains("bad_request").contains("status");
    nothingMoved();
  }
}
