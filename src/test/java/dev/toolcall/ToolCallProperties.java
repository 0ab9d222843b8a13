package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.event.EventBus;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.fsm.IllegalTransitionException;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.testing.RecordingListener;
import dev.toolcall.tool.ToolArguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * Action chains over the {@link ToolCall} aggregate.
 *
 * <p>Invariants checked after every action of every chain:
 * <ul>
 *   <li>no edge outside {@link ToolCallState#TABLE} is ever taken (each recorded transition is an edge);</li>
 *   <li>terminal states are absorbing (once terminal, every later action loses or throws and changes nothing);</li>
 *   <li>versions rise by exactly one per change, and the outcome is present exactly when terminal;</li>
 *   <li>a subscriber's event sequence equals the call's history ({@code snapshot().versions()}).</li>
 * </ul>
 * And with real threads: of several racing terminal transitions exactly one wins and every loser's result carries
 * the winner's outcome.
 */
class ToolCallProperties {

  /** The model under test: a call, its subscriber, and the last snapshot seen before the action. */
  static final class Model {
    final RecordingListener rec = new RecordingListener();
    final ToolCall call;
    ToolCallSnapshot before;

    Model() {
      EventBus bus = EventBus.create();
      bus.subscribe(rec);
      call = ToolCall.builder("call", "tool").eventBus(bus).build();
      before = call.snapshot();
    }

    void check() {
      ToolCallSnapshot now = call.snapshot();
      if (before.isTerminal()) {
        assertThat(now).as("terminal is absorbing").isSameAs(before);
      }
      assertThat(now.version()).isBetween(before.version(), before.version() + 1);
      assertThat(now.isTerminal()).isEqualTo(now.state().isTerminal());
      for (StateTransition t : now.history()) {
        assertThat(t.from().canTransitionTo(t.to())).as("%s -> %s is an edge", t.from(), t.to()).isTrue();
      }
      List<ToolCallSnapshot> events = rec.events().stream().map(e -> ((ToolCallEvent) e).snapshot()).toList();
      assertThat(events).isEqualTo(now.versions());
      before = now;
    }

    @Override
    public String toString() {
      return call.snapshot().toString();
    }
  }

  /** A random step: any transition (legal or not), a terminal method, an edit, output or a retry. */
  static Action.Independent<Model> step() {
    Arbitrary<ToolCallState> states = Arbitraries.of(ToolCallState.class);
    Arbitrary<Transformer<Model>> transition = net.jqwik.api.Combinators.combine(states, states)
        .as((from, to) -> Transformer.mutate("transition " + from + " -> " + to, m -> {
          try {
            m.call.transition(from, to, Reason.of("prop", ""));
          } catch (IllegalTransitionException | IllegalArgumentException refused) {
            // an illegal edge or a terminal target: must change nothing (checked by the invariant)
          }
          m.check();
        }));
    Arbitrary<Transformer<Model>> terminal = Arbitraries.of(
        Transformer.mutate("complete", m -> {
          m.call.complete("ok");
          m.check();
        }),
        Transformer.mutate("fail", m -> {
          m.call.fail(FailureKind.TOOL_ERROR, "boom");
          m.check();
        }),
        Transformer.mutate("deny", m -> {
          m.call.deny(DenialSource.USER, "no");
          m.check();
        }),
        Transformer.mutate("cancel", m -> {
          m.call.cancel("stop");
          m.check();
        }),
        Transformer.mutate("edit", m -> {
          m.call.modifyArguments(ToolCallState.PERMISSION_PENDING, ToolArguments.ofText("edited"), "user");
          m.check();
        }),
        Transformer.mutate("output", m -> {
          m.call.appendOutput("x", 1, 0);
          m.check();
        }),
        Transformer.mutate("retry", m -> {
          m.call.scheduleRetry(Math.max(2, m.call.snapshot().attempt() + 1), Duration.ofMillis(1), "transient");
          m.check();
        }));
    return () -> Arbitraries.oneOf(transition, terminal);
  }

  @Provide
  Arbitrary<ActionChain<Model>> chains() {
    return ActionChain.startWith(Model::new).withAction(step()).withMaxTransformations(30);
  }

  @Property(tries = 300)
  void anySequenceKeepsTheInvariants(@ForAll("chains") ActionChain<Model> chain) {
    chain.run();
  }

  @Provide
  Arbitrary<List<Integer>> racers() {
    return Arbitraries.integers().between(0, 3).list().ofMinSize(2).ofMaxSize(4);
  }

  /** Racing terminal transitions from real threads: exactly one wins; every loser learns the winner's outcome. */
  @Property(tries = 40)
  void racingTerminalTransitionsHaveExactlyOneWinner(@ForAll("racers") List<Integer> kinds) throws Exception {
    ToolCall call = ToolCall.builder("c", "t").build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    ExecutorService pool = Executors.newFixedThreadPool(kinds.size());
    try {
      CyclicBarrier start = new CyclicBarrier(kinds.size());
      List<Future<TransitionResult<ToolCallSnapshot>>> fs = new ArrayList<>();
      for (int k : kinds) {
        fs.add(pool.submit(() -> {
          start.await(10, TimeUnit.SECONDS);
          return switch (k) {
            case 0 -> call.complete("ok");
            case 1 -> call.fail(FailureKind.TOOL_ERROR, "boom");
            case 2 -> call.cancel("stop");
            default -> call.terminate(ToolCallState.RUNNING, new Outcome.Cancelled("abort"), Reason.CANCELLED);
          };
        }));
      }
      List<TransitionResult<ToolCallSnapshot>> results = new ArrayList<>();
      for (var f : fs) {
        results.add(f.get(10, TimeUnit.SECONDS));
      }
      assertThat(results.stream().filter(TransitionResult::won)).hasSize(1);
      Outcome winner = call.snapshot().outcome();
      assertThat(results).allSatisfy(r -> assertThat(r.snapshot().outcome()).isEqualTo(winner));
      assertThat(call.snapshot().version()).isEqualTo(2);
    } finally {
      pool.shutdownNow();
    }
  }
}
