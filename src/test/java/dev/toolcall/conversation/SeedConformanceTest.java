package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static dev.toolcall.ConversationState.AWAITING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.AWAITING_TOOL_APPROVAL;
import static dev.toolcall.ConversationState.EXECUTING_TOOLS;
import static dev.toolcall.ConversationState.FAILED;
import static dev.toolcall.ConversationState.GENERATING_RESPONSE;
import static dev.toolcall.ConversationState.HANDLING_TOOL_ERROR;
import static dev.toolcall.ConversationState.IDLE;
import static dev.toolcall.ConversationState.PROCESSING_LLM_RESPONSE;
import static dev.toolcall.ConversationState.PROCESSING_TOOL_RESULTS;
import static dev.toolcall.ConversationState.PROCESSING_USER_MESSAGE;
import static dev.toolcall.ConversationState.TRANSIENT_FAILURE;
import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every one of seed 03's 19 edges, each taken by a real {@link Agent} turn in the situation the seed names. Each test
 * asserts the turn's exact sequence of conversation states and, on the same bus, where the calls' events fall in
 * it (a call's terminal event before the conversation leaves {@code executing_tools}, a permission request before
 * {@code awaiting_tool_approval} is left). {@link #theScenariosTakeAllNineteenSeedEdges} runs them all and checks
 * that together they take every edge of the seed's diagram.
 */
class SeedConformanceTest {

  /** The seed's 19 edges, as written in its state diagram. */
  static final List<List<ConversationState>> SEED_EDGES = List.of(
      List.of(IDLE, PROCESSING_USER_MESSAGE),
      List.of(PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE),
      List.of(AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE),
      List.of(AWAITING_LLM_RESPONSE, TRANSIENT_FAILURE),
      List.of(PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL),
      List.of(PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS),
      List.of(PROCESSING_LLM_RESPONSE, HANDLING_TOOL_ERROR),
      List.of(PROCESSING_LLM_RESPONSE, IDLE),
      List.of(AWAITING_TOOL_APPROVAL, EXECUTING_TOOLS),
      List.of(AWAITING_TOOL_APPROVAL, GENERATING_RESPONSE),
      List.of(EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS),
      List.of(EXECUTING_TOOLS, TRANSIENT_FAILURE),
      List.of(EXECUTING_TOOLS, FAILED),
      List.of(PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE),
      List.of(HANDLING_TOOL_ERROR, GENERATING_RESPONSE),
      List.of(GENERATING_RESPONSE, AWAITING_LLM_RESPONSE),
      List.of(TRANSIENT_FAILURE, AWAITING_LLM_RESPONSE),
      List.of(TRANSIENT_FAILURE, EXECUTING_TOOLS),
      List.of(TRANSIENT_FAILURE, FAILED));

  private static final RetryPolicy FAST = new RetryPolicy(3, Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0);

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger flakyAttempts = new AtomicInteger();
  /** Opened when the conversation is back in executing_tools after a tool's transient_failure. */
  private final CountDownLatch sawToolRetry = new CountDownLatch(1);
  private final AtomicInteger executingMoves = new AtomicInteger();
  private final ToolCallRuntime runtime = ToolCallRuntime.builder().tools(
      Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true).requiresApproval(false).build(),
          inv -> ToolResult.of("echo")),
      Tool.of(ToolDefinition.builder("gated").description("needs approval").build(), inv -> ToolResult.of("ran")),
      Tool.of(ToolDefinition.builder("broken").description("fails").readOnly(true).requiresApproval(false).build(),
          inv -> {
            throw new ToolException("disk full");
          }),
      Tool.of(ToolDefinition.builder("flaky").description("fails once").readOnly(true).requiresApproval(false)
          .retryPolicy(FAST).build(), inv -> {
            if (flakyAttempts.incrementAndGet() == 1) {
              throw new TransientToolException("503");
            }
            // the library returns to executing_tools when the backoff has elapsed, about when the attempt starts,
            // with no order between the two; the test makes the order certain to assert the exact sequence
            sawToolRetry.await(10, TimeUnit.SECONDS);
            return ToolResult.of("ok");
          })).build();

  SeedConformanceTest() {
    runtime.events().subscribe(EventListener.of(e -> {
      events.add(e);
      if (e instanceof ConversationEvent c && c.to() == EXECUTING_TOOLS && executingMoves.incrementAndGet() == 2) {
        sawToolRetry.countDown();
      }
    }));
  }

  @AfterEach
  void close() {
    runtime.close();
  }

  private List<ConversationState> states() {
    List<ConversationState> out = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof ConversationEvent c) {
        out.add(c.to());
      }
    }
    return out;
  }

  /** The edges the conversation took, in order. */
  private List<List<ConversationState>> edges() {
    List<ConversationState> s = states();
    List<List<ConversationState>> out = new ArrayList<>();
    for (int i = 1; i < s.size(); i++) {
      out.add(List.of(s.get(i - 1), s.get(i)));
    }
    return out;
  }

  /** Index in the bus's events of the conversation's {@code n}th (0-based) move to {@code state}. */
  private int move(ConversationState state, int n) {
    int seen = 0;
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i) instanceof ConversationEvent c && !c.isCreation() && c.to() == state && seen++ == n) {
        return i;
      }
    }
    throw new AssertionError("no move " + n + " to " + state + " in " + states());
  }

  /** Index of the first event of {@code callId} whose change or state satisfies {@code what}. */
  private int callEvent(String callId, java.util.function.Predicate<ToolCallEvent> what) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i) instanceof ToolCallEvent t && t.sourceId().equals(callId) && what.test(t)) {
        return i;
      }
    }
    throw new AssertionError("no such event of " + callId);
  }

  private int terminal(String callId) {
    return callEvent(callId, t -> t instanceof ToolCallEvent.StateChanged s && s.to().isTerminal());
  }

  private static TurnResult await(CompletableFuture<TurnResult> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private TurnResult run(ScriptedModel model, Agent.Builder b) throws Exception {
    return await(b.build().send("go").toCompletableFuture());
  }

  private PermissionRequest nextRequest() throws InterruptedException {
    return runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
  }

  @Test
  void aFinalTextAnswer() throws Exception {
    run(null, Agent.builder(new ScriptedModel().thenText("hi"), runtime));
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, IDLE);
  }

  @Test
  void autoApprovedToolsThenAnAnswer() throws Exception {
    run(null, Agent.builder(new ScriptedModel().thenCalls(call("c1", "echo", "{}")).thenText("done"), runtime));
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS, GENERATING_RESPONSE,
        AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, IDLE);
    assertThat(terminal("c1")).isBetween(move(EXECUTING_TOOLS, 0), move(PROCESSING_TOOL_RESULTS, 0));
  }

  @Test
  void aPersonApproves() throws Exception {
    Agent agent = Agent.builder(new ScriptedModel().thenCalls(call("c1", "gated", "{}")).thenText("done"), runtime)
        .build();
    CompletableFuture<TurnResult> turn = agent.send("go").toCompletableFuture();
    PermissionRequest r = nextRequest();
    runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
    await(turn);
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL, EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS,
        GENERATING_RESPONSE, AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, IDLE);
    int asked = callEvent("c1", t -> t instanceof ToolCallEvent.StateChanged s
        && s.to() == dev.toolcall.ToolCallState.PERMISSION_PENDING);
    assertThat(asked).isLessThan(move(EXECUTING_TOOLS, 0));
    assertThat(terminal("c1")).isBetween(move(EXECUTING_TOOLS, 0), move(PROCESSING_TOOL_RESULTS, 0));
  }

  @Test
  void aPersonDenies() throws Exception {
    Agent agent = Agent.builder(new ScriptedModel().thenCalls(call("c1", "gated", "{}")).thenText("ok"), runtime)
        .build();
    CompletableFuture<TurnResult> turn = agent.send("go").toCompletableFuture();
    PermissionRequest r = nextRequest();
    runtime.permissions().decide(r.requestId(), Decision.deny(r, "no"));
    await(turn);
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, AWAITING_TOOL_APPROVAL, GENERATING_RESPONSE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, IDLE);
    assertThat(terminal("c1")).isLessThan(move(GENERATING_RESPONSE, 0));
  }

  @Test
  void invalidToolCalls() throws Exception {
    run(null, Agent.builder(new ScriptedModel().thenCalls(call("c1", "ehco", "{}")).thenText("sorry"), runtime));
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, HANDLING_TOOL_ERROR, GENERATING_RESPONSE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, IDLE);
    assertThat(terminal("c1")).isLessThan(move(HANDLING_TOOL_ERROR, 0));
  }

  @Test
  void aRecoverableModelErrorIsRetried() throws Exception {
    run(null, Agent.builder(new ScriptedModel().thenFail(ModelException.Kind.NETWORK).thenText("hi"), runtime)
        .limits(TurnLimits.builder().modelRetry(FAST).build()));
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, TRANSIENT_FAILURE,
        AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, IDLE);
  }

  @Test
  void modelRetriesRunOut() throws Exception {
    TurnResult r = run(null, Agent.builder(new ScriptedModel().thenFail(ModelException.Kind.NETWORK)
        .thenFail(ModelException.Kind.NETWORK).thenFail(ModelException.Kind.NETWORK), runtime)
        .limits(TurnLimits.builder().modelRetry(FAST).build()));
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE, TRANSIENT_FAILURE,
        AWAITING_LLM_RESPONSE, TRANSIENT_FAILURE, AWAITING_LLM_RESPONSE, TRANSIENT_FAILURE, FAILED);
  }

  @Test
  void aRecoverableToolErrorIsRetried() throws Exception {
    run(null, Agent.builder(new ScriptedModel().thenCalls(call("c1", "flaky", "{}")).thenText("done"), runtime));
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, TRANSIENT_FAILURE, EXECUTING_TOOLS, PROCESSING_TOOL_RESULTS,
        GENERATING_RESPONSE, AWAITING_LLM_RESPONSE, PROCESSING_LLM_RESPONSE, IDLE);
    int retry = callEvent("c1", t -> t instanceof ToolCallEvent.RetryScheduled);
    assertThat(retry).isLessThan(move(TRANSIENT_FAILURE, 0));
    assertThat(terminal("c1")).isBetween(move(EXECUTING_TOOLS, 1), move(PROCESSING_TOOL_RESULTS, 0));
  }

  @Test
  void anUnrecoverableToolErrorFailsTheTurnWithTheSeedsPolicy() throws Exception {
    TurnResult r = run(null, Agent.builder(new ScriptedModel().thenCalls(call("c1", "broken", "{}")), runtime)
        .toolFailurePolicy(ToolFailurePolicy.FAIL_TURN));
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(states()).containsExactly(IDLE, PROCESSING_USER_MESSAGE, AWAITING_LLM_RESPONSE,
        PROCESSING_LLM_RESPONSE, EXECUTING_TOOLS, FAILED);
    assertThat(terminal("c1")).isBetween(move(EXECUTING_TOOLS, 0), move(FAILED, 0));
  }

  /** Runs every scenario above on fresh runtimes and checks that together they take all 19 seed edges. */
  @Test
  void theScenariosTakeAllNineteenSeedEdges() throws Exception {
    Set<List<ConversationState>> taken = new HashSet<>();
    Map<ConversationState, Integer> unused = new EnumMap<>(ConversationState.class);
    List<ThrowingScenario> scenarios = List.of(SeedConformanceTest::aFinalTextAnswer,
        SeedConformanceTest::autoApprovedToolsThenAnAnswer, SeedConformanceTest::aPersonApproves,
        SeedConformanceTest::aPersonDenies, SeedConformanceTest::invalidToolCalls,
        SeedConformanceTest::aRecoverableModelErrorIsRetried, SeedConformanceTest::modelRetriesRunOut,
        SeedConformanceTest::aRecoverableToolErrorIsRetried,
        SeedConformanceTest::anUnrecoverableToolErrorFailsTheTurnWithTheSeedsPolicy);
    for (ThrowingScenario s : scenarios) {
      SeedConformanceTest t = new SeedConformanceTest();
      try {
        s.run(t);
        taken.addAll(t.edges());
      } finally {
        t.close();
      }
    }
    assertThat(SEED_EDGES).hasSize(19);
    assertThat(taken).containsAll(SEED_EDGES);
    assertThat(unused).isEmpty();
  }

  @FunctionalInterface
  interface ThrowingScenario {
    void run(SeedConformanceTest t) throws Exception;
  }
}
