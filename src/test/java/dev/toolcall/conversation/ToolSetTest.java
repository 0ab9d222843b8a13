package dev.toolcall.conversation;

import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.event.ToolSetEvent;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolRegistry;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tool set changes without rebuilding the runtime: tools are added, removed and replaced; a call keeps the tool
 * it was validated with; pending approvals and grants survive, except that a removed tool's pending request is
 * denied with a reason for the model; each change is one event, in order; and names MCP allows reach the model
 * under reversible aliases.
 */
class ToolSetTest {
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private ToolCallRuntime runtime;

  private static Tool tool(String name, String answer, boolean ask) {
    return Tool.of(ToolDefinition.builder(name).description(name).requiresApproval(ask).build(),
        inv -> ToolResult.of(answer));
  }

  private ToolCallRuntime start(Tool... tools) {
    runtime = ToolCallRuntime.builder().tools(tools).build();
    runtime.events().subscribe(EventListener.of(events::add));
    return runtime;
  }

  @AfterEach
  void close() {
    if (runtime != null) {
      runtime.close();
    }
  }

  private CallResult run(String id, String name) {
    return runtime.schedule("s", List.of(CallRequest.of(id, name, "{}"))).join().get(0);
  }

  private List<ToolSetEvent> toolSetEvents() {
    return events.stream().filter(e -> e instanceof ToolSetEvent).map(e -> (ToolSetEvent) e).toList();
  }

  @Test
  void anAddedToolIsCallableByTheNextBatchAndTheChangeIsOneEvent() {
    start(tool("a", "A", false));
    assertThat(run("c1", "b").outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
        f -> assertThat(f.kind()).isEqualTo(FailureKind.UNKNOWN_TOOL));

    ToolSetEvent e = runtime.updateTools(r -> r.with(tool("b", "B", false))).orElseThrow();

    assertThat(run("c2", "b").outcome().messageForModel()).isEqualTo("B");
    assertThat(e.version()).isEqualTo(1);
    assertThat(e.added()).containsExactly("b");
    assertThat(e.removed()).isEmpty();
    assertThat(e.replaced()).isEmpty();
    assertThat(e.definitions()).extracting(ToolDefinition::name).containsExactly("a", "b");
    assertThat(e.sourceId()).isEqualTo(ToolSetEvent.SOURCE_ID);
    assertThat(toolSetEvents()).containsExactly(e);
    assertThat(runtime.registry().names()).containsExactly("a", "b");
  }

  @Test
  void aChangeThatAltersNothingPublishesNothingAndABadChangeChangesNothing() {
    start(tool("a", "A", false));
    assertThat(runtime.updateTools(r -> r.without("nope"))).isEmpty();
    assertThatThrownBy(() -> runtime.updateTools(r -> r.with(tool("x", "1", false), tool("x", "2", false))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate tool name 'x'");
    assertThat(toolSetEvents()).isEmpty();
    assertThat(runtime.registry().names()).containsExactly("a");
  }

  @Test
  void aRunningCallKeepsTheToolItStartedWithWhenTheToolIsReplaced() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Tool slowOld = Tool.of(ToolDefinition.builder("job").description("job").requiresApproval(false).build(), inv -> {
      started.countDown();
      release.await(10, TimeUnit.SECONDS);
      return ToolResult.of("old");
    });
    start(slowOld);
    Batch inFlight = runtime.schedule("s", List.of(CallRequest.of("c1", "job", "{}")));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    ToolSetEvent e = runtime.updateTools(r -> r.with(tool("job", "new", false))).orElseThrow();
    release.countDown();

    assertThat(inFlight.join().get(0).outcome().messageForModel()).isEqualTo("old");
    assertThat(run("c2", "job").outcome().messageForModel()).isEqualTo("new");
    assertThat(e.replaced()).containsExactly("job");
  }

  @Test
  void aPendingRequestOfARemovedToolIsDeniedForTheModelAfterTheChangeEvent() throws Exception {
    start(tool("deploy", "deployed", true), tool("read", "read", false));
    Batch b = runtime.schedule("s", List.of(CallRequest.of("c1", "deploy", "{}")));
    PermissionRequest req = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();

    runtime.updateTools(r -> r.without("deploy"));

    CallResult r = b.join().get(0);
    assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Denied.class, d -> {
      assertThat(d.source()).isEqualTo(DenialSource.POLICY);
      assertThat(d.messageForModel()).contains("removed from the tool set");
    });
    assertThat(runtime.permissions().pending()).isEmpty();
    assertThat(runtime.permissions().decide(req.requestId(), Decision.approveOnce(req)).won()).isFalse();
    int change = indexOf(e -> e instanceof ToolSetEvent);
    int denial = indexOf(e -> e instanceof ToolCallEvent.StateChanged s
        && s.snapshot().state() == ToolCallState.PERMISSION_DENIED);
    assertThat(change).isNotNegative().isLessThan(denial);
  }

