package dev.toolcall.conversation;

import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.testing.PermissionFakes.ManualTimer;
import dev.toolcall.testing.PermissionFakes.ManualTicker;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

/**
 * The turn loop against a random scripted model and a random person answering permission requests, on real
 * threads.
 *
 * <p>The model answers with final text, tool calls (of tools that succeed, fail, do not exist, return directly, or need
 * approval), transient, fatal or model-switch errors. Each permission request is answered at random: approved once,
 * approved for the session, denied, or left to time out (the deadline is fired on a manual ticker); by a person on a
 * thread of their own, and, in half the tries, also by an inline listener as the request opens (the two race; the
 * first decision wins). In half the tries the user aborts after a random number of the conversation's events.
 *
 * <p>Invariants: the turn's stage completes; the conversation ends {@code idle} (or {@code failed} exactly when the
 * turn failed), having taken only edges of {@link ConversationState#TABLE}, and every tool call only edges of
 * {@link ToolCallState#TABLE}; no more than {@link TurnLimits#maxRoundTrips()} round trips were made; every tool call
 * created for the turn ends terminal (none is left PENDING or waiting for a decision), and every call the model asked
 * for in a recorded response has exactly one result message, right after its assistant message, in request order; a
 * call that was denied (by a person or a timeout) never entered its tool, and no call entered its tool twice or
 * without passing RUNNING; after the turn (aborted or not) no tool is still running.
 */
class AgentProperties {

  private static final String[] TOOLS = {"echo", "broken", "missing", "lookup", "gated"};
  private static final Duration ASK_TIMEOUT = Duration.ofMinutes(1);

  /** One scripted model answer: kind 0 text, 1 tool calls, 2 transient error, 3 fatal error, 4 model switch. */
  record Step(int kind, List<int[]> calls) {}

