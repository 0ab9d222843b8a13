package dev.toolcall.mcp;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.StopReason;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.TurnResult;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.event.ToolSetEvent;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.presentation.Presenter;
import dev.toolcall.testing.Logs;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolContent;
import dev.toolcall.tool.ToolDefinition;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The MCP adapter against a real MCP server ({@link TestMcpServer}, the SDK's stdio server in a child JVM started by
 * each test): definitions and hints, an agent turn end to end with a scripted model, progress as live output,
 * cancellation reaching the server, a tool-list change in the middle of a turn, a server killed mid-call, and rich
 * results through the view model.
 */
class McpAdapterTest {
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private McpToolSource source;
  private ToolCallRuntime runtime;

  private final List<Long> serverPids = new CopyOnWriteArrayList<>();

  StdioClientTransport serverTransport(String... serverArgs) {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> args = new java.util.ArrayList<>(List.of("-cp", cp, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
        TestMcpServer.class.getName()));
    args.addAll(List.of(serverArgs));
    ServerParameters params = ServerParameters.builder(java).args(args).build();
    StdioClientTransport t = new StdioClientTransport(params, new JacksonMcpJsonMapper(new ObjectMapper()));
    t.setStdErrorHandler(line -> {
      if (line.startsWith("pid=")) {
        serverPids.add(Long.parseLong(line.substring(4).trim()));
      }
    });
    return t;
  }

  private void start(McpToolSource.Builder b) {
    source = b.connect();
    runtime = ToolCallRuntime.builder().build();
    runtime.events().subscribe(EventListener.of(events::add));
    source.attach(runtime);
  }

  @AfterEach
  void close() {
    if (source != null) {
      source.close();
    }
    if (runtime != null) {
      runtime.close();
    }
  }

  private CallResult run(String id, String tool, String args) {
    return runtime.schedule("s", List.of(CallRequest.of(id, tool, args))).join().get(0);
  }

  private void awaitEvent(Predicate<Event> p) throws InterruptedException {
    CountDownLatch seen = new CountDownLatch(1);
    var sub = runtime.events().subscribe(EventListener.of(e -> {
      if (p.test(e)) {
        seen.countDown();
      }
    }));
    try {
      if (events.stream().noneMatch(p)) {
        assertThat(seen.await(20, TimeUnit.SECONDS)).as("event awaited").isTrue();
      }
    } finally {
      sub.close();
    }
  }

  private String output(String callId) {
    return events.stream().filter(e -> e instanceof ToolCallEvent.OutputAppended o && o.callId().equals(callId))
        .map(e -> ((ToolCallEvent.OutputAppended) e).change().chunk()).collect(Collectors.joining());
  }

  @Test
  void theServersToolsBecomeDefinitionsWithTheirHintsAndSchemas() {
    start(McpToolSource.builder("srv", serverTransport())
        .customize((spec, b) -> b.requiresApproval(false).timeout(Duration.ofSeconds(30))));
    Map<String, ToolDefinition> defs = source.tools().stream().map(Tool::definition)
        .collect(Collectors.toMap(ToolDefinition::name, d -> d));
    assertThat(defs).containsKeys("srv.echo", "srv.fail", "srv.hang", "srv.weather.current", "srv.drop_db");
    assertThat(defs.get("srv.echo").readOnly()).isTrue();
    assertThat(defs.get("srv.echo").idempotent()).isTrue();
    assertThat(defs.get("srv.echo").requiresApproval()).isFalse(); // customize said so
    assertThat(defs.get("srv.drop_db").requiresApproval()).isTrue(); // destructive: always asks
    assertThat(defs.get("srv.plain").requiresApproval()).isTrue(); // no hints: destructive by MCP's defaults
    assertThat(defs.get("srv.hang").requiresApproval()).isFalse(); // not destructive: customize decides
    assertThat(defs.get("srv.weather.current").parameters().path("required").get(0).asText()).isEqualTo("city");
    assertThat(defs.get("srv.weather.current").outputSchemaIfSet()).isPresent();
    assertThat(defs.get("srv.echo").description()).isEqualTo("Echoes its text");
    assertThat(runtime.registry().modelName("srv.weather.current")).isEqualTo("srv_weather_current");

    McpToolSource untrusted = McpToolSource.builder("other", serverTransport()).connect();
    try {
      assertThat(untrusted.tools()).allSatisfy(t -> assertThat(t.definition().requiresApproval()).isTrue());
    } finally {
      untrusted.close();
    }
  }

