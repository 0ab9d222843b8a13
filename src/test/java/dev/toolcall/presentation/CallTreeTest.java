package dev.toolcall.presentation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallIdentity;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolArguments;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallTreeTest {
  final Calls calls = new Calls();

  @Test
  void childrenInCreationOrderUnderTheirParentAndOrphansAtTheRoot() {
    ToolCall a = calls.call("a", "agent", "");
    calls.advance(Duration.ofMillis(1));
    ToolCall b = calls.call("b", "read", "");
    calls.advance(Duration.ofMillis(1));
    ToolCall a2 = calls.nested("a2", "grep", "a");
    calls.advance(Duration.ofMillis(1));
    ToolCall a1 = calls.nested("a1", "sub", "a");
    calls.advance(Duration.ofMillis(1));
    ToolCall a1x = calls.nested("a1x", "ls", "a1");
    ToolCall orphan = calls.nested("o", "ls", "missing");

    CallTree t = CallTree.of(List.of(orphan.snapshot(), a1x.snapshot(), a1.snapshot(), b.snapshot(),
        a2.snapshot(), a.snapshot()));
    assertThat(t.roots()).extracting(CallTree.Node::callId).containsExactly("a", "b", "o");
    assertThat(t.nodes()).extracting(CallTree.Node::callId).containsExactly("a", "a2", "a1", "a1x", "b", "o");
    assertThat(t.nodes()).extracting(CallTree.Node::depth).containsExactly(0, 1, 1, 2, 0, 0);
    CallTree.Node a1n = t.find("a1").orElseThrow();
    assertThat(a1n.isNested()).isTrue();
    assertThat(a1n.hasNested()).isTrue();
    assertThat(t.find("a").orElseThrow().isNested()).isFalse();
    assertThat(t.find("b").orElseThrow().hasNested()).isFalse();
    assertThat(t.find("o").orElseThrow().isNested()).as("an orphan is still nested by identity").isTrue();
    assertThat(t.size()).isEqualTo(6);
    assertThat(t.find("zz")).isEmpty();
  }

  @Test
  void theHighestVersionOfACallWins() {
    ToolCall a = calls.call("a", "read", "");
    ToolCallSnapshot v0 = a.snapshot();
    calls.run(a);
    CallTree t = CallTree.of(List.of(a.snapshot(), v0));
    assertThat(t.size()).isEqualTo(1);
    assertThat(t.nodes().get(0).snapshot()).isSameAs(a.snapshot());
    assertThat(CallTree.of(List.of(v0, a.snapshot())).nodes().get(0).snapshot()).isSameAs(a.snapshot());
    assertThat(CallTree.of(List.of()).isEmpty()).isTrue();
  }

  /** Parent links that form a cycle (bad data) still show every call exactly once. */
  @Test
  void aCycleOfParentLinksShowsEveryCallOnce() {
    ToolCallSnapshot x = snapshot("x", "y", 1);
    ToolCallSnapshot y = snapshot("y", "x", 2);
    ToolCallSnapshot z = snapshot("z", null, 3);
    CallTree t = CallTree.of(List.of(y, z, x));
    assertThat(t.nodes()).extracting(CallTree.Node::callId).containsExactlyInAnyOrder("x", "y", "z");
    assertThat(t.roots()).extracting(CallTree.Node::callId).containsExactly("x", "z");
    assertThat(t.find("y").orElseThrow().depth()).isEqualTo(1);
  }

  private static ToolCallSnapshot snapshot(String id, String parent, long tick) {
    return ToolCallSnapshot.initial(new ToolCallIdentity(id, "t", "s", parent, Calls.T0, tick),
        ToolArguments.empty());
  }
}