  @Provide
  Arbitrary<List<Step>> scripts() {
    Arbitrary<Integer> tool = Arbitraries.frequency(Tuple.of(2, 0), Tuple.of(1, 1), Tuple.of(1, 2), Tuple.of(1, 3),
        Tuple.of(3, 4));
    Arbitrary<int[]> call = Combinators.combine(tool, Arbitraries.integers().between(0, 2))
        .as((t, a) -> new int[] {t, a});
    Arbitrary<Step> step = Combinators.combine(Arbitraries.frequency(Tuple.of(2, 0), Tuple.of(8, 1),
        Tuple.of(2, 2), Tuple.of(1, 3), Tuple.of(1, 4)),
        call.list().ofMinSize(1).ofMaxSize(3)).as(Step::new);
    return step.list().ofMinSize(0).ofMaxSize(8);
  }

  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF) // checked below instead of printed
  void everyTurnEndsWithOneResultPerCallWithinItsLimits(@ForAll("scripts") List<Step> script,
      @ForAll @IntRange(min = 1, max = 4) int maxRoundTrips, @ForAll @IntRange(min = 2, max = 3) int loopThreshold,
      @ForAll @IntRange(min = 1, max = 3) int maxCallsPerTool,
      @ForAll @Size(min = 1, max = 6) List<@IntRange(min = 0, max = 3) Integer> answers,
      @ForAll boolean answerInline, @ForAll boolean abort, @ForAll @IntRange(min = 1, max = 25) int abortAfter)
      throws Exception {
    ScriptedModel model = new ScriptedModel();
    int id = 0;
    for (Step s : script) {
      switch (s.kind()) {
        case 0 -> model.thenText("answer");
        case 1 -> {
          List<ToolCallRequest> calls = new ArrayList<>();
          for (int[] c : s.calls()) {
            calls.add(ScriptedModel.call("c" + (id++), TOOLS[c[0]], "{\"a\":" + c[1] + "}"));
          }
          model.thenCalls(calls.toArray(new ToolCallRequest[0]));
        }
        case 2 -> model.thenFail(ModelException.Kind.NETWORK);
        case 3 -> model.thenFail(ModelException.Kind.INVALID_REQUEST);
        default -> model.thenFail(ModelException.Kind.QUOTA_EXHAUSTED);
      }
    }
    TurnLimits limits = TurnLimits.builder().maxRoundTrips(maxRoundTrips).loopThreshold(loopThreshold)
        .maxCallsPerTool(maxCallsPerTool)
        .modelRetry(new RetryPolicy(2, Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0)).build();

    World w = new World();
    CompletableFuture<Void> stop = new CompletableFuture<>();
    Thread person = null;
    try (ToolCallRuntime runtime = w.runtime()) {
      Person answering = new Person(runtime.permissions(), w.deadlines, answers);
      CompletableFuture<Void> abortPoint = new CompletableFuture<>();
      runtime.events().subscribe(w.recorder(abortAfter, abortPoint));
      if (answerInline) {
        runtime.events().subscribe(answering.inline());
      }
      person = answering.thread(stop);
      person.start();
      Agent agent = Agent.builder(model, runtime).conversationId("p").limits(limits).build();

      var stage = agent.send("go").toCompletableFuture();
      if (abort) {
        CompletableFuture.anyOf(abortPoint, stage).get(10, TimeUnit.SECONDS);
        agent.abort();
      }
      TurnResult r = stage.get(10, TimeUnit.SECONDS);
      Statistics.label("ending").collect(r.ending());
      Statistics.label("asked").collect(answering.asked.get() > 0);
      // the generator reaches the interesting turns: answered ones, aborted ones, and ones where a person was asked
      Statistics.label("ending").coverage(c -> {
        c.check(TurnResult.Ending.ANSWERED).count(n -> n > 0);
        c.check(TurnResult.Ending.ABORTED).count(n -> n > 0);
      });
      Statistics.label("asked").coverage(c -> c.check(true).count(n -> n > 0));

      // nothing is left running or waiting: every call of the turn ends, every tool body has returned
      w.await(() -> w.last.values().stream().allMatch(ToolCallSnapshot::isTerminal), "every call terminal");
      w.await(() -> w.active.get() == 0, "no tool still running");
      assertThat(runtime.permissions().pending()).as("no request left waiting").isEmpty();

      ConversationSnapshot end = agent.conversation().snapshot();
      assertThat(end.state()).isEqualTo(r.ending() == TurnResult.Ending.FAILED ? ConversationState.FAILED
          : ConversationState.IDLE);
      List<ConversationSnapshot> versions = end.versions();
      for (int i = 1; i < versions.size(); i++) {
        assertThat(versions.get(i - 1).state().canTransitionTo(versions.get(i).state()))
            .as("edge %s -> %s", versions.get(i - 1).state(), versions.get(i).state()).isTrue();
      }
      assertThat(end.roundTrips()).isLessThanOrEqualTo(maxRoundTrips);
      assertThat(model.requests().size()).isLessThanOrEqualTo(maxRoundTrips * 2);
      assertThat(r.calls()).allSatisfy(c -> assertThat(c.snapshot().isTerminal()).isTrue());

      for (ToolCallSnapshot s : w.last.values()) {
        List<ToolCallSnapshot> v = s.versions();
        for (int i = 1; i < v.size(); i++) {
          ToolCallState from = v.get(i - 1).state();
          ToolCallState to = v.get(i).state();
          assertThat(from == to || from.canTransitionTo(to)).as("%s: edge %s -> %s", s.callId(), from, to).isTrue();
        }
        int entries = w.entries.getOrDefault(s.callId(), new AtomicInteger()).get();
        assertThat(entries).as("%s entered its tool at most once", s.callId()).isLessThanOrEqualTo(1);
        if (s.outcome() instanceof Outcome.Denied) {
          assertThat(entries).as("denied call %s never entered its tool", s.callId()).isZero();
          Statistics.label("denied").collect(((Outcome.Denied) s.outcome()).source());
        }
        if (entries > 0) {
          assertThat(v).as("%s ran only after RUNNING", s.callId()).anyMatch(x -> x.state() == ToolCallState.RUNNING);
        }
      }

      List<Message> messages = agent.messages();
      Map<String, Integer> resultsPerCall = new HashMap<>();
      for (int i = 0; i < messages.size(); i++) {
        if (messages.get(i) instanceof AssistantMessage a) {
          for (int k = 0; k < a.toolCalls().size(); k++) {
            Message next = messages.get(i + 1 + k);
            assertThat(next).isInstanceOf(ToolResultMessage.class);
            assertThat(((ToolResultMessage) next).callId()).isEqualTo(a.toolCalls().get(k).id());
          }
        } else if (messages.get(i) instanceof ToolResultMessage t) {
          resultsPerCall.merge(t.callId(), 1, Integer::sum);
        }
      }
      assertThat(resultsPerCall.values()).allMatch(n -> n == 1);
      assertThat(r.toolResults()).extracting(ToolResultMessage::callId)
          .containsExactlyElementsOf(resultsPerCall.keySet().stream().sorted(
              (x, y) -> Integer.compare(Integer.parseInt(x.substring(1)), Integer.parseInt(y.substring(1))))
              .toList());
      for (CallResult c : r.calls()) {
        assertThat(resultsPerCall).containsKey(c.callId());
      }
    } finally {
      stop.complete(null);
      if (person != null) {
        person.join(10_000);
      }
    }
  }

  /** The tools, the manual deadline clock, and what the property observes. */
  private static final class World {
    final ManualTicker ticker = new ManualTicker();
    final ManualTimer deadlines = new ManualTimer(ticker);
    final Map<String, AtomicInteger> entries = new ConcurrentHashMap<>();
    final AtomicInteger active = new AtomicInteger();
    /** The latest snapshot of every call of the conversation, from the bus. */
    final Map<String, ToolCallSnapshot> last = new ConcurrentHashMap<>();

    ToolCallRuntime runtime() {
      Tool echo = tool(ToolDefinition.builder("echo").description("echoes").requiresApproval(false).build(),
          inv -> ToolResult.of("echo " + inv.arguments().raw()));
      Tool broken = tool(ToolDefinition.builder("broken").description("fails").requiresApproval(false).build(),
          inv -> {
            throw new ToolException("it broke");
          });
      Tool lookup = tool(ToolDefinition.builder("lookup").description("answers").requiresApproval(false)
          .returnDirect(true).build(), inv -> ToolResult.of("42"));
      Tool gated = tool(ToolDefinition.builder("gated").description("asks first").build(),
          inv -> ToolResult.of("gated ran"));
      return ToolCallRuntime.builder().tools(echo, broken, lookup, gated)
          .permissions(p -> p.approvalMode(ApprovalMode.ASK).ticker(ticker).timer(deadlines)
              .defaultTimeout(ASK_TIMEOUT))
          .build();
    }

    private Tool tool(ToolDefinition def, Tool.Blocking body) {
      return Tool.of(def, inv -> {
        entries.computeIfAbsent(inv.callId(), k -> new AtomicInteger()).incrementAndGet();
        active.incrementAndGet();
        try {
          return body.run(inv);
        } finally {
          active.decrementAndGet();
          signal();
        }
      });
    }

    /** Keeps the latest snapshot of each call; completes {@code abortPoint} at the {@code abortAfter}-th event. */
    EventListener recorder(int abortAfter, CompletableFuture<Void> abortPoint) {
      AtomicInteger seen = new AtomicInteger();
      return new EventListener() {
        @Override
        public void onEvent(Event e) {
          if (e instanceof ToolCallEvent t && "p".equals(t.sessionId())) {
            last.merge(t.callId(), t.snapshot(), (a, b) -> b.version() > a.version() ? b : a);
            signal();
          }
          if (seen.incrementAndGet() == abortAfter) {
            abortPoint.complete(null);
          }
        }
      };
    }

    synchronized void signal() {
      notifyAll();
    }

    /** Waits, bounded, until {@code condition} holds; it is re-checked whenever a call changes or a tool returns. */
    synchronized void await(BooleanSupplier condition, String what) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!condition.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          fail("timed out waiting for: " + what);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /**
   * A person answering permission requests: the n-th request seen gets {@code answers[n % size]}: 0 approve once,
   * 1 deny, 2 let it time out (the deadline is fired on the manual ticker), 3 approve for the session.
   */
  private static final class Person {
    final PermissionService permissions;
    final ManualTimer deadlines;
    final List<Integer> answers;
    final Map<String, Integer> answerOf = new ConcurrentHashMap<>();
    final AtomicInteger asked = new AtomicInteger();

    Person(PermissionService permissions, ManualTimer deadlines, List<Integer> answers) {
      this.permissions = permissions;
      this.deadlines = deadlines;
      this.answers = answers;
    }

    int answerFor(PermissionRequest r) {
      return answerOf.computeIfAbsent(r.requestId(), k -> answers.get(asked.getAndIncrement() % answers.size()));
    }

    void answer(PermissionRequest r, boolean mayTimeOut) {
      switch (answerFor(r)) {
        case 0 -> permissions.decide(r.requestId(), Decision.approveOnce(r));
        case 1 -> permissions.decide(r.requestId(), Decision.deny(r, "no"));
        case 2 -> {
          if (mayTimeOut) {
            deadlines.advance(ASK_TIMEOUT.plusSeconds(1));
          }
        }
        default -> permissions.decide(r.requestId(), Decision.approveForSession(r));
      }
    }

    /** Answers as the request opens, on the thread that opened it (a timeout is left to the thread). */
    EventListener inline() {
      return new EventListener() {
        @Override
        public void onStateChanged(ToolCallEvent.StateChanged e) {
          if (e.to() == ToolCallState.PERMISSION_PENDING) {
            permissions.request(((dev.toolcall.Change.PermissionAsked) e.snapshot().change()).requestId())
                .ifPresent(r -> answer(r, false));
          }
        }
      };
    }

    /** Answers the oldest waiting request, one after the other, until {@code stop}. */
    Thread thread(CompletableFuture<Void> stop) {
      Thread t = new Thread(() -> {
        while (!stop.isDone()) {
          CompletableFuture<PermissionRequest> next = permissions.nextRequest().toCompletableFuture();
          try {
            CompletableFuture.anyOf(next, stop).get(10, TimeUnit.SECONDS);
          } catch (TimeoutException e) {
            continue;
          } catch (Exception e) {
            return;
          }
          if (!stop.isDone()) {
            answer(next.join(), true);
          }
        }
      }, "person");
      t.setDaemon(true);
      return t;
    }
  }
}
