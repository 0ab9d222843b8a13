package dev.toolcall.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.toolcall.ToolCallSnapshot;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A running call completes on one thread while another asks for {@code whenTerminal()} for the first time. Whichever
 * goes first, the stage completes, with the terminal snapshot: the completing thread checks for a waiting stage after
 * the drain's release, the asking thread checks for a handed-off terminal version after installing its stage, and one
 * of the two sees the other (no volatile write of its own on the completing side).
 *
 * <p>Result: r1 = 1 when the stage was complete once both returned, r2 = 1 when it held the terminal snapshot.
 *
 * <p>Run: {@code mvn -P jcstress package && java -jar target/jcstress.jar -t WhenTerminalVsComplete -m quick}.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the stage completed with the terminal snapshot")
@Outcome(expect = FORBIDDEN, desc = "a stage left pending after the call ended, or completed with another snapshot")
@State
public class WhenTerminalVsComplete {

  private final Races.Fixture f = Races.runningCall();
  private volatile CompletionStage<ToolCallSnapshot> stage;

  @Actor
  public void complete() {
    f.call().complete("done");
  }

  @Actor
  public void await() {
    stage = f.call().whenTerminal();
  }

  @Arbiter
  public void arbiter(II_Result r) {
    CompletableFuture<ToolCallSnapshot> done = stage.toCompletableFuture();
    r.r1 = done.isDone() ? 1 : 0;
    r.r2 = done.isDone() && done.join() == f.call().snapshot() ? 1 : 0;
  }
}
