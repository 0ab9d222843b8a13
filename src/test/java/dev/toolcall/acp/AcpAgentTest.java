package dev.toolcall.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolcall.conversation.ConversationStore;
import dev.toolcall.testing.Logs;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The ACP agent over piped streams, message by message: the handshake, a turn with each kind of answer to its
 * permission request, a cancel with a request pending, a deadline that passes, loading a stored session, and hostile
 * input (each answered as an error or dropped, never deciding anything).
 */
@ExtendWith(Logs.class)
class AcpAgentTest {

  private static final Map<String, Object> CWD = Map.of("cwd", "/tmp", "mcpServers", List.of());

  static Map<String, Object> prompt(String sessionId, String text) {
    return Map.of("sessionId", sessionId, "prompt", List.of(Map.of("type", "text", "text", text)));
  }

  static Map<String, Object> selected(String optionId) {
    return Map.of("outcome", Map.of("outcome", "selected", "optionId", optionId));
  }

  /** Initializes and opens a session; returns its id. */
  static String open(Editor e) throws Exception {
    JsonNode init = e.response(e.request("initialize", Map.of("protocolVersion", 1, "clientCapabilities", Map.of())));
    assertThat(init.path("result").path("protocolVersion").asInt()).isEqualTo(1);
    return e.response(e.request("session/new", CWD)).path("result").path("sessionId").asText();
  }