  private int indexOf(java.util.function.Predicate<Event> p) {
    List<Event> all = new ArrayList<>(events);
    for (int i = 0; i < all.size(); i++) {
      if (p.test(all.get(i))) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void pendingRequestsOfKeptToolsAndSessionGrantsSurviveAChange() throws Exception {
    start(tool("deploy", "deployed", true));
    Batch first = runtime.schedule("s", List.of(CallRequest.of("c1", "deploy", "{}")));
    PermissionRequest req = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();

    runtime.updateTools(r -> r.with(tool("other", "o", true)));

    assertThat(runtime.permissions().pending()).extracting(PermissionRequest::requestId)
        .containsExactly(req.requestId());
    assertThat(runtime.permissions().decide(req.requestId(), Decision.approveForSession(req)).won()).isTrue();
    assertThat(first.join().get(0).outcome().messageForModel()).isEqualTo("deployed");

    runtime.updateTools(r -> r.without("other"));
    assertThat(run("c2", "deploy").outcome().messageForModel()).isEqualTo("deployed"); // the grant, no request
    assertThat(toolSetEvents()).extracting(ToolSetEvent::version).containsExactly(1L, 2L);
  }

  @Test
  void namesMcpAllowsAreOfferedToTheModelUnderReversibleAliases() {
    String longName = "server.tools/" + "x".repeat(100);
    start(tool("github/create.issue", "created", false), tool("github_create_issue", "plain", false),
        tool(longName, "long", false));
    ToolRegistry reg = runtime.registry();

    String alias = reg.modelName("github/create.issue");
    assertThat(alias).matches(ToolDefinition.MODEL_NAME).isNotEqualTo("github_create_issue");
    assertThat(reg.modelName("github_create_issue")).isEqualTo("github_create_issue");
    assertThat(reg.modelName(longName)).matches(ToolDefinition.MODEL_NAME).hasSize(64);
    assertThat(reg.modelDefinitions()).extracting(ToolDefinition::name)
        .allMatch(n -> ToolDefinition.MODEL_NAME.matcher(n).matches())
        .containsExactly(alias, "github_create_issue", reg.modelName(longName));
    assertThat(reg.canonicalName(alias)).isEqualTo("github/create.issue");
    assertThat(reg.canonicalName("github_create_issue")).isEqualTo("github_create_issue");

    CallResult viaAlias = run("c1", alias);
    assertThat(viaAlias.outcome().messageForModel()).isEqualTo("created");
    assertThat(viaAlias.toolName()).isEqualTo("github/create.issue");
    assertThat(run("c2", "github_create_issue").outcome().messageForModel()).isEqualTo("plain");
    assertThat(run("c3", reg.modelName(longName)).outcome().messageForModel()).isEqualTo("long");
    assertThat(run("c4", "github/create.isue").outcome().messageForModel())
        .contains("Did you mean github_create_issue?").contains("Available tools: " + alias + ", github_create_issue, ")
        .doesNotContain("github/create.issue");
    assertThatThrownBy(() -> ToolDefinition.builder("has space").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'.' or '/'");
  }

  @Test
  void anAgentOffersTheChangedSetFromItsNextRequest() throws Exception {
    start(tool("a", "A", false));
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "a", "{}")).thenText("one")
        .thenCalls(call("c2", "b_c", "{}")).thenText("two");
    Agent agent = Agent.builder(model, runtime).build();
    agent.send("first").toCompletableFuture().get(10, TimeUnit.SECONDS);

    runtime.updateTools(r -> r.with(tool("b.c", "BC", false)));
    TurnResult second = agent.send("second").toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(model.requests().get(0).tools()).extracting(ToolDefinition::name).containsExactly("a");
    assertThat(model.requests().get(2).tools()).extracting(ToolDefinition::name).containsExactly("a", "b_c");
    assertThat(second.text()).isEqualTo("two");
    assertThat(agent.messages()).filteredOn(m -> m instanceof ToolResultMessage)
        .extracting(m -> ((ToolResultMessage) m).content()).containsExactly("A", "BC");
  }

  /**
   * Calls scheduled from four threads while a fifth replaces the tool 100 times (a start latch, real threads):
   * every call ends COMPLETED, runs exactly once (one version of the tool, whose answer it returns), and the 100
   * changes reach the listener once each, in order. That a call runs the version it was validated with is
   * {@link #aRunningCallKeepsTheToolItStartedWithWhenTheToolIsReplaced}.
   */
  @Test
  void callsRacingReplacementsEachRunOneVersionOnce() throws Exception {
    java.util.Map<String, List<Integer>> ran = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.function.IntFunction<Tool> version = v -> Tool.of(ToolDefinition.builder("job").description("job")
        .requiresApproval(false).build(), inv -> {
          ran.computeIfAbsent(inv.callId(), k -> new CopyOnWriteArrayList<>()).add(v);
          return ToolResult.of("v" + v);
        });
    start(version.apply(0));
    int threads = 4;
    int each = 100;
    CountDownLatch go = new CountDownLatch(1);
    List<CallResult> results = new CopyOnWriteArrayList<>();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      ts.add(new Thread(() -> {
        try {
          go.await();
          for (int i = 0; i < each; i++) {
            results.add(run("t" + id + "-" + i, "job"));
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    ts.add(new Thread(() -> {
      try {
        go.await();
        for (int v = 1; v <= 100; v++) {
          Tool next = version.apply(v);
          runtime.updateTools(r -> r.with(next));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    ts.forEach(Thread::start);
    go.countDown();
    for (Thread th : ts) {
      th.join(60_000);
    }
    assertThat(results).hasSize(threads * each).allSatisfy(r -> {
      assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
      assertThat(ran.get(r.callId())).as("versions run by %s", r.callId()).hasSize(1);
      assertThat(r.outcome().messageForModel()).isEqualTo("v" + ran.get(r.callId()).get(0));
    });
    assertThat(toolSetEvents()).extracting(ToolSetEvent::version)
        .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 100).boxed().toList());
    assertThat(toolSetEvents()).allSatisfy(e -> assertThat(e.replaced()).containsExactly("job"));
  }

  @Test
  void concurrentChangesAreSerialisedAndEveryoneSeesThemInOrderOnce() throws Exception {
    start(tool("a", "A", false));
    int threads = 4;
    int each = 50;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread th = new Thread(() -> {
        try {
          go.await();
          for (int i = 0; i < each; i++) {
            String n = "t" + id + "_" + i;
            runtime.updateTools(r -> r.with(tool(n, n, false)));
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      th.start();
      ts.add(th);
    }
    go.countDown();
    for (Thread th : ts) {
      th.join(30_000);
    }
    List<ToolSetEvent> seen = toolSetEvents();
    assertThat(seen).extracting(ToolSetEvent::version)
        .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, threads * each).boxed().toList());
    assertThat(seen).allSatisfy(e -> assertThat(e.added()).hasSize(1));
    assertThat(runtime.registry().size()).isEqualTo(1 + threads * each);
    for (int i = 0; i < seen.size(); i++) { // each event's set is the previous one plus what it added
      assertThat(seen.get(i).definitions()).hasSize(2 + i);
    }
  }
}
