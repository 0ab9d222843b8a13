package dev.toolcall;

import static dev.toolcall.ToolCallState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.event.Event;
import dev.toolcall.event.EventBus;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.fsm.IllegalTransitionException;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.testing.Histories;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * Stateful properties of the {@link ToolCall} aggregate, checked against a model written in this test (the seed's
 * matrix, {@link ToolCallStateTest#SEED}), not against {@link ToolCallState#TABLE}.
 *
 * <p>A chain applies any sequence of transitions (legal, illegal, from the wrong state), completions, failures,
 * denials, cancels, argument edits, output appends and retries, some of them raced from several threads at once.
 * After every step these invariants hold:
 * <ul>
 *   <li><b>matrix</b>: every state change in the call's history is an edge of the seed's matrix;</li>
 *   <li><b>absorbing</b>: nothing follows a terminal version;</li>
 *   <li><b>versions</b>: the version rises by exactly one per change that won, and not at all otherwise;</li>
 *   <li><b>outcome</b>: a version has an outcome exactly when its state is terminal, and of that state;</li>
 *   <li><b>events = history</b>: each subscriber gets every version of the call once, in order, and each version
 *       the history retains is the one it got (the executor-mode subscriber is checked at the end of the chain,
 *       after it caught up); the history lets go of live output only.</li>
 * </ul>
 */
class ToolCallProperties {

  private static final ExecutorService RACERS = Executors.newFixedThreadPool(8, daemon("racer"));
  private static final ExecutorService LISTENERS = Executors.newFixedThreadPool(2, daemon("listener"));

  @AfterContainer
  static void stopThreads() {
    RACERS.shutdownNow();
    LISTENERS.shutdownNow();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The chain

  /** Any chain of changes keeps all the invariants listed on this class after each step. */
  @Property(tries = 200)
  void anyChainOfChangesKeepsTheInvariants(@ForAll("chains") ActionChain<World> chain) throws Exception {
    World end = chain
        .withInvariant("matrix and absorbing terminal states", World::checkHistory)
        .withInvariant("outcome present iff terminal", World::checkOutcomes)
        .withInvariant("versions rise by one per won change", World::checkVersion)
        .withInvariant("inline subscriber's events equal the history", w -> w.inline.checkEquals(w.call.snapshot()))
        .run();
    end.async.awaitVersion(end.call.snapshot().version());
    end.async.checkEquals(end.call.snapshot());
  }

  @Provide
  Arbitrary<ActionChain<World>> chains() {
    return ActionChain.startWith(World::new)
        .withAction(5, new LegalStep())
        .withAction(3, anyOp())
        .withAction(1, race())
        .withMaxTransformations(30);
  }

  /** A legal move from the current state (so chains reach every state often). */
  static final class LegalStep implements Action.Dependent<World> {
    @Override
    public Arbitrary<Transformer<World>> transformer(World w) {
      ToolCallState cur = w.call.state();
      List<Op> ops = new ArrayList<>();
      for (ToolCallState to : ToolCallStateTest.SEED.get(cur)) {
        ops.add(switch (to) {
          case COMPLETED -> new Complete("done");
          case FAILED -> new Fail(FailureKind.TOOL_ERROR, "boom");
          case PERMISSION_DENIED -> new Deny(DenialSource.USER, "no");
          case CANCELLED -> new Cancel("stop");
          default -> new Transition(cur, to);
        });
        ops.add(to.isTerminal() ? new TerminateAt(cur, true, outcomeOf(to)) : new TransitionAt(cur, true, to));
      }
      if (cur == RUNNING) {
        ops.add(new AppendOutput("out"));
        ops.add(new ScheduleRetry(w.call.snapshot().attempt() + 1));
      }
      if (!cur.isTerminal()) {
        ops.add(new ModifyArguments(cur, "edit"));
      }
      return Arbitraries.of(ops).map(op -> Transformer.mutate(op.toString(), world -> world.apply(op)));
    }

    @Override
    public boolean precondition(World w) {
      return !w.call.state().isTerminal();
    }
  }

  static Action<World> anyOp() {
    return new Action.Independent<World>() {
      @Override
      public Arbitrary<Transformer<World>> transformer() {
        return ops().map(op -> Transformer.mutate(op.toString(), world -> world.apply(op)));
      }
    };
  }

  static Action<World> race() {
    return new Action.Independent<World>() {
      @Override
      public Arbitrary<Transformer<World>> transformer() {
        return ops().list().ofMinSize(2).ofMaxSize(4)
            .map(list -> Transformer.mutate("race " + list, world -> world.race(list)));
      }
    };
  }

  static Arbitrary<Op> ops() {
    Arbitrary<ToolCallState> st = Arbitraries.of(ToolCallState.class);
    return Arbitraries.oneOf(
        Combinators.combine(st, st).as(Transition::new),
        Combinators.combine(st, Arbitraries.of(true, false), st).as(TransitionAt::new),
        Combinators.combine(st, outcomes()).as(Terminate::new),
        Combinators.combine(st, Arbitraries.of(true, false), outcomes()).as(TerminateAt::new),
        Arbitraries.just(new Complete("ok")),
        Arbitraries.just(new CompleteResult("ok")),
        Arbitraries.of(FailureKind.class).map(k -> new Fail(k, "failed")),
        Arbitraries.of(DenialSource.class).map(s -> new Deny(s, "denied")),
        Arbitraries.just(new Cancel("cancel")),
        st.map(s -> new ModifyArguments(s, "user")),
        Combinators.combine(st, Arbitraries.of(true, false)).as((s, fresh) -> new ModifyArgumentsAt(s, fresh, "user")),
        Arbitraries.just(new AppendOutput("chunk")),
        Arbitraries.integers().between(2, 4).map(ScheduleRetry::new));
  }

  static Outcome outcomeOf(ToolCallState terminal) {
    return switch (terminal) {
      case COMPLETED -> new Outcome.Completed("c");
      case FAILED -> new Outcome.Failed(FailureKind.TIMEOUT, "slow");
      case PERMISSION_DENIED -> new Outcome.Denied(DenialSource.POLICY, "rule");
      case CANCELLED -> new Outcome.Cancelled("x");
      default -> throw new IllegalArgumentException("not terminal: " + terminal);
    };
  }

  static Arbitrary<Outcome> outcomes() {
    return Arbitraries.of(new Outcome.Completed("c"), new Outcome.Failed(FailureKind.TIMEOUT, "slow"),
        new Outcome.Denied(DenialSource.POLICY, "rule"), new Outcome.Cancelled("x"));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Racing terminal transitions

  /**
   * Several threads, released together by a start latch, race terminal transitions (and, from RUNNING, output
   * appends) on one call: exactly one terminal transition wins, every terminal loser's result carries the winner's
   * snapshot and outcome, the awaited stage completes with it, and each subscriber sees exactly one terminal event.
   */
  @Property(tries = 100)
  void racingTerminalTransitionsHaveExactlyOneWinner(@ForAll("raceSetups") RaceSetup setup) throws Exception {
    World w = new World();
    for (Op step : pathTo(setup.start())) {
      assertThat(step.apply(w.call).won()).isTrue();
    }
    int before = w.call.snapshot().version();
    List<Op> all = new ArrayList<>(setup.terminals());
    for (int i = 0; i < setup.appenders(); i++) {
      all.add(new AppendOutput("noise"));
    }
    List<TransitionResult<ToolCallSnapshot>> results = runTogether(w.call, all);

    List<TransitionResult<ToolCallSnapshot>> terminal = results.subList(0, setup.terminals().size());
    List<TransitionResult<ToolCallSnapshot>> winners = terminal.stream().filter(TransitionResult::won).toList();
    assertThat(winners).as("winners of %s", setup).hasSize(1);
    ToolCallSnapshot won = winners.get(0).snapshot();
    assertThat(won.isTerminal()).isTrue();
    assertThat(w.call.snapshot()).isSameAs(won);
    for (TransitionResult<ToolCallSnapshot> r : terminal) {
      assertThat(r.snapshot()).as("every loser learns the winner").isSameAs(won);
      assertThat(r.snapshot().outcome()).isEqualTo(won.outcome());
    }
    long appendWins = results.subList(terminal.size(), results.size()).stream().filter(TransitionResult::won).count();
    assertThat(won.version()).isEqualTo(before + appendWins + 1);
    assertThat(w.call.whenTerminal().toCompletableFuture().get(10, TimeUnit.SECONDS)).isSameAs(won);
    w.inline.checkEquals(won);
    w.async.awaitVersion(won.version());
    w.async.checkEquals(won);
    assertThat(w.inline.snapshots().stream().filter(ToolCallSnapshot::isTerminal)).hasSize(1);
  }

  /** A race: the state the call is in, the terminal changes that can all win from it, and output noise. */
  record RaceSetup(ToolCallState start, List<Op> terminals, int appenders) {}

  @Provide
  Arbitrary<RaceSetup> raceSetups() {
    return Arbitraries.of(PENDING, PERMISSION_PENDING, PERMISSION_APPROVED, RUNNING).flatMap(start -> {
      List<Op> candidates = new ArrayList<>(List.of(new Cancel("a"), new Cancel("b"),
          new Terminate(start, new Outcome.Cancelled("terminate"))));
      if (start == RUNNING) {
        candidates.addAll(List.of(new Complete("r1"), new Complete("r2"), new Fail(FailureKind.TOOL_ERROR, "e"),
            new Terminate(RUNNING, new Outcome.Failed(FailureKind.TIMEOUT, "t"))));
      }
      if (start == PERMISSION_PENDING) {
        candidates.addAll(List.of(new Deny(DenialSource.USER, "u"), new Deny(DenialSource.TIMEOUT, "t"),
            new Terminate(PERMISSION_PENDING, new Outcome.Denied(DenialSource.POLICY, "p"))));
      }
      Arbitrary<List<Op>> terminals = Arbitraries.of(candidates).list().ofMinSize(2).ofMaxSize(6);
      Arbitrary<Integer> appenders = start == RUNNING ? Arbitraries.integers().between(0, 2) : Arbitraries.just(0);
      return Combinators.combine(terminals, appenders).as((t, a) -> new RaceSetup(start, t, a));
    });
  }

  static List<Op> pathTo(ToolCallState start) {
    return switch (start) {
      case PENDING -> List.of();
      case PERMISSION_PENDING -> List.of(new Transition(PENDING, PERMISSION_PENDING));
      case PERMISSION_APPROVED -> List.of(new Transition(PENDING, PERMISSION_APPROVED));
      case RUNNING -> List.of(new Transition(PENDING, RUNNING));
      default -> throw new IllegalArgumentException("not a race start: " + start);
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Restore

  /**
   * {@link ToolCall#restore} accepts exactly the histories the seed's matrix allows: a history (any sequence of
   * states from PENDING, each version one above the last) is restored when every change of state in it is an edge and
   * nothing follows a terminal version; otherwise it is refused with an {@link IllegalArgumentException} naming the
   * first bad edge from the newest end, and nothing is published.
   */
  @Property(tries = 300)
  void restoreAcceptsExactlyTheHistoriesTheMatrixAllows(
      @ForAll("histories") List<ToolCallState> states) {
    World w = new World();
    ToolCallSnapshot s = w.call.snapshot();
    for (ToolCallState to : states) {
      s = s.next(to, Reason.of("test", ""), to.isTerminal() ? outcomeOf(to) : null, s.tick() + 1);
    }
    String bad = null;
    List<ToolCallState> all = new ArrayList<>(List.of(PENDING));
    all.addAll(states);
    for (int i = all.size() - 1; i > 0 && bad == null; i--) {
      ToolCallState from = all.get(i - 1);
      ToolCallState to = all.get(i);
      if (from.isTerminal() || from != to && !edge(from, to)) {
        bad = "v" + (i - 1) + " " + from + " -> v" + i + " " + to;
      }
    }
    Recorder rec = new Recorder();
    EventBus bus = EventBus.create();
    bus.subscribe(rec);
    ToolCallSnapshot history = s;
    if (bad == null) {
      assertThat(ToolCall.restore(history, bus, () -> 0L).snapshot()).isSameAs(history);
    } else {
      assertThatThrownBy(() -> ToolCall.restore(history, bus, () -> 0L))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad);
    }
    assertThat(rec.snapshots()).isEmpty();
  }

  @Provide
  Arbitrary<List<ToolCallState>> histories() {
    Arbitrary<ToolCallState> any = Arbitraries.of(ToolCallState.class);
    // half the histories are legal walks, so both answers are exercised often
    Arbitrary<List<ToolCallState>> legal = Arbitraries.integers().between(0, 1000).list().ofMaxSize(6).map(picks -> {
      List<ToolCallState> out = new ArrayList<>();
      ToolCallState cur = PENDING;
      for (int p : picks) {
        List<ToolCallState> next = new ArrayList<>(ToolCallStateTest.SEED.get(cur));
        if (next.isEmpty()) {
          break;
        }
        next.add(cur); // a version that keeps the state (arguments, output, a retry)
        next.sort(null);
        cur = next.get(p % next.size());
        out.add(cur);
      }
      return out;
    });
    return Arbitraries.oneOf(legal, any.list().ofMaxSize(6));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Examples that pin single facts the chain relies on

  /** An ended call never changes again: editing its arguments is refused at once, and nothing is published. */
  @Example
  void argumentsOfAnEndedCallCannotBeModified() {
    World w = new World();
    w.call.transition(PENDING, RUNNING, Reason.STARTED);
    w.call.complete("ok");
    ToolCallSnapshot end = w.call.snapshot();
    assertThatThrownBy(() -> w.call.modifyArguments(COMPLETED, ToolArguments.ofText("x"), "user"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected")
        .hasMessageContaining("COMPLETED");
    assertThat(w.call.snapshot()).isSameAs(end);
    w.inline.checkEquals(end);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The world and its model

  /** The call under test, its two subscribers (inline and on an executor), and the model's expectations. */
  static final class World {
    final AtomicLong ticks = new AtomicLong();
    final EventBus bus = EventBus.create();
    final Recorder inline = new Recorder();
    final Recorder async = new Recorder();
    final ToolCall call;
    int expectedVersion;
    int expectedAttempt;

    World() {
      bus.subscribe(inline);
      bus.subscribe(async, LISTENERS);
      call = ToolCall.builder("call", "tool").sessionId("s").ticker(ticks::incrementAndGet).eventBus(bus).build();
    }

    /** Applies one op on this thread and checks the result against the model's exact prediction. */
    void apply(Op op) {
      ToolCallSnapshot before = call.snapshot();
      Expect e = op.expect(before.state(), expectedAttempt);
      if (e.error() != null) {
        assertThatThrownBy(() -> op.apply(call)).as("%s from %s", op, before.state()).isInstanceOf(e.error());
        assertThat(call.snapshot()).as("a refused %s changes nothing", op).isSameAs(before);
        return;
      }
      TransitionResult<ToolCallSnapshot> r = op.apply(call);
      assertThat(r.won()).as("%s from %s", op, before.state()).isEqualTo(e.wins());
      if (r.won()) {
        expectedVersion++;
        assertThat(r.snapshot()).isSameAs(call.snapshot());
        ToolCallSnapshot link = r.snapshot().previous();
        if (link != before) { // a stretch of live output already handed off was let go, or, leaving PENDING, the
          // argument changes made there
          if (before.change() instanceof Change.ArgumentsModified) {
            assertThat(before.state()).isEqualTo(PENDING);
            assertThat(r.snapshot().state()).isNotEqualTo(PENDING);
            assertThat(link.state()).isEqualTo(PENDING);
            assertThat(link.change()).isNotInstanceOf(Change.ArgumentsModified.class);
          } else {
            assertThat(before.change()).isInstanceOf(Change.OutputAppended.class);
          }
          assertThat(link.version()).isLessThanOrEqualTo(before.version());
        }
        assertThat(r.snapshot().state()).isEqualTo(e.state());
        if (op instanceof ScheduleRetry sr) {
          expectedAttempt = sr.nextAttempt();
        } else if (e.state() == RUNNING && before.state() != RUNNING) {
          expectedAttempt = Math.max(1, expectedAttempt);
        }
        assertThat(r.snapshot().attempt()).isEqualTo(expectedAttempt);
      } else {
        assertThat(r.snapshot()).as("a loser changes nothing and sees the current snapshot").isSameAs(before);
      }
    }

    /** Applies several ops at once from several threads; the model checks what a race cannot reorder. */
    void race(List<Op> ops) {
      ToolCallSnapshot before = call.snapshot();
      boolean wasTerminal = before.isTerminal();
      List<Object> outcomes = runTogetherCatching(call, ops);
      int wins = 0;
      int terminalWins = 0;
      for (int i = 0; i < ops.size(); i++) {
        Expect e = ops.get(i).expect(before.state(), 0);
        Object o = outcomes.get(i);
        if (e.error() != null) {
          assertThat(o).as("%s is refused from any state", ops.get(i)).isInstanceOf(e.error());
          continue;
        }
        assertThat(o).as("%s", ops.get(i)).isInstanceOf(TransitionResult.class);
        @SuppressWarnings("unchecked")
        TransitionResult<ToolCallSnapshot> r = (TransitionResult<ToolCallSnapshot>) o;
        if (r.won()) {
          wins++;
          if (r.snapshot().isTerminal()) {
            terminalWins++;
          }
        }
      }
      assertThat(terminalWins).as("terminal winners").isLessThanOrEqualTo(1);
      if (wasTerminal) {
        assertThat(wins).as("nothing changes an ended call").isZero();
      }
      expectedVersion += wins;
      expectedAttempt = call.snapshot().attempt();
    }

    void checkVersion() {
      assertThat(call.snapshot().version()).isEqualTo(expectedVersion);
    }

    void checkHistory() {
      List<ToolCallSnapshot> versions = call.snapshot().versions();
      for (int i = 0; i < versions.size(); i++) {
        ToolCallSnapshot s = versions.get(i);
        if (i == 0) {
          assertThat(s.version()).isZero();
          assertThat(s.state()).isEqualTo(PENDING);
          continue;
        }
        ToolCallSnapshot prev = versions.get(i - 1);
        assertThat(s.version()).isGreaterThan(prev.version());
        if (s.version() != prev.version() + 1 && prev.state() == PENDING && s.state() != PENDING) {
          // leaving PENDING, the argument changes made there were let go (checked against the events)
        } else if (s.version() != prev.version() + 1) {
          assertThat(s.change()).as("only live output and argument changes of PENDING are let go: v%s after v%s",
              s.version(), prev.version()).isInstanceOf(Change.OutputAppended.class);
          assertThat(prev.state()).isEqualTo(ToolCallState.RUNNING);
        }
        assertThat(prev.state().isTerminal()).as("nothing follows terminal v%s", prev.version()).isFalse();
        if (prev.state() != s.state()) {
          assertThat(ToolCallStateTest.SEED.get(prev.state())).as("edge %s -> %s", prev.state(), s.state())
              .contains(s.state());
          assertThat(s.isStateChange()).isTrue();
          assertThat(s.change()).isNotInstanceOfAny(Change.ArgumentsModified.class, Change.OutputAppended.class,
              Change.RetryScheduled.class);
        }
      }
    }

    void checkOutcomes() {
      for (ToolCallSnapshot s : call.snapshot().versions()) {
        assertThat(s.outcome() != null).as("outcome of v%s in %s", s.version(), s.state())
            .isEqualTo(s.state().isTerminal());
        if (s.outcome() != null) {
          assertThat(s.outcome().state()).isEqualTo(s.state());
        }
      }
    }

    @Override
    public String toString() {
      return "World[" + call + "]";
    }
  }

  /** A subscriber that keeps the snapshots of the events it saw, in arrival order. */
  static final class Recorder implements EventListener {
    private final List<ToolCallEvent> events = new ArrayList<>();

    @Override
    public synchronized void onEvent(Event event) {
      events.add((ToolCallEvent) event);
      notifyAll();
    }

    synchronized List<ToolCallSnapshot> snapshots() {
      return events.stream().map(ToolCallEvent::snapshot).toList();
    }

    /** Waits (at most 10 s, no sleeping) until an event of version {@code v} arrived. */
    synchronized void awaitVersion(long v) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (events.isEmpty() || events.get(events.size() - 1).version() < v) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no event of version " + v + " within 10 s; saw " + events);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    /**
     * The events are every version of {@code last}, 0 to its version, each once, in order, each of the right type;
     * each version the history retains is the event's snapshot (or, for live output, a copy of it).
     */
    synchronized void checkEquals(ToolCallSnapshot last) {
      assertThat(events).hasSize(last.version() + 1);
      for (ToolCallSnapshot kept : last.versions()) {
        ToolCallSnapshot seen = events.get(kept.version()).snapshot();
        if (seen != kept) {
          assertThat(kept.change()).isInstanceOf(Change.OutputAppended.class);
          Histories.assertOutputKept((Change.OutputAppended) kept.change(), (Change.OutputAppended) seen.change());
        }
      }
      java.util.Set<Integer> retained = new java.util.HashSet<>();
      last.versions().forEach(v -> retained.add(v.version()));
      for (ToolCallEvent e : events) {
        ToolCallSnapshot s = e.snapshot();
        if (!retained.contains(s.version())) {
          assertThat(s.change() instanceof Change.OutputAppended
              || s.change() instanceof Change.ArgumentsModified && s.state() == PENDING)
              .as("only live output and argument changes of PENDING are let go; v%s is %s", s.version(), s.change())
              .isTrue();
        }
      }
      for (int i = 0; i < events.size(); i++) {
        ToolCallEvent e = events.get(i);
        ToolCallSnapshot s = e.snapshot();
        assertThat(s.version()).as("event %s", i).isEqualTo(i);
        Class<?> type = i == 0 ? ToolCallEvent.CallCreated.class
            : s.isStateChange() ? ToolCallEvent.StateChanged.class
            : Map.of(Change.ArgumentsModified.class, ToolCallEvent.ArgumentsModified.class,
                Change.OutputAppended.class, ToolCallEvent.OutputAppended.class,
                Change.RetryScheduled.class, ToolCallEvent.RetryScheduled.class).get(s.change().getClass());
        assertThat(e).as("event %s", i).isInstanceOf(type);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Operations and what the model expects of each

  /** The model's prediction: an exception type, or whether the op wins and into which state. */
  record Expect(Class<? extends Throwable> error, boolean wins, ToolCallState state) {
    static Expect refused(Class<? extends Throwable> type) {
      return new Expect(type, false, null);
    }

    static Expect when(boolean wins, ToolCallState state) {
      return new Expect(null, wins, state);
    }
  }

  /** One change a caller can ask of a call. */
  sealed interface Op {
    TransitionResult<ToolCallSnapshot> apply(ToolCall call);

    /** What the seed's matrix says happens when this op runs on a call in {@code current}. */
    Expect expect(ToolCallState current, int attempt);
  }

  static boolean edge(ToolCallState from, ToolCallState to) {
    return ToolCallStateTest.SEED.get(from).contains(to);
  }

  static Expect terminal(ToolCallState expected, ToolCallState target, ToolCallState current) {
    return edge(expected, target) ? Expect.when(current == expected, target)
        : Expect.refused(IllegalTransitionException.class);
  }

  record Transition(ToolCallState expected, ToolCallState target) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.transition(expected, target, Reason.of("test", ""));
    }

    public Expect expect(ToolCallState current, int attempt) {
      if (!edge(expected, target)) {
        return Expect.refused(IllegalTransitionException.class);
      }
      if (target.isTerminal()) {
        return Expect.refused(IllegalArgumentException.class);
      }
      return Expect.when(current == expected, target);
    }
  }

  /**
   * {@code transition(expected, argumentsVersion, target, change)} at the call's current arguments version
   * ({@code fresh}) or at a stale one, which loses whatever the state.
   */
  record TransitionAt(ToolCallState expected, boolean fresh, ToolCallState target) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.transition(expected, argumentsVersion(c, fresh), target, Reason.of("test", ""));
    }

    public Expect expect(ToolCallState current, int attempt) {
      Expect e = new Transition(expected, target).expect(current, attempt);
      return e.error() != null ? e : Expect.when(e.wins() && fresh, target);
    }
  }

  /** {@code terminate(expected, argumentsVersion, outcome, reason)}, fresh or stale as {@link TransitionAt}. */
  record TerminateAt(ToolCallState expected, boolean fresh, Outcome outcome) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.terminate(expected, argumentsVersion(c, fresh), outcome, Reason.of("test", ""));
    }

    public Expect expect(ToolCallState current, int attempt) {
      Expect e = terminal(expected, outcome.state(), current);
      return e.error() != null ? e : Expect.when(e.wins() && fresh, outcome.state());
    }
  }

  /** {@code modifyArguments(expected, argumentsVersion, arguments, by)}, fresh or stale as {@link TransitionAt}. */
  record ModifyArgumentsAt(ToolCallState expected, boolean fresh, String by) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.modifyArguments(expected, argumentsVersion(c, fresh), ToolArguments.ofText("edited by " + by), by);
    }

    public Expect expect(ToolCallState current, int attempt) {
      Expect e = new ModifyArguments(expected, by).expect(current, attempt);
      return e.error() != null ? e : Expect.when(e.wins() && fresh, current);
    }
  }

  /** The call's arguments version now, or one it never had (stale: above every version it has). */
  static int argumentsVersion(ToolCall c, boolean fresh) {
    ToolCallSnapshot s = c.snapshot();
    return fresh ? s.argumentsVersion() : s.version() + 1;
  }

  record Terminate(ToolCallState expected, Outcome outcome) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.terminate(expected, outcome, Reason.of("test", ""));
    }

    public Expect expect(ToolCallState current, int attempt) {
      return terminal(expected, outcome.state(), current);
    }
  }

  record Complete(String content) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.complete(content);
    }

    public Expect expect(ToolCallState current, int attempt) {
      return terminal(RUNNING, COMPLETED, current);
    }
  }

  record CompleteResult(String content) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.complete(dev.toolcall.ToolResult.of(content));
    }

    public Expect expect(ToolCallState current, int attempt) {
      return terminal(RUNNING, COMPLETED, current);
    }
  }

  record Fail(FailureKind kind, String message) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.fail(kind, message);
    }

    public Expect expect(ToolCallState current, int attempt) {
      return terminal(RUNNING, FAILED, current);
    }
  }

  record Deny(DenialSource source, String reason) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.deny(source, reason);
    }

    public Expect expect(ToolCallState current, int attempt) {
      return terminal(PERMISSION_PENDING, PERMISSION_DENIED, current);
    }
  }

  record Cancel(String reason) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.cancel(reason);
    }

    public Expect expect(ToolCallState current, int attempt) {
      return Expect.when(edge(current, CANCELLED), CANCELLED);
    }
  }

  record ModifyArguments(ToolCallState expected, String by) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.modifyArguments(expected, ToolArguments.ofText("edited by " + by), by);
    }

    public Expect expect(ToolCallState current, int attempt) {
      if (expected.isTerminal()) {
        return Expect.refused(IllegalArgumentException.class);
      }
      return Expect.when(current == expected, current);
    }
  }

  record AppendOutput(String chunk) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.appendOutput(chunk, 1, 0);
    }

    public Expect expect(ToolCallState current, int attempt) {
      return Expect.when(current == RUNNING, current);
    }
  }

  record ScheduleRetry(int nextAttempt) implements Op {
    public TransitionResult<ToolCallSnapshot> apply(ToolCall c) {
      return c.scheduleRetry(nextAttempt, Duration.ofMillis(10), "transient");
    }

    public Expect expect(ToolCallState current, int attempt) {
      return Expect.when(current == RUNNING && attempt == nextAttempt - 1, current);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Threads

  /** Runs each op on its own thread, all released by one start latch; returns results in op order. */
  static List<TransitionResult<ToolCallSnapshot>> runTogether(ToolCall call, List<Op> ops) {
    List<TransitionResult<ToolCallSnapshot>> out = new ArrayList<>();
    for (Object o : runTogetherCatching(call, ops)) {
      if (o instanceof Throwable t) {
        throw new AssertionError("racer threw", t);
      }
      @SuppressWarnings("unchecked")
      TransitionResult<ToolCallSnapshot> r = (TransitionResult<ToolCallSnapshot>) o;
      out.add(r);
    }
    return out;
  }

  /** Like {@link #runTogether} but an op's exception is returned in its place. */
  static List<Object> runTogetherCatching(ToolCall call, List<Op> ops) {
    if (ops.size() > 8) {
      throw new IllegalArgumentException("at most 8 racers, got " + ops.size());
    }
    CountDownLatch ready = new CountDownLatch(ops.size());
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Object>> futures = new ArrayList<>();
    for (Op op : ops) {
      futures.add(RACERS.submit(() -> {
        ready.countDown();
        if (!start.await(10, TimeUnit.SECONDS)) {
          throw new AssertionError("start latch not released");
        }
        try {
          return op.apply(call);
        } catch (RuntimeException e) {
          return e;
        }
      }));
    }
    try {
      if (!ready.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("racers did not start");
      }
      start.countDown();
      List<Object> out = new ArrayList<>();
      for (Future<Object> f : futures) {
        out.add(f.get(10, TimeUnit.SECONDS));
      }
      return out;
    } catch (Exception e) {
      throw new AssertionError("race did not finish", e);
    }
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicLong n = new AtomicLong();
    return r -> {
      Thread t = new Thread(r, "properties-" + name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