  @Test
  void anAgentTurnRunsTheServersToolsEndToEnd() throws Exception {
    start(McpToolSource.builder("srv", serverTransport()).trustReadOnlyHints(true)
        .customize((spec, b) -> {
          if (spec.name().equals("fail")) {
            b.requiresApproval(false);
          }
        }));
    ScriptedModel model = new ScriptedModel()
        .thenCalls(call("c1", "srv_echo", "{\"text\":\"hi\"}"), call("c2", "srv_weather_current",
            "{\"city\":\"Oslo\"}"), call("c3", "srv_fail", "{}"), call("c4", "srv_image", "{}"))
        .thenText("all done");
    Agent agent = Agent.builder(model, runtime).build();

    TurnResult r = agent.send("go").toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(r.text()).isEqualTo("all done");
    assertThat(model.requests().get(0).tools()).extracting(ToolDefinition::name)
        .contains("srv_echo", "srv_weather_current", "srv_fail");
    Map<String, ToolResultMessage> results = agent.messages().stream()
        .filter(m -> m instanceof ToolResultMessage).map(m -> (ToolResultMessage) m)
        .collect(Collectors.toMap(ToolResultMessage::callId, m -> m));
    assertThat(results.get("c1").content()).isEqualTo("echo: hi");
    assertThat(results.get("c2").content()).isEqualTo("21.5 C in Oslo");
    assertThat(results.get("c3").isError()).isTrue();
    assertThat(results.get("c3").content()).contains("disk full: cannot write /var/data");
    assertThat(results.get("c4").content()).isEqualTo("a 1x1 pixel\n[image: image/png, 70 bytes]\nnotes inside");

    Outcome.Completed weather = (Outcome.Completed) finalOutcome("c2");
    assertThat(weather.result().structured().orElseThrow().path("temperature").asDouble()).isEqualTo(21.5);
    Outcome.Completed image = (Outcome.Completed) finalOutcome("c4");
    assertThat(image.result().parts()).hasSize(3).element(1).isInstanceOf(ToolContent.Image.class);
    assertThat(image.result().parts().get(2)).isInstanceOf(ToolContent.Resource.class);
    ToolCallEvent.StateChanged end = endOf("c4");
    assertThat(Presenter.create().view(end.snapshot()).result())
        .contains("a 1x1 pixel\n[image: image/png, 70 bytes]\nnotes inside");
    assertThat(endOf("c1").snapshot().toolName()).isEqualTo("srv.echo");
  }

  private ToolCallEvent.StateChanged endOf(String callId) {
    return events.stream().filter(e -> e instanceof ToolCallEvent.StateChanged s && s.callId().equals(callId)
        && s.snapshot().state().isTerminal()).map(e -> (ToolCallEvent.StateChanged) e).findFirst().orElseThrow();
  }

  private Outcome finalOutcome(String callId) {
    return endOf(callId).snapshot().outcome();
  }

  @Test
  void progressNotificationsBecomeTheCallsLiveOutput() {
    start(McpToolSource.builder("srv", serverTransport()).trustReadOnlyHints(true));
    CallResult r = run("p1", "srv.progress", "{}");
    assertThat(r.outcome().messageForModel()).isEqualTo("progress done");
    assertThat(output("p1")).isEqualTo("[1/3] step 1\n[2/3] step 2\n[3/3] step 3\n");
  }

  @Test
  void cancellingACallSendsTheServerNotificationsCancelled() throws Exception {
    start(McpToolSource.builder("srv", serverTransport()).trustReadOnlyHints(true)
        .customize((spec, b) -> b.requiresApproval(false)));
    Batch b = runtime.schedule("s", List.of(CallRequest.of("h1", "srv.hang", "{}")));
    awaitEvent(e -> e instanceof ToolCallEvent.OutputAppended o && o.callId().equals("h1")); // the server runs it
    assertThat(b.cancelAll("the user pressed Esc")).isEqualTo(1);
    assertThat(b.join().get(0).outcome()).isInstanceOf(Outcome.Cancelled.class);

    CallResult listed = run("l1", "srv.cancelled", "{}");
    String text = listed.outcome().messageForModel();
    assertThat(text).matches("toolcall-\\d+:The call was cancelled by the client\\.");
    assertThat(output("h1")).isEqualTo("[0] started\n");
  }

