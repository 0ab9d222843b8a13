package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.Reason;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.EventBus;
import dev.toolcall.fsm.IllegalTransitionException;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.testing.RecordingListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * Action chains over one {@link Conversation}: random transitions (legal or not, from the right state or not),
 * new messages, aborts and guard stops. Each step checks its own result against the table; after every step the
 * invariants below are checked on the whole history.
 */
class ConversationProperties {

  static final Reason R = Reason.of("prop", "property step");

  /** The system under test and what a subscriber has seen. */
  static final class Model {
    final AtomicLong ticks = new AtomicLong();
    final EventBus bus = EventBus.create();
    final RecordingListener rec = new RecordingListener();
    final Conversation c;
    int steps;

    Model() {
      bus.subscribe(rec);
      c = Conversation.builder("prop").ticker(ticks::incrementAndGet).eventBus(bus).build();
    }

    @Override
    public String toString() {
      return c.toString();
    }
  }

  /**
   * Invariants, after every step of every chain:
   * <ul>
   *   <li>no edge outside {@link ConversationState#TABLE} is ever taken: every consecutive pair of versions a
   *       subscriber receives is an edge of the table;</li>
   *   <li>versions rise by exactly one per change, from 0;</li>
   *   <li>a subscriber receives every version once, in order, and the retained history is the current turn's
   *       (see {@link #assertSeenEveryVersion});</li>
   *   <li>the turn number equals the number of new messages accepted, and no round trip is counted before the
   *       first turn.</li>
   * </ul>
   */
  @Property(tries = 200)
  void conversationNeverLeavesItsMatrix(@ForAll("chains") ActionChain<Model> chain) {
    chain.withInvariant("history follows the table", m -> {
      List<ConversationSnapshot> seen = new ArrayList<>();
      m.rec.events().forEach(e -> seen.add(((ConversationEvent) e).snapshot()));
      assertSeenEveryVersion(seen, m.c.snapshot());
    }).run();
  }

  /**
   * {@code seen} (what a subscriber got) is every version of {@code last} from 0, each once, in order; each
   * consecutive pair is an edge of the table; the turn number counts the turns begun; and the history {@code last}
   * retains is the tail of {@code seen} from the version before a turn began (or from version 0), that first version
   * being a copy without history. (It is the current turn's when every version was handed off before the next turn
   * began; a race may keep more.)
   */
  static void assertSeenEveryVersion(List<ConversationSnapshot> seen, ConversationSnapshot last) {
    assertThat(seen).hasSize(last.version() + 1);
    int turns = 0;
    for (int i = 0; i < seen.size(); i++) {
      ConversationSnapshot s = seen.get(i);
      assertThat(s.version()).isEqualTo(i);
      if (i > 0) {
        assertThat(s.previousState()).isEqualTo(seen.get(i - 1).state());
        assertThat(ConversationState.TABLE.allows(s.previousState(), s.state()))
            .as("v%s %s -> %s", i, s.previousState(), s.state()).isTrue();
        if (s.state() == ConversationState.PROCESSING_USER_MESSAGE) {
          turns++;
        }
      }
      assertThat(s.turn()).isEqualTo(turns);
    }
    List<ConversationSnapshot> history = last.versions();
    ConversationSnapshot first = history.get(0);
    assertThat(first.previous()).isNull();
    assertThat(first).isEqualTo(seen.get(first.version()).withoutHistory());
    for (int j = 1; j < history.size(); j++) {
      assertThat(history.get(j)).isSameAs(seen.get(first.version() + j));
    }
    assertThat(first.version() == 0 || history.size() > 1
        && history.get(1).state() == ConversationState.PROCESSING_USER_MESSAGE)
        .as("the history is cut only where a turn began").isTrue();
  }

  @Provide
  Arbitrary<ActionChain<Model>> chains() {
    return ActionChain.startWith(Model::new)
        .withAction(3, new AnyPair())
        .withAction(4, new LegalStep())
        .withAction(1, new NewMessage())
        .withAction(1, new Stop())
        .withMaxTransformations(60);
  }

  /** Performs {@code expected -> target} through the method that fits the target. */
  static TransitionResult<ConversationSnapshot> perform(Conversation c, ConversationState expected,
      ConversationState target) {
    return switch (target) {
      case HANDLING_TOOL_ERROR -> c.toolError(expected, "tool", "bad call");
      case TRANSIENT_FAILURE -> c.transientFailure(expected, "flaky");
      case FAILED -> c.fail(expected, "broken");
      default -> c.transition(expected, target, R);
    };
  }

  /** A random pair of states: an illegal edge throws and changes nothing; a legal one wins exactly when current. */
  static final class AnyPair implements Action.Independent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer() {
      Arbitrary<ConversationState> s = Arbitraries.of(ConversationState.class);
      return Combinators.combine(s, s).as((expected, target) -> Transformer.mutate(
          "try " + expected + " -> " + target, m -> {
            ConversationSnapshot before = m.c.snapshot();
            if (!ConversationState.TABLE.allows(expected, target)) {
              assertThatThrownBy(() -> perform(m.c, expected, target))
                  .isInstanceOf(IllegalTransitionException.class);
              assertThat(m.c.snapshot()).isSameAs(before);
              return;
            }
            TransitionResult<ConversationSnapshot> r = perform(m.c, expected, target);
            check(before, r, before.state() == expected, target);
          }));
    }
  }

  /** A legal edge from the current state: always wins. */
  static final class LegalStep implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model m) {
      ConversationState from = m.c.state();
      return Arbitraries.of(from.successors()).map(target -> Transformer.mutate(
          "step " + from + " -> " + target, mm -> {
            ConversationSnapshot before = mm.c.snapshot();
            check(before, perform(mm.c, before.state(), target), true, target);
          }));
    }
  }

  /** A new user message: starts a turn exactly when none is under way. */
  static final class NewMessage implements Action.Independent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer() {
      return Arbitraries.just(Transformer.mutate("new message", m -> {
        ConversationSnapshot before = m.c.snapshot();
        check(before, m.c.startTurn(), !before.state().isBusy(), ConversationState.PROCESSING_USER_MESSAGE);
      }));
    }
  }

  /** An abort or a guard stop: wins exactly when a turn is under way. */
  static final class Stop implements Action.Independent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer() {
      return Arbitraries.of(ConversationReasons.ABORTED, ConversationReasons.ROUND_TRIP_LIMIT,
          ConversationReasons.MODEL_SWITCHED).map(reason -> Transformer.mutate("stop " + reason.code(), m -> {
            ConversationSnapshot before = m.c.snapshot();
            check(before, m.c.stopTurn(reason), before.state().isBusy(), ConversationState.IDLE);
          }));
    }
  }

  static void check(ConversationSnapshot before, TransitionResult<ConversationSnapshot> r, boolean shouldWin,
      ConversationState target) {
    assertThat(r.won()).as("won from %s to %s", before.state(), target).isEqualTo(shouldWin);
    if (shouldWin) {
      assertThat(r.snapshot().version()).isEqualTo(before.version() + 1);
      assertThat(r.snapshot().state()).isEqualTo(target);
      if (target == ConversationState.PROCESSING_USER_MESSAGE) { // a new turn lets go of the turns before it
        assertThat(r.snapshot().previous()).isEqualTo(before.withoutHistory());
      } else {
        assertThat(r.snapshot().previous()).isSameAs(before);
      }
    } else {
      assertThat(r.snapshot()).isSameAs(before);
    }
  }
}
