package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ToolCall#whenTerminal()}: one stage per call, which callers cannot complete, and which completes with the
 * terminal snapshot; what callers make from it is theirs.
 */
class WhenTerminalStageTest {

  @Test
  void everyCallerGetsTheSameStageAndNoneCanCompleteIt() {
    ToolCall call = ToolCall.builder("c", "t").build();
    CompletionStage<ToolCallSnapshot> a = call.whenTerminal();
    assertThat((Object) call.whenTerminal()).isSameAs(a);
    CompletableFuture<ToolCallSnapshot> f = (CompletableFuture<ToolCallSnapshot>) a;
    assertThatThrownBy(() -> f.complete(call.snapshot())).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.completeExceptionally(new RuntimeException())).isInstanceOf(
        UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.cancel(true)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.obtrudeValue(null)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> f.orTimeout(1, TimeUnit.NANOSECONDS)).isInstanceOf(UnsupportedOperationException.class);
    assertThat(f.isDone()).isFalse();
  }

  @Test
  void itCompletesWithTheTerminalSnapshotAndItsCopiesAreTheCallers() throws Exception {
    ToolCall call = ToolCall.builder("c", "t").build();
    CompletableFuture<ToolCallSnapshot> copy = call.whenTerminal().toCompletableFuture();
    CompletableFuture<String> dependent = call.whenTerminal().thenApply(s -> s.state().toString())
        .toCompletableFuture();
    assertThat(copy.complete(null)).as("a copy is the caller's to complete").isTrue();
    call.cancel("stop");
    ToolCallSnapshot end = call.snapshot();
    assertThat(call.whenTerminal().toCompletableFuture().get(1, TimeUnit.SECONDS)).isSameAs(end);
    assertThat(dependent.get(1, TimeUnit.SECONDS)).isEqualTo("CANCELLED");
    assertThat(copy.join()).as("completing the copy changed nothing of the call's stage").isNull();
    assertThat(ToolCall.builder("d", "t").build().whenTerminal().toCompletableFuture().isDone()).isFalse();
  }
}