  @Test
  void aToolListChangeInTheMiddleOfATurnChangesTheToolSetAndTheTurnGoesOn() throws Exception {
    start(McpToolSource.builder("srv", serverTransport()).trustReadOnlyHints(true)
        .customize((spec, b) -> b.requiresApproval(false)));
    CountDownLatch changed = new CountDownLatch(1); // the whole change applied: it may come as several events
    runtime.events().subscribe(EventListener.of(e -> {
      if (e instanceof ToolSetEvent && runtime.registry().find("srv.added.tool").isPresent()
          && runtime.registry().find("srv.fail").isEmpty()) {
        changed.countDown();
      }
    }));
    ScriptedModel model = new ScriptedModel().thenCalls(call("e1", "srv_evolve", "{}"));
    CompletableFuture<ModelResponse> second = model.thenHold();
    model.thenText("finished");
    Agent agent = Agent.builder(model, runtime).build();
    var turn = agent.send("evolve");

    assertThat(changed.await(20, TimeUnit.SECONDS)).isTrue();
    second.complete(new ModelResponse("", List.of(call("a1", "srv_added_tool", "{}"), call("f1", "srv_fail", "{}")),
        StopReason.TOOL_CALLS));
    TurnResult r = turn.toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(r.text()).isEqualTo("finished");
    // the server's removeTool, addTool and notify may each announce a change: the adapter applies what it finds at
    // each, so the changes may come as one event or several; together they add one tool and remove one
    List<ToolSetEvent> all = events.stream().filter(x -> x instanceof ToolSetEvent).map(x -> (ToolSetEvent) x)
        .toList();
    assertThat(all.get(0).added()).as("the first is the attachment of the server's tools").contains("srv.echo");
    List<ToolSetEvent> changes = all.subList(1, all.size());
    assertThat(changes.stream().flatMap(c -> c.added().stream())).containsExactly("srv.added.tool");
    assertThat(changes.stream().flatMap(c -> c.removed().stream())).containsExactly("srv.fail");
    assertThat(finalOutcome("a1").messageForModel()).isEqualTo("added answers");
    assertThat(finalOutcome("f1")).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.UNKNOWN_TOOL));
    assertThat(model.requests().get(2).tools()).extracting(ToolDefinition::name)
        .contains("srv_added_tool").doesNotContain("srv_fail");
  }

  /**
   * A result with parts the SDK cannot read (a content type it does not know, an embedded resource with neither text
   * nor blob) keeps the parts it can read, in order, and says what was left out in their place; before, the whole call
   * failed with a Jackson message naming a Java class.
   */
  @Test
  void partsTheSdkCannotReadAreLeftOutAndTheRestKept() {
    start(McpToolSource.builder("srv", serverTransport()).trustReadOnlyHints(true));
    CallResult r = run("v1", "srv.video", "{}");
    assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
    assertThat(r.outcome().messageForModel()).isEqualTo("before\n"
        + "[a part of type 'video' (video/mp4) was left out: this client cannot read it]\n"
        + "[image: image/png, 3 bytes]\n"
        + "[a part of type 'resource' was left out: this client cannot read it]\n"
        + "after");
    assertThat(r.outcome().messageForModel()).doesNotContain("io.modelcontextprotocol").doesNotContain("Jackson");
  }

  /** A result that cannot be read at all fails its call with a message for the model that names no Java type. */
  @Test
  void aResultThatCannotBeReadAtAllFailsWithAMessageForTheModel() {
    Logs.expect(McpToolSource.class);
    start(McpToolSource.builder("srv", serverTransport()).trustReadOnlyHints(true));
    CallResult r = run("u1", "srv.unreadable", "{}");
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.OUTCOME_UNKNOWN);
      assertThat(f.message()).contains("its result could not be read").doesNotContain("io.modelcontextprotocol")
          .doesNotContain("$");
    });
    assertThat(Logs.of(McpToolSource.class)).extracting(Logs.Entry::message)
        .anySatisfy(m -> assertThat(m).contains("could not be read"));
    assertThat(run("e1", "srv.echo", "{\"text\":\"still here\"}").outcome().messageForModel())
        .isEqualTo("echo: still here");
  }

  private ToolSetEvent awaitToolSet(Predicate<ToolSetEvent> p) throws InterruptedException {
    List<ToolSetEvent> seen = new CopyOnWriteArrayList<>();
    awaitEvent(e -> {
      if (e instanceof ToolSetEvent t && p.test(t)) {
        seen.add(t);
        return true;
      }
      return false;
    });
    return events.stream().filter(e -> e instanceof ToolSetEvent t && p.test(t)).map(e -> (ToolSetEvent) e)
        .findFirst().orElseGet(() -> seen.get(0));
  }

  /**
   * With an empty prefix, a tool the server adds by {@code tools/list_changed} whose name the runtime's own tool
   * has is left out with a warning (as attach refuses it), and the server's removing it later does not remove the
   * runtime's tool: a source removes only what it added. Before, the change replaced the runtime's tool and the
   * removal deleted it.
   */
  @Test
  void aListChangeNeverReplacesNorRemovesAToolTheSourceDidNotAdd() throws Exception {
    Logs.expect(McpToolSource.class);
    // the server announces each of its steps; a change still being listed when the test closes the source is logged
    // by the SDK as its session ending
    Logs.expect("io.modelcontextprotocol.spec.McpClientSession");
    source = McpToolSource.builder("srv", serverTransport()).prefix("").trustReadOnlyHints(true).connect();
    Tool own = Tool.of(ToolDefinition.builder("added.tool").description("the runtime's own").requiresApproval(false)
        .build(), inv -> dev.toolcall.ToolResult.of("the runtime's own added.tool"));
    runtime = ToolCallRuntime.builder().tools(own).build();
    runtime.events().subscribe(EventListener.of(events::add));
    source.attach(runtime);

    assertThat(run("s1", "shadow", "{}").outcome().messageForModel()).isEqualTo("shadowed");
    awaitToolSet(t -> t.added().contains("marker.one")); // the list that has marker.one has added.tool too
    assertThat(runtime.registry().require("added.tool")).isSameAs(own);
    assertThat(run("a1", "added.tool", "{}").outcome().messageForModel()).isEqualTo("the runtime's own added.tool");
    assertThat(Logs.of(McpToolSource.class)).extracting(Logs.Entry::message)
        .anySatisfy(m -> assertThat(m).contains("'added.tool'").contains("left out").contains("taken"));

    assertThat(run("u1", "unshadow", "{}").outcome().messageForModel()).isEqualTo("unshadowed");
    awaitToolSet(t -> t.removed().contains("marker.one"));
    assertThat(runtime.registry().require("added.tool")).isSameAs(own);
    assertThat(events.stream().filter(e -> e instanceof ToolSetEvent).map(e -> (ToolSetEvent) e))
        .allSatisfy(t -> assertThat(List.of(t.added(), t.removed(), t.replaced()))
            .noneSatisfy(names -> assertThat(names).contains("added.tool")));
  }

  /**
   * A server tool whose input schema is not a valid JSON Schema is left out with a warning; the server's other
   * tools attach and run. Before, attach threw and none of them could be used.
   */
  @Test
  void aToolWithAnInvalidSchemaIsLeftOutAndTheRestAttach() {
    Logs.expect(McpToolSource.class);
    start(McpToolSource.builder("srv", serverTransport("--bad-schema")).trustReadOnlyHints(true));
    assertThat(runtime.registry().names()).contains("srv.echo").doesNotContain("srv.bad_schema");
    assertThat(source.tools()).extracting(t -> t.definition().name()).contains("srv.echo")
        .doesNotContain("srv.bad_schema");
    assertThat(run("e1", "srv.echo", "{\"text\":\"hi\"}").outcome().messageForModel()).isEqualTo("echo: hi");
    assertThat(Logs.of(McpToolSource.class)).extracting(Logs.Entry::message)
        .anySatisfy(m -> assertThat(m).contains("'bad_schema'").contains("left out"));
  }

  /**
   * A listed tool the SDK cannot read at all (its input schema is a string) is left out with a warning; the server's
   * other tools attach and run. Before, the whole list could not be read, so the connection failed.
   */
  @Test
  void aToolTheSdkCannotReadIsLeftOutAndTheRestAttach() {
    Logs.expect(McpToolSource.class);
    Logs.expect(CancellingTransport.class);
    start(McpToolSource.builder("srv", serverTransport("--unreadable-tool")).trustReadOnlyHints(true));
    assertThat(runtime.registry().names()).contains("srv.echo").doesNotContain("srv.odd");
    assertThat(run("e1", "srv.echo", "{\"text\":\"hi\"}").outcome().messageForModel()).isEqualTo("echo: hi");
    assertThat(Logs.of(CancellingTransport.class)).extracting(Logs.Entry::message)
        .anySatisfy(m -> assertThat(m).contains("'odd'").contains("left out"));
  }

  /**
   * A list change that adds a tool with an invalid schema applies the rest of the change: a removed tool goes, its
   * call waiting for permission is denied for the model, the other added tool comes, and the adapter's view of its
   * tools is the runtime's. Before, the whole change was dropped.
   */
  @Test
  void aListChangeWithAnInvalidSchemaAppliesTheRest() throws Exception {
    Logs.expect(McpToolSource.class);
    // the server announces each of its steps; a change still being listed when the test closes the source is logged
    // by the SDK as its session ending
    Logs.expect("io.modelcontextprotocol.spec.McpClientSession");
    start(McpToolSource.builder("srv", serverTransport()).trustReadOnlyHints(true));
    Batch waiting = runtime.schedule("s", List.of(CallRequest.of("d1", "srv.drop_db", "{}")));
    awaitEvent(e -> e instanceof ToolCallEvent.StateChanged s && s.callId().equals("d1")
        && s.to() == dev.toolcall.ToolCallState.PERMISSION_PENDING);

    assertThat(runtime.schedule("s2", List.of(CallRequest.of("b1", "srv.break", "{}"))).join().get(0).outcome()
        .messageForModel()).isEqualTo("broken");
    awaitToolSet(t -> t.added().contains("srv.marker.two"));

    assertThat(waiting.join().get(0).outcome()).isInstanceOfSatisfying(Outcome.Denied.class,
        d -> assertThat(d.messageForModel()).contains("removed from the tool set"));
    assertThat(runtime.registry().names()).contains("srv.marker.two").doesNotContain("srv.drop_db", "srv.bad_later");
    assertThat(source.tools()).extracting(t -> t.definition().name())
        .containsExactlyElementsOf(runtime.registry().names());
    assertThat(Logs.of(McpToolSource.class)).extracting(Logs.Entry::message)
        .anySatisfy(m -> assertThat(m).contains("'bad_later'").contains("left out"));
  }

  /**
   * Server tool names of 128 characters (the most MCP allows) are kept though the prefix makes them longer: cut
   * with a hash of the whole name so two names that differ only at the end stay apart, and each call reaches the
   * server under the server's own name. Before, both were left out.
   */
  @Test
  void longServerToolNamesAreShortenedAndCallTheServersName() {
    start(McpToolSource.builder("srv", serverTransport("--long-names")).trustReadOnlyHints(true));
    List<String> longOnes = runtime.registry().names().stream().filter(n -> n.startsWith("srv.lll")).toList();
    assertThat(longOnes).hasSize(2).allSatisfy(n -> {
      assertThat(n).hasSizeLessThanOrEqualTo(128).matches("srv\\.l+_[0-9a-f]{8}");
      assertThat(ToolDefinition.NAME.matcher(n).matches()).isTrue();
    });
    assertThat(longOnes.get(0)).isNotEqualTo(longOnes.get(1));
    assertThat(run("l1", longOnes.get(0), "{}").outcome().messageForModel())
        .isEqualTo("long: " + TestMcpServer.LONG_NAME);
    assertThat(run("l2", longOnes.get(1), "{}").outcome().messageForModel())
        .isEqualTo("long: " + TestMcpServer.LONG_NAME_2);
    McpToolSource again = McpToolSource.builder("srv", serverTransport("--long-names")).connect();
    try {
      assertThat(again.tools()).extracting(t -> t.definition().name()).as("the same names on every connection")
          .containsAll(longOnes);
    } finally {
      again.close();
    }
  }

  @Test
  void aServerKilledMidCallFailsItsCallsWithAnUnknownOutcome() throws Exception {
    Logs.expect(McpToolSource.class);
    Logs.expect("io.modelcontextprotocol.client.transport.StdioClientTransport");
    Logs.expect("io.modelcontextprotocol.spec.McpClientSession");
    start(McpToolSource.builder("srv", serverTransport()).livenessInterval(Duration.ofMillis(200))
        .customize((spec, b) -> b.requiresApproval(false)));
    Batch b = runtime.schedule("s", List.of(CallRequest.of("h1", "srv.hang", "{}")));
    awaitEvent(e -> e instanceof ToolCallEvent.OutputAppended o && o.callId().equals("h1")); // the server runs it

    assertThat(serverPids).hasSize(1);
    ProcessHandle server = ProcessHandle.of(serverPids.get(0)).orElseThrow();
    assertThat(server.parent().map(ProcessHandle::pid)).contains(ProcessHandle.current().pid());
    server.destroyForcibly();

    CallResult r = b.join().get(0);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.OUTCOME_UNKNOWN);
      assertThat(f.message()).contains("disconnected while the call ran").contains("may or may not");
    });
    assertThat(source.isDisconnected()).isTrue();
    assertThat(run("h2", "srv.echo", "{}").outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
      assertThat(f.kind()).isEqualTo(FailureKind.TOOL_ERROR);
      assertThat(f.message()).contains("is disconnected");
    });
    source.close(); // its transport reports the killed process here, inside this test
    assertThat(Logs.of(McpToolSource.class)).extracting(Logs.Entry::message)
        .anySatisfy(m -> assertThat(m).contains("is disconnected"));
  }
}
