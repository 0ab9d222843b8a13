package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.OwnedStage;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.testing.Logs;
import dev.toolcall.testing.Race;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OwnedStage#onSettled} on the stage {@link PermissionService#authorize} returns for a request that waits for a
 * person: each action runs once, with the version that left PERMISSION_PENDING, whether it was added before or after
 * the decision or while the decision is made; the first is kept by the request itself, the others wait as on any stage.
 */
class OnSettledTest {

  private final PermissionService permissions = PermissionService.builder().defaultTimeout(Duration.ofHours(1))
      .build();
  private final ToolDefinition shell = ToolDefinition.builder("shell").build();

  @AfterEach
  void close() {
    permissions.close();
  }

  private OwnedStage ask(String id) {
    ToolCall call = ToolCall.builder(id, "shell").sessionId("s").build();
    OwnedStage stage = (OwnedStage) permissions.authorize(call, shell);
    assertThat(call.state()).isEqualTo(ToolCallState.PERMISSION_PENDING);
    return stage;
  }

  private void approve(String callId) {
    PermissionRequest r = permissions.pending().stream().filter(q -> q.callId().equals(callId)).findFirst()
        .orElseThrow();
    assertThat(permissions.decide(r.requestId(), Decision.approveOnce(r))).isInstanceOf(DecisionResult.Won.class);
  }

  @Test
  void everyActionRunsOnceWithTheApprovedVersionBeforeOrAfterTheDecision() {
    OwnedStage stage = ask("c");
    List<String> seen = new CopyOnWriteArrayList<>();
    stage.onSettled(s -> seen.add("kept " + s.state()));
    stage.onSettled(s -> seen.add("second " + s.state()));
    assertThat(seen).isEmpty();
    approve("c");
    assertThat(seen).containsExactlyInAnyOrder("kept PERMISSION_APPROVED", "second PERMISSION_APPROVED");
    stage.onSettled(s -> seen.add("late " + s.state()));
    assertThat(seen).hasSize(3).contains("late PERMISSION_APPROVED");
  }

  @Test
  void anActionThatThrowsIsLoggedAndTheDecisionStands() {
    OwnedStage stage = ask("c");
    stage.onSettled(s -> {
      throw new IllegalStateException("boom");
    });
    approve("c");
    assertThat(stage.join().state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
    assertThat(Logs.of(OwnedStage.class)).singleElement()
        .satisfies(e -> assertThat(e.error()).hasMessage("boom"));
    assertThat(permissions.pending()).isEmpty();
  }

  /**
   * The kept action added by one thread while another approves: it runs exactly once, with the approved version.
   * 300 rounds; one lost or doubled run fails.
   */
  @Test
  void anActionAddedWhileTheRequestIsDecidedRunsExactlyOnce() throws Exception {
    for (int round = 0; round < 300; round++) {
      String id = "c" + round;
      OwnedStage stage = ask(id);
      PermissionRequest r = permissions.pending().stream().filter(q -> q.callId().equals(id)).findFirst()
          .orElseThrow();
      AtomicInteger runs = new AtomicInteger();
      List<ToolCallSnapshot> got = new CopyOnWriteArrayList<>();
      Race.run(2, Duration.ofSeconds(10), t -> {
        if (t == 0) {
          stage.onSettled(s -> {
            runs.incrementAndGet();
            got.add(s);
          });
        } else {
          permissions.decide(r.requestId(), Decision.approveOnce(r));
        }
      });
      assertThat(runs).as("round %d", round).hasValue(1);
      assertThat(got.get(0).state()).isEqualTo(ToolCallState.PERMISSION_APPROVED);
    }
  }

  @Test
  void aCallsWhenTerminalStageRunsItsActionsToo() {
    ToolCall call = ToolCall.builder("t", "shell").build();
    AtomicInteger runs = new AtomicInteger();
    ((OwnedStage) call.whenTerminal()).onSettled(s -> runs.incrementAndGet());
    call.cancel("stop");
    assertThat(runs).hasValue(1);
  }
}
