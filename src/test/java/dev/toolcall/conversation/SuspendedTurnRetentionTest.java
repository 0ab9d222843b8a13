package dev.toolcall.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.testing.ScriptedModel;
import java.lang.ref.WeakReference;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: what a suspended turn keeps is what going on needs, not the result it ended with. The interrupts of that
 * result (each with its response schema, the largest text of a pending approval) are the caller's: once the caller
 * lets go of them, a full collection frees them, and the turn still goes on when decided.
 */
class SuspendedTurnRetentionTest {

  @Test
  void aSuspendedTurnKeepsNoCopyOfTheResultItEndedWith() throws Exception {
    SuspendOnApprovalTest.Tools tools = new SuspendOnApprovalTest.Tools();
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "shell",
        "{\"command\":\"make\"}")).thenText("Built.");
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools.all()).build()) {
      Agent agent = Agent.builder(model, runtime).conversationId("s1").suspendOnApproval(true).build();
      String[] request = new String[1];
      int[] version = new int[1];
      WeakReference<Interrupt> interrupt = sendAndLetGo(agent, request, version);

      for (int i = 0; i < 20 && interrupt.get() != null; i++) {
        System.gc(); // a full collection: an object only weakly reachable is cleared by it
      }
      assertThat(interrupt.get()).as("the interrupt of the result the caller let go of").isNull();

      TurnResult done = SuspendOnApprovalTest.join(agent.resumeWith(List.of(new Decision.ApproveOnce(request[0],
          version[0]))));
      assertThat(done.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(tools.shellRuns).hasValue(1);
    }
  }

  /** Sends, checks the interrupted result and keeps only a weak reference to its interrupt (and its id, version). */
  private static WeakReference<Interrupt> sendAndLetGo(Agent agent, String[] request, int[] version)
      throws Exception {
    TurnResult r = SuspendOnApprovalTest.join(agent.send("build it"));
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.INTERRUPTED);
    Interrupt i = r.interrupts().get(0);
    request[0] = i.requestId();
    version[0] = i.argumentsVersion();
    return new WeakReference<>(i);
  }
}
