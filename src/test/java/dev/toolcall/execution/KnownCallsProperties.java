package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.KnownCalls.CallKey;
import dev.toolcall.execution.KnownCalls.Known;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The window of known call ids in flat arrays behaves as the insertion-ordered map it replaced: random sequences of
 * reservations (new and repeated ids), calls built and ended, reservations let go of ({@code unreserve}) and calls
 * handed over ({@code forget}) give the same answers, the same size and the same reservations in the same order as a
 * {@link LinkedHashMap} model with the same trimming rule (while over the cap, the oldest ended ids go; a call not yet
 * ended stops the trim), for windows of 1 to 40 ids, including rings that grow past their first size.
 */
class KnownCallsProperties {

  record Op(int kind, int session, int id) {}

  @Property(tries = 400)
  void behavesAsTheInsertionOrderedMap(@ForAll("ops") List<Op> ops, @ForAll("caps") int cap) {
    KnownCalls window = new KnownCalls(cap);
    Map<CallKey, Known> model = new LinkedHashMap<>();
    Map<Known, ToolCall> built = new IdentityHashMap<>();
    for (Op op : ops) {
      CallKey key = new CallKey("s" + op.session(), "c" + op.id());
      switch (op.kind()) {
        case 0, 1, 2 -> { // reserve (the most frequent)
          Known mine = new Known();
          Known got = window.reserve(key, mine);
          Known expected = model.get(key);
          assertThat(got).isSameAs(expected);
          if (expected == null) {
            model.put(key, mine);
            if (model.size() > cap) {
              var it = model.values().iterator();
              while (model.size() > cap && it.hasNext()) {
                if (it.next().isEnded()) {
                  it.remove();
                } else {
                  break;
                }
              }
            }
          }
        }
        case 3 -> { // the call is built, or ends
          Known k = model.get(key);
          if (k != null && !k.isEnded()) {
            if (built.containsKey(k)) {
              k.ended(ToolCallState.COMPLETED);
            } else {
              ToolCall c = ToolCall.builder(key.callId(), "t").sessionId(key.sessionId()).build();
              built.put(k, c);
              k.built(c);
            }
          }
        }
        case 4 -> { // unreserve (the call could not be built)
          Known k = model.get(key);
          if (k != null && !built.containsKey(k)) {
            window.unreserve(key, k, new IllegalStateException("not built"));
            model.remove(key);
          }
        }
        default -> { // forget (handed over to the store): only the built, not ended call of its reservation
          Known k = model.get(key);
          ToolCall c = k == null ? ToolCall.builder(key.callId(), "t").sessionId(key.sessionId()).build()
              : built.getOrDefault(k, ToolCall.builder(key.callId(), "t").sessionId(key.sessionId()).build());
          boolean expected = k != null && k.callNow() == c;
          assertThat(window.forget(c)).isEqualTo(expected);
          if (expected) {
            model.remove(key);
          }
        }
      }
      assertThat(window.size()).isEqualTo(model.size());
      assertThat(window.get(key)).isSameAs(model.get(key));
    }
    List<ToolCall> expectedCalls = new ArrayList<>();
    for (Known k : model.values()) {
      if (k.callNow() != null) {
        expectedCalls.add(k.callNow());
      }
    }
    assertThat(window.calls()).containsExactlyElementsOf(expectedCalls);
    for (Map.Entry<CallKey, Known> e : model.entrySet()) {
      assertThat(window.get(e.getKey())).isSameAs(e.getValue());
    }
  }

  /** A call not ended at the head of the window holds the ids behind it, ended or not; once it ends they go. */
  @Example
  void aLongCallAtTheHeadKeepsTheWindowUntilItEnds() {
    KnownCalls window = new KnownCalls(4);
    Known first = new Known();
    window.reserve(new CallKey("s", "first"), first);
    for (int i = 0; i < 1000; i++) {
      Known k = new Known();
      window.reserve(new CallKey("s", "c" + i), k);
      k.ended(ToolCallState.COMPLETED);
    }
    assertThat(window.size()).isEqualTo(1001);
    first.ended(ToolCallState.COMPLETED);
    window.reserve(new CallKey("s", "last"), new Known());
    assertThat(window.size()).isEqualTo(4);
    assertThat(window.get(new CallKey("s", "c998"))).isNotNull();
    assertThat(window.get(new CallKey("s", "c996"))).isNull();
    assertThat(window.get(new CallKey("s", "first"))).isNull();
  }

  @Provide
  Arbitrary<Integer> caps() {
    return Arbitraries.oneOf(Arbitraries.integers().between(1, 6), Arbitraries.integers().between(7, 40));
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, 2),
        Arbitraries.oneOf(Arbitraries.integers().between(0, 8), Arbitraries.integers().between(0, 200)))
        .as(Op::new);
    return op.list().ofMinSize(1).ofMaxSize(300);
  }
}
