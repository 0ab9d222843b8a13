package dev.toolcall.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An editor for the unit tests: serves an {@link AcpAgent} over piped streams on a thread of its own, writes raw lines
 * or JSON-RPC messages to it, and reads what it writes. Each wait is bounded (10 seconds) and fails the test when
 * nothing comes.
 */
public final class Editor implements AutoCloseable {
  private final PipedOutputStream toAgent = new PipedOutputStream();
  private final Thread serving;
  private final Thread reading;
  private final BlockingQueue<JsonNode> inbox = new LinkedBlockingQueue<>();
  /** Every message the agent wrote, in order, as read so far by {@link #next}. */
  public final List<JsonNode> seen = new ArrayList<>();
  private int ids = 100;

  /** How the agent is served: {@code AcpAgent::serve}, or a program's own main loop. */
  public interface Serving {
    void serve(java.io.InputStream in, java.io.OutputStream out) throws Exception;
  }

  public Editor(AcpAgent acp) throws IOException {
    this(acp::serve);
  }

  public Editor(Serving serve) throws IOException {
    PipedInputStream agentIn = new PipedInputStream(toAgent, 1 << 16);
    PipedOutputStream agentOut = new PipedOutputStream();
    PipedInputStream fromAgent = new PipedInputStream(agentOut, 1 << 16);
    serving = new Thread(() -> {
      try {
        serve.serve(agentIn, agentOut);
        agentOut.close();
      } catch (Exception e) {
        // the test closed the pipe
      }
    }, "test-acp-serve");
    serving.setDaemon(true);
    serving.start();
    reading = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fromAgent, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          inbox.add(Connection.JSON.readTree(line));
        }
      } catch (IOException e) {
        // the agent's side ended
      }
    }, "test-acp-read");
    reading.setDaemon(true);
    reading.start();
  }

  /** Sends one raw line. */
  public void line(String text) throws IOException {
    toAgent.write((text + "\n").getBytes(StandardCharsets.UTF_8));
    toAgent.flush();
  }

  /** Sends a request; returns its id. */
  public int request(String method, Object params) throws IOException {
    int id = ++ids;
    ObjectNode m = Connection.JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
    m.set("params", Connection.JSON.valueToTree(params));
    line(m.toString());
    return id;
  }

  /** Sends a notification. */
  public void notify(String method, Object params) throws IOException {
    ObjectNode m = Connection.JSON.createObjectNode().put("jsonrpc", "2.0").put("method", method);
    m.set("params", Connection.JSON.valueToTree(params));
    line(m.toString());
  }

  /** Answers the agent's request {@code id} with {@code result}. */
  public void answer(JsonNode id, Object result) throws IOException {
    ObjectNode m = Connection.JSON.createObjectNode().put("jsonrpc", "2.0");
    m.set("id", id);
    m.set("result", Connection.JSON.valueToTree(result));
    line(m.toString());
  }

  /** The next message the agent wrote. */
  public JsonNode next() throws InterruptedException {
    JsonNode m = inbox.poll(10, TimeUnit.SECONDS);
    assertThat(m).as("a message from the agent within 10 s; so far: %s", seen).isNotNull();
    seen.add(m);
    return m;
  }

  /** Reads until a message matches; returns it. */
  public JsonNode until(Predicate<JsonNode> which) throws InterruptedException {
    while (true) {
      JsonNode m = next();
      if (which.test(m)) {
        return m;
      }
    }
  }

  /** Reads until the response to {@code id}. */
  public JsonNode response(int id) throws InterruptedException {
    return until(m -> !m.has("method") && m.path("id").asInt(-1) == id);
  }

  /** Reads until the agent's request {@code method}. */
  public JsonNode agentRequest(String method) throws InterruptedException {
    return until(m -> m.path("method").asText().equals(method) && m.has("id"));
  }

  /** Whether the agent wrote nothing more within {@code millis} (for "nothing else came" checks after a sync point). */
  public boolean quiet(long millis) throws InterruptedException {
    JsonNode m = inbox.poll(millis, TimeUnit.MILLISECONDS);
    if (m != null) {
      seen.add(m);
    }
    return m == null;
  }

  /** The session updates seen so far, of {@code kind}. */
  public List<JsonNode> updates(String kind) {
    return seen.stream().filter(m -> m.path("method").asText().equals("session/update")
        && m.path("params").path("update").path("sessionUpdate").asText().equals(kind))
        .map(m -> m.path("params").path("update")).toList();
  }

  @Override
  public void close() throws Exception {
    toAgent.close();
    serving.join(10_000);
    reading.join(10_000);
  }
}
