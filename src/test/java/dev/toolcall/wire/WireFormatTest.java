package dev.toolcall.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.DecisionReport;
import dev.toolcall.conversation.Interrupt;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.permission.ArgumentPattern;
import dev.toolcall.permission.Decision;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, part 2: the wire format's events, interrupts, results and decisions validate against the schema in the
 * jar (the events the demo does not make: edited arguments, a denial, a cancel, a tool-set change); a posted body
 * reads back into the same decisions; a body that breaks the format is refused with a message, and a wire object
 * that breaks the schema is caught by it.
 */
class WireFormatTest {

  static final ObjectMapper JSON = new ObjectMapper();

  static void assertValid(String def, JsonNode json) {
    assertThat(WireFormat.validate(json, "#/$defs/" + def)).as("%s", json).isEmpty();
  }

  @Test
  void eventsInterruptsResultsAndReportsOfASuspendedTurnValidate() throws Exception {
    Tool shell = Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ok"));
    List<Event> events = Collections.synchronizedList(new ArrayList<>());
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell", "{\"command\":\"a\"}"),
        ScriptedModel.call("call_2", "shell", "{\"command\":\"b\"}")).thenText("Done.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell).build()) {
      runtime.events().subscribe(EventListener.of(events::add));
      Agent agent = Agent.builder(model, runtime).conversationId("w1").suspendOnApproval(true).build();
      TurnResult r = agent.send("go").toCompletableFuture().get(10, TimeUnit.SECONDS);
      JsonNode interrupted = WireFormat.turnResult("w1", r);
      assertValid("turnResult", interrupted);
      assertThat(interrupted.at("/interrupts/0/requestId").asText()).isEqualTo(r.interrupts().get(0).requestId());
      for (Interrupt i : r.interrupts()) {
        assertValid("interrupt", WireFormat.interrupt(i));
      }
      Interrupt a = r.interrupts().get(0);
      Interrupt b = r.interrupts().get(1);
      List<Decision> decisions = List.of(new Decision.ModifyAndAsk(a.requestId(), a.argumentsVersion(),
          ToolArguments.ofJson(JSON.readTree("{\"command\":\"a2\"}"))),
          new Decision.Deny(b.requestId(), b.argumentsVersion(), "no"));
      // each decision also validates against its own interrupt's response schema
      var registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
      assertThat(registry.getSchema(JSON.readTree(a.responseSchema())).validate(WireFormat.decision(decisions.get(0))))
          .isEmpty();
      assertThat(registry.getSchema(JSON.readTree(a.responseSchema())).validate(WireFormat.decision(decisions.get(1))))
          .as("another request's id").isNotEmpty();
      TurnResult partial = agent.resumeWith(WireFormat.parseDecisions(WireFormat.decisions(decisions).toString()))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      for (DecisionReport d : partial.decisions()) {
        assertValid("decisionResult", WireFormat.decisionReport(d));
      }
      assertValid("turnResult", WireFormat.turnResult("w1", partial));
      runtime.updateTools(reg -> reg.with(Tool.of(ToolDefinition.builder("read").readOnly(true).build(),
          inv -> ToolResult.of("x"))));
      agent.abort(); // cancels what is left
    }
    Set<String> types = new TreeSet<>();
    for (Event e : List.copyOf(events)) {
      JsonNode json = WireFormat.event(e);
      assertValid("event", json);
      types.add(json.get("type").asText() + (json.has("outcome") ? ":" + json.at("/outcome/kind").asText() : ""));
    }
    assertThat(types).contains("call.arguments", "call.state:permission_denied", "call.state:cancelled",
        "tools.changed", "conversation.state");
  }

  @Test
  void aPostedBodyReadsBackIntoTheSameDecisions() {
    List<Decision> all = List.of(new Decision.ApproveOnce("perm-a", 1),
        new Decision.ApproveForSession("perm-b", 2, ArgumentPattern.ANY),
        new Decision.ApproveAlways("perm-c", 0, ArgumentPattern.ANY, Duration.ofHours(2)),
        new Decision.ApproveAlways("perm-d", 0, ArgumentPattern.ANY, null),
        new Decision.ApproveModified("perm-e", 3, ToolArguments.ofJson(JSON.createObjectNode().put("x", 1))),
        new Decision.ModifyAndAsk("perm-f", 3, ToolArguments.ofText("ls -la")),
        new Decision.Deny("perm-g", 0, "not on Fridays"));
    JsonNode body = WireFormat.decisions(all);
    assertValid("decisionBatch", body);
    assertThat(WireFormat.parseDecisions(body.toString())).isEqualTo(all);
  }

  @Test
  void aBodyThatBreaksTheFormatIsRefusedWithAMessage() {
    assertThatThrownBy(() -> WireFormat.parseDecisions("{not json")).isInstanceOf(WireFormatException.class)
        .hasMessageStartingWith("The body is not JSON");
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":2,\"decisions\":[]}"))
        .isInstanceOf(WireFormatException.class).hasMessageContaining("version 2").hasMessageContaining("version 1");
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":1,\"decisions\":[{\"requestId\":\"p\","
        + "\"argumentsVersion\":0,\"decision\":\"approve_everything\"}]}")).isInstanceOf(WireFormatException.class)
        .satisfies(e -> assertThat(((WireFormatException) e).problems()).isNotEmpty());
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":1,\"decisions\":[{\"requestId\":\"p\","
        + "\"argumentsVersion\":0,\"decision\":\"approve_modified\"}]}")).isInstanceOf(WireFormatException.class);
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":1,\"decisions\":[{\"requestId\":\"p\","
        + "\"argumentsVersion\":0,\"decision\":\"deny\",\"admin\":true}]}")).isInstanceOf(WireFormatException.class);
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":1,\"decisions\":[{\"requestId\":\"p\","
        + "\"argumentsVersion\":0,\"decision\":\"approve_always\",\"expiry\":\"P-1D\"}]}"))
        .isInstanceOf(WireFormatException.class).hasMessageContaining("expiry");
    assertThat(WireFormat.parseDecisions("{\"v\":1,\"decisions\":[]}")).isEmpty();
  }

  /**
   * A waiting request and what {@code decide} answered, as a web page reads them: no internal tick, no snapshot
   * chain; a won decision says {@code accepted}, a second one says {@code already_answered} naming what won.
   */
  @Test
  void aWaitingRequestAndDecisionResultsHaveTheirWireForm() throws Exception {
    Tool deploy = Tool.of(ToolDefinition.builder("deploy").permissionTimeout(Duration.ofHours(1)).build(),
        inv -> ToolResult.of("ok"));
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(deploy).build()) {
      runtime.schedule("chat-1", List.of(dev.toolcall.execution.CallRequest.of("c1", "deploy", "{\"env\":\"prod\"}")));
      dev.toolcall.permission.PermissionRequest r = runtime.permissions().nextRequest().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      ObjectNode json = WireFormat.request(r);
      assertValid("waitingRequest", json);
      assertThat(json.get("type").asText()).isEqualTo("permission.request");
      assertThat(json.get("sessionId").asText()).isEqualTo("chat-1");
      assertThat(json.at("/arguments/env").asText()).isEqualTo("prod");
      assertThat(json.get("deadline").asText()).isEqualTo(r.deadline().toString());
      assertThat(json.toString()).doesNotContain("Tick", "tick");

      ObjectNode won = WireFormat.decisionResult(runtime.permissions().decide(r.requestId(), Decision.approveOnce(r)));
      assertValid("decisionResult", won);
      assertThat(won.get("status").asText()).isEqualTo("accepted");
      ObjectNode late = WireFormat.decisionResult(runtime.permissions().decide(r.requestId(),
          new Decision.Deny(r.requestId(), r.argumentsVersion(), "too late")));
      assertValid("decisionResult", late);
      assertThat(late.get("status").asText()).isEqualTo("already_answered");
      assertThat(late.get("message").asText()).contains("permission_approved");
      assertThat(late.toString().length()).as("a few fields, no snapshot chain").isLessThan(300);
      ObjectNode unknown = WireFormat.decisionResult(runtime.permissions().decide("perm-nope",
          new Decision.ApproveOnce("perm-nope", 0)));
      assertThat(unknown.get("status").asText()).isEqualTo("unknown_request");
    }
  }

  /** A key given twice is refused wherever it is (a proxy and the server could read different values). */
  @Test
  void aBodyWithAKeyGivenTwiceIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":1,\"decisions\":[{\"requestId\":\"p\","
        + "\"requestId\":\"q\",\"argumentsVersion\":0,\"decision\":\"approve_once\"}]}"))
        .isInstanceOf(WireFormatException.class).hasMessageContaining("\"requestId\"")
        .hasMessageContaining("more than once");
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":1,\"v\":1,\"decisions\":[]}"))
        .isInstanceOf(WireFormatException.class).hasMessageContaining("\"v\"");
    assertThatThrownBy(() -> WireFormat.parseDecisions("{\"v\":1,\"decisions\":[{\"requestId\":\"p\","
        + "\"argumentsVersion\":0,\"decision\":\"approve_modified\",\"arguments\":{\"path\":\"a\",\"path\":\"b\"}}]}"))
        .isInstanceOf(WireFormatException.class).hasMessageContaining("\"path\"");
  }

  @Test
  void theSchemaCatchesAWireObjectThatBreaksIt() {
    ObjectNode bad = JSON.createObjectNode().put("v", 1).put("type", "call.state").put("sessionId", "s")
        .put("sourceId", "c").put("version", 1).put("timestamp", "2026-11-26T10:00:00Z").put("callId", "c")
        .put("toolName", "t").put("state", "exploded").put("from", "pending").put("to", "exploded")
        .put("attempt", 0);
    assertThat(WireFormat.validate(bad, "#/$defs/event")).isNotEmpty();
    bad.put("state", "running").put("to", "running");
    assertThat(WireFormat.validate(bad, "#/$defs/event")).isEmpty();
  }

  @Test
  void theSchemaIsInTheJarWithItsVersion() throws Exception {
    JsonNode schema = JSON.readTree(WireFormat.schemaText());
    assertThat(schema.at("/$defs/decisionBatch/properties/v/const").asInt()).isEqualTo(WireFormat.VERSION);
    assertThat(WireFormat.SCHEMA_RESOURCE).startsWith("dev/toolcall/wire/").contains("v" + WireFormat.VERSION);
  }
}