  @Test
  void initializeNegotiatesVersionOneAndNothingComesBeforeIt() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor e = new Editor(shell.acp)) {
      JsonNode early = e.response(e.request("session/new", CWD));
      assertThat(early.path("error").path("code").asInt()).isEqualTo(-32600);
      JsonNode init = e.response(e.request("initialize", Map.of("protocolVersion", 7)));
      assertThat(init.path("result").path("protocolVersion").asInt()).isEqualTo(1);
      assertThat(init.path("result").path("agentCapabilities").path("loadSession").asBoolean()).isTrue();
      assertThat(init.path("result").path("agentInfo").path("name").asText()).isEqualTo("toolcall-lifecycle");
      assertThat(e.response(e.request("initialize", Map.of("protocolVersion", "one"))).path("error").path("code")
          .asInt()).isEqualTo(-32602);
    }
  }

  @Test
  void anApprovedCallRunsAndItsUpdatesComeInOrderBeforeTheAnswer() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor e = new Editor(shell.acp)) {
      String s = open(e);
      int p = e.request("session/prompt", prompt(s, "run echo hi"));
      JsonNode ask = e.agentRequest("session/request_permission");
      JsonNode params = ask.path("params");
      assertThat(params.path("sessionId").asText()).isEqualTo(s);
      assertThat(params.path("toolCall").path("title").asText()).isEqualTo("shell: echo hi");
      assertThat(params.path("toolCall").path("kind").asText()).isEqualTo("execute");
      assertThat(params.path("toolCall").path("rawInput").path("command").asText()).isEqualTo("echo hi");
      assertThat(params.path("options").findValuesAsText("kind")).containsExactly("allow_once", "allow_always",
          "allow_always", "reject_once", "reject_always");
      assertThat(params.path("_meta").path("expiresAt").asText()).isNotEmpty();
      e.answer(ask.get("id"), selected("allow_once"));
      JsonNode done = e.response(p);
      assertThat(done.path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(shell.ran).containsExactly("echo hi");

      String callId = params.path("toolCall").path("toolCallId").asText();
      List<JsonNode> created = e.updates("tool_call");
      assertThat(created).hasSize(1);
      assertThat(created.get(0).path("toolCallId").asText()).isEqualTo(callId);
      assertThat(created.get(0).path("status").asText()).isEqualTo("pending");
      List<String> statuses = e.updates("tool_call_update").stream().filter(u -> u.has("status"))
          .map(u -> u.path("status").asText()).toList();
      assertThat(statuses).containsExactly("in_progress", "completed");
      JsonNode completed = e.updates("tool_call_update").stream()
          .filter(u -> u.path("status").asText().equals("completed")).findFirst().orElseThrow();
      assertThat(completed.path("content").get(0).path("content").path("text").asText()).isEqualTo("ran: echo hi");
      String text = String.join("", e.updates("agent_message_chunk").stream()
          .map(u -> u.path("content").path("text").asText()).toList());
      assertThat(text).isEqualTo("Let me do that. tool said: ran: echo hi");
      // the request was made while the call was pending, and its tool_call came first
      assertThat(e.seen.indexOf(ask)).isGreaterThan(e.seen.stream()
          .filter(m -> m.path("params").path("update").path("sessionUpdate").asText().equals("tool_call"))
          .map(e.seen::indexOf).findFirst().orElseThrow());
    }
  }

  @Test
  void aRejectionCarriesTheEditorsReasonToTheModelAndRunsNothing() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor e = new Editor(shell.acp)) {
      String s = open(e);
      int p = e.request("session/prompt", prompt(s, "run rm -rf build"));
      JsonNode ask = e.agentRequest("session/request_permission");
      e.answer(ask.get("id"), Map.of("outcome", Map.of("outcome", "selected", "optionId", "reject_once"),
          "_meta", Map.of("reason", "not on a Friday")));
      assertThat(e.response(p).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(shell.ran).isEmpty();
      JsonNode failed = e.updates("tool_call_update").stream()
          .filter(u -> u.path("status").asText().equals("failed")).findFirst().orElseThrow();
      assertThat(failed.path("content").get(0).path("content").path("text").asText()).contains("not on a Friday");
    }
  }

  @Test
  void allowAlwaysGrantsLaterTurnsAndRejectAlwaysDeniesThemWithoutAsking() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor e = new Editor(shell.acp)) {
      String s = open(e);
      int p = e.request("session/prompt", prompt(s, "run echo a"));
      e.answer(e.agentRequest("session/request_permission").get("id"), selected("allow_always"));
      e.response(p);
      int q = e.request("session/prompt", prompt(s, "run echo b"));
      assertThat(e.response(q).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(shell.ran).containsExactly("echo a", "echo b");
      assertThat(e.seen.stream().filter(m -> m.path("method").asText().equals("session/request_permission")))
          .hasSize(1);

      String other = e.response(e.request("session/new", CWD)).path("result").path("sessionId").asText();
      int r = e.request("session/prompt", prompt(other, "deploy now"));
      e.answer(e.agentRequest("session/request_permission").get("id"), selected("reject_always"));
      e.response(r);
      int t = e.request("session/prompt", prompt(other, "deploy again"));
      assertThat(e.response(t).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(shell.ran).containsExactly("echo a", "echo b");
      assertThat(e.seen.stream().filter(m -> m.path("method").asText().equals("session/request_permission")))
          .hasSize(2);
      assertThat(e.updates("tool_call_update").stream().filter(u -> u.path("content").toString()
          .contains("rejected every call of this tool"))).hasSize(1);
    }
  }

  @Test
  void cancelWithARequestPendingAnswersCancelledAndWithdrawsTheRequest() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor e = new Editor(shell.acp)) {
      String s = open(e);
      int p = e.request("session/prompt", prompt(s, "run echo never"));
      JsonNode ask = e.agentRequest("session/request_permission");
      e.notify("session/cancel", Map.of("sessionId", s));
      JsonNode done = e.response(p);
      assertThat(done.path("result").path("stopReason").asText()).isEqualTo("cancelled");
      e.answer(ask.get("id"), Map.of("outcome", Map.of("outcome", "cancelled")));
      // a later turn of the session works, and the cancelled call never ran
      int q = e.request("session/prompt", prompt(s, "run echo after"));
      e.answer(e.agentRequest("session/request_permission").get("id"), selected("allow_once"));
      assertThat(e.response(q).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(shell.ran).containsExactly("echo after");
      assertThat(e.seen).anyMatch(m -> m.path("method").asText().equals("$/cancel_request")
          && m.path("params").path("requestId").equals(ask.get("id")));
    }
  }

  @Test
  void cancelWhileAToolRunsInterruptsItAndAnswersCancelled() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor e = new Editor(shell.acp)) {
      String s = open(e);
      int p = e.request("session/prompt", prompt(s, "run sleep 60"));
      e.answer(e.agentRequest("session/request_permission").get("id"), selected("allow_once"));
      e.until(m -> m.path("params").path("update").path("status").asText().equals("in_progress"));
      e.notify("session/cancel", Map.of("sessionId", s));
      assertThat(e.response(p).path("result").path("stopReason").asText()).isEqualTo("cancelled");
      assertThat(shell.ran).isEmpty();
    }
  }

  @Test
  void aDeadlineThatPassesDeniesWithdrawsTheRequestAndIgnoresTheLateAnswer() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMillis(300)); Editor e = new Editor(shell.acp)) {
      String s = open(e);
      int p = e.request("session/prompt", prompt(s, "deploy it"));
      JsonNode ask = e.agentRequest("session/request_permission");
      JsonNode withdrawn = e.until(m -> m.path("method").asText().equals("$/cancel_request"));
      assertThat(withdrawn.path("params").path("requestId")).isEqualTo(ask.get("id"));
      e.answer(ask.get("id"), selected("allow_once")); // too late: dropped
      assertThat(e.response(p).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(shell.ran).isEmpty();
      JsonNode failed = e.updates("tool_call_update").stream()
          .filter(u -> u.path("status").asText().equals("failed")).findFirst().orElseThrow();
      assertThat(e.seen.indexOf(withdrawn)).isLessThan(e.seen.stream()
          .filter(m -> m.path("params").path("update") == failed).map(e.seen::indexOf).findFirst().orElseThrow());
      assertThat(failed.path("content").toString()).containsIgnoringCase("in time");
    }
  }

  @Test
  void aStoredSessionLoadsOnAnotherConnectionWithItsHistoryReplayed() throws Exception {
    ConversationStore store = ConversationStore.inMemory();
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1), store, c -> { })) {
      String s;
      try (Editor e = new Editor(shell.acp)) {
        s = open(e);
        int p = e.request("session/prompt", prompt(s, "run echo one"));
        e.answer(e.agentRequest("session/request_permission").get("id"), selected("allow_once"));
        e.response(p);
      }
      try (Editor e = new Editor(shell.acp)) {
        e.response(e.request("initialize", Map.of("protocolVersion", 1)));
        JsonNode loaded = e.response(e.request("session/load", Map.of("sessionId", s, "cwd", "/tmp",
            "mcpServers", List.of())));
        assertThat(loaded.has("result")).as("%s", loaded).isTrue();
        assertThat(e.updates("user_message_chunk")).extracting(u -> u.path("content").path("text").asText())
            .containsExactly("run echo one");
        assertThat(e.updates("tool_call")).extracting(u -> u.path("title").asText()).containsExactly("shell: echo one");
        assertThat(e.updates("tool_call_update")).extracting(u -> u.path("status").asText())
            .containsExactly("completed");
        assertThat(e.updates("agent_message_chunk")).extracting(u -> u.path("content").path("text").asText())
            .containsExactly("Let me do that. ", "tool said: ran: echo one");
        // the loaded session goes on with its history: the model is sent the earlier messages too
        int q = e.request("session/prompt", prompt(s, "run echo two"));
        e.answer(e.agentRequest("session/request_permission").get("id"), selected("allow_once"));
        assertThat(e.response(q).path("result").path("stopReason").asText()).isEqualTo("end_turn");
        assertThat(shell.ran).containsExactly("echo one", "echo two");
        assertThat(shell.asked).containsExactly(1, 3, 5, 7);
        assertThat(e.response(e.request("session/load", Map.of("sessionId", "acp-nope", "cwd", "/tmp")))
            .path("error").path("code").asInt()).isEqualTo(-32002);
      }
    }
  }

  @Test
  void hostileInputIsAnsweredAsErrorsAndDecidesNothing() throws Exception {
    Logs.expect(AcpAgent.class);
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor e = new Editor(shell.acp)) {
      String s = open(e);
      e.line("{not json");
      assertThat(e.next().path("error").path("code").asInt()).isEqualTo(-32700);
      e.line("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}]");
      assertThat(e.next().path("error").path("code").asInt()).isEqualTo(-32600);
      e.line("{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"initialize\"}");
      assertThat(e.next().path("error").path("code").asInt()).isEqualTo(-32600);
      e.line("{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"x\",\"params\":\"" + "a".repeat(70 * 1024) + "\"}");
      JsonNode big = e.next();
      assertThat(big.path("error").path("code").asInt()).isEqualTo(-32600);
      assertThat(big.path("id").isNull()).isTrue();
      assertThat(e.response(e.request("session/fork", Map.of())).path("error").path("code").asInt())
          .isEqualTo(-32601);
      assertThat(e.response(e.request("session/prompt", Map.of("sessionId", s))).path("error").path("code").asInt())
          .isEqualTo(-32602);
      assertThat(e.response(e.request("session/prompt", "text")).path("error").path("code").asInt())
          .isEqualTo(-32602);
      assertThat(e.response(e.request("session/new", Map.of("cwd", "relative"))).path("error").path("code").asInt())
          .isEqualTo(-32602);
      assertThat(e.response(e.request("session/prompt", prompt("acp-someone-else", "run x"))).path("error")
          .path("code").asInt()).isEqualTo(-32002);
      e.notify("session/cancel", Map.of("sessionId", "acp-someone-else"));
      e.notify("no/such/notification", Map.of());

      // a turn whose request gets foreign, malformed and replayed answers
      int p = e.request("session/prompt", prompt(s, "run echo guarded"));
      JsonNode ask = e.agentRequest("session/request_permission");
      assertThat(e.response(e.request("session/prompt", prompt(s, "run echo twice"))).path("error").path("code")
          .asInt()).as("one turn per session").isEqualTo(-32600);
      e.answer(Connection.JSON.valueToTree(ask.get("id").asLong() + 1000), selected("allow_once")); // never asked
      e.answer(Connection.JSON.valueToTree("x" + ask.get("id").asText()), selected("allow_once"));   // wrong type
      e.answer(ask.get("id"), Map.of("outcome", Map.of("outcome", "selected", "optionId", "allow_forever")));
      e.answer(ask.get("id"), selected("reject_once")); // the unknown option used up the request: dropped too
      assertThat(e.response(e.request("initialize", Map.of("protocolVersion", 1))).has("result")).isTrue(); // all read
      String callId = ask.path("params").path("toolCall").path("toolCallId").asText();
      assertThat(shell.runtime.scheduler().call(s, callId).orElseThrow().snapshot().state())
          .isEqualTo(dev.toolcall.ToolCallState.PERMISSION_PENDING);
      assertThat(shell.ran).isEmpty();
      // the request is still open; cancel the turn, then replay an approval for it: nothing runs
      e.notify("session/cancel", Map.of("sessionId", s));
      assertThat(e.response(p).path("result").path("stopReason").asText()).isEqualTo("cancelled");
      e.answer(ask.get("id"), selected("allow_once"));
      assertThat(e.response(e.request("initialize", Map.of("protocolVersion", 1))).has("result")).isTrue();
      assertThat(shell.ran).isEmpty();
      assertThat(shell.runtime.permissions().pending()).isEmpty();
    }
  }

  @Test
  void anAnswerFromAnotherConnectionDecidesNothing() throws Exception {
    try (AcpShell shell = new AcpShell(Duration.ofMinutes(1)); Editor a = new Editor(shell.acp);
        Editor b = new Editor(shell.acp)) {
      String s = open(a);
      open(b);
      int p = a.request("session/prompt", prompt(s, "run echo mine"));
      JsonNode ask = a.agentRequest("session/request_permission");
      b.answer(ask.get("id"), selected("allow_once"));
      assertThat(b.response(b.request("session/prompt", prompt(s, "run echo stolen"))).path("error").path("code")
          .asInt()).isEqualTo(-32002);
      assertThat(b.response(b.request("session/load", Map.of("sessionId", s, "cwd", "/tmp"))).path("error")
          .path("code").asInt()).isEqualTo(-32002);
      assertThat(b.response(b.request("initialize", Map.of("protocolVersion", 1))).has("result")).isTrue();
      String callId = ask.path("params").path("toolCall").path("toolCallId").asText();
      assertThat(shell.runtime.scheduler().call(s, callId).orElseThrow().snapshot().state())
          .isEqualTo(dev.toolcall.ToolCallState.PERMISSION_PENDING);
      a.answer(ask.get("id"), selected("reject_once"));
      assertThat(a.response(p).path("result").path("stopReason").asText()).isEqualTo("end_turn");
      assertThat(shell.ran).isEmpty();
    }
  }
}
