package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.CorruptSnapshotException;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Batch;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26, defect 12: surviving {@code kill -9} takes one line ({@link StateFile#keep}). A child JVM runs a turn that
 * waits for approval, keeping a state file; the test kills it with SIGKILL once the file shows the wait, then a new
 * runtime and agent restore from the file alone: the person approves, the shell runs once (here), and the model gets
 * one result per call and answers.
 */
class StateFileTest {
  @TempDir Path dir;

  static final class Tools {
    final AtomicInteger shellRuns = new AtomicInteger();

    List<Tool> all() {
      return List.of(
          Tool.of(ToolDefinition.builder("read_file").readOnly(true).requiresApproval(false).build(),
              inv -> ToolResult.of("contents of a.txt")),
          Tool.of(ToolDefinition.builder("shell").permissionTimeout(Duration.ofHours(1)).build(), inv -> {
            shellRuns.incrementAndGet();
            return ToolResult.of("tests passed");
          }));
    }
  }

  /** The child process: a turn waiting for approval, its state kept in the file named by {@code args[0]}. */
  public static void main(String[] args) throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(ScriptedModel.call("call_1", "read_file", "{\"path\":\"a\"}"),
        ScriptedModel.call("call_2", "shell", "{\"command\":\"npm test\"}"));
    List<Tool> tools = new Tools().all();
    Path file = Path.of(args[0]);
    // README:begin keep
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools).build();
    Agent agent = Agent.builder(model, runtime).conversationId("conv-7").build();
    StateFile.keep(file, runtime, agent);   // one file, kept current after every change, atomically
    agent.send("Run the tests");            // kill -9 at any moment from here on loses nothing
    // README:end keep
    System.out.println("STARTED");
    System.out.flush();
    while (true) {
      LockSupport.park(); // until killed
    }
  }

  @Test
  void aTurnKilledWithSigkillGoesOnFromTheStateFile() throws Exception {
    Path file = dir.resolve("state.json");
    String java = ProcessHandle.current().info().command().orElse("java");
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        StateFileTest.class.getName(), file.toString()).redirectErrorStream(true).start();
    StateFile.Saved saved;
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("STARTED");
      saved = awaitWaitingState(file);
    } finally {
      child.destroyForcibly(); // SIGKILL: no hook, no last write
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
    Tools restarted = new Tools();
    List<Tool> tools = restarted.all();
    ScriptedModel model = new ScriptedModel().thenText("The tests passed.");
    // README:begin restore
    StateFile.Saved state = StateFile.read(file).orElseThrow();    // what the killed process left
    ToolCallRuntime runtime = ToolCallRuntime.builder().tools(tools).build();
    List<Batch> owed = runtime.restore(state.runtime());
    Agent agent = Agent.builder(model, runtime).resume(state.agent("conv-7").orElseThrow()).build();
    CompletionStage<TurnResult> turn = agent.resume(owed);         // goes on where the turn stopped
    // README:end restore
    try (runtime) {
      assertThat(saved.runtime().calls()).isEqualTo(state.runtime().calls());
      PermissionRequest asked = runtime.permissions().nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(asked.callId()).isEqualTo("call_2");
      assertThat(runtime.permissions().decide(asked.requestId(), Decision.approveOnce(asked)).won()).isTrue();
      TurnResult result = turn.toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(result.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      assertThat(result.text()).isEqualTo("The tests passed.");
      assertThat(restarted.shellRuns).as("the approved call ran once, after the kill").hasValue(1);
      List<Message> sent = model.requests().get(0).messages();
      assertThat(sent).hasSize(4);
      assertThat(sent.get(2)).isEqualTo(new ToolResultMessage("call_1", "read_file", "contents of a.txt", false));
      assertThat(sent.get(3)).isEqualTo(new ToolResultMessage("call_2", "shell", "tests passed", false));
    }
  }

  /** Polls the file the child keeps until it shows the turn waiting for the person (or 30 s pass). */
  private static StateFile.Saved awaitWaitingState(Path file) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Optional<StateFile.Saved> s = StateFile.read(file);
      if (s.isPresent() && s.get().agent("conv-7").map(a -> a.conversation().state())
          .orElse(null) == ConversationState.AWAITING_TOOL_APPROVAL && s.get().runtime().calls().stream()
          .anyMatch(c -> c.callId().equals("call_2") && c.state() == ToolCallState.PERMISSION_PENDING)) {
        return s.get();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the state file never showed the turn waiting: " + (Files.exists(file)
            ? Files.readString(file) : "no file"));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // the poll's pace, not a timing assumption
    }
  }

  @Test
  void theReadmeShowsThisCode() throws Exception {
    dev.toolcall.testing.Readme.assertShows("src/test/java/dev/toolcall/conversation/StateFileTest.java", "keep");
    dev.toolcall.testing.Readme.assertShows("src/test/java/dev/toolcall/conversation/StateFileTest.java", "restore");
  }

  @Test
  void aFileThatIsNotAStateFileIsRefused() throws Exception {
    Path file = dir.resolve("x.json");
    Files.writeString(file, "{\"format\":\"something\"}");
    assertThatThrownBy(() -> StateFile.read(file)).isInstanceOf(CorruptSnapshotException.class);
    assertThat(StateFile.read(dir.resolve("none.json"))).isEmpty();
  }
}
