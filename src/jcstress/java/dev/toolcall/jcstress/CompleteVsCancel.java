package dev.toolcall.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.toolcall.Outcome;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.fsm.TransitionResult;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A running call: one thread completes it while another cancels it. Exactly one wins; the loser's result carries
 * the winner's outcome; the final state is the winner's; the subscriber saw created, running and the one terminal
 * event, last.
 *
 * <p>Result: r1 = complete (1 won, 2 lost and saw the cancellation, 9 anything else), r2 = cancel (1 won, 2 lost
 * and saw the result, 9 anything else), r3 = final state (1 completed, 2 cancelled, 9 other), r4 = events (1 when
 * the subscriber saw exactly three events ending with the final state, 0 otherwise).
 *
 * <p>Run: {@code mvn -P jcstress package && java -jar target/jcstress.jar -t CompleteVsCancel -m quick}.
 */
@JCStressTest
@org.openjdk.jcstress.annotations.Outcome(id = "1, 2, 1, 1", expect = ACCEPTABLE,
    desc = "complete won; cancel lost and learned the result")
@org.openjdk.jcstress.annotations.Outcome(id = "2, 1, 2, 1", expect = ACCEPTABLE,
    desc = "cancel won; complete lost and learned the cancellation")
@org.openjdk.jcstress.annotations.Outcome(expect = FORBIDDEN,
    desc = "no winner, two winners, a loser that did not learn the winner, or events that disagree")
@State
public class CompleteVsCancel {

  private final Races.Fixture f = Races.runningCall();

  @Actor
  public void complete(IIII_Result r) {
    TransitionResult<ToolCallSnapshot> res = f.call().complete("result");
    r.r1 = res.won() ? 1 : res.snapshot().outcome() instanceof Outcome.Cancelled ? 2 : 9;
  }

  @Actor
  public void cancel(IIII_Result r) {
    TransitionResult<ToolCallSnapshot> res = f.call().cancel("user");
    r.r2 = res.won() ? 1 : res.snapshot().outcome() instanceof Outcome.Completed ? 2 : 9;
  }

  @Arbiter
  public void arbiter(IIII_Result r) {
    r.r3 = Races.finalState(f.call(), Outcome.Completed.class, Outcome.Cancelled.class);
    r.r4 = f.recorder().sawLifecycleEndingIn(f.call().snapshot()) ? 1 : 0;
  }

}
