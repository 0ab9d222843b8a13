package dev.toolcall.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.toolcall.event.Subscription;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A running call's completion publishes an event while another thread closes a subscription. Either the event
 * reached the listener before {@code close()} returned, or never: once {@code close()} has returned nothing more is
 * delivered.
 *
 * <p>Result: r1 = 1 when the completion won (always), r2 = events the listener had seen when {@code close()}
 * returned, r3 = events it had seen at the end.
 *
 * <p>Run: {@code mvn -P jcstress package && java -jar target/jcstress.jar -t PublishVsSubscriptionClose -m quick}.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "closed first: the event was not delivered")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "delivered before close() returned")
@Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "delivered after close() returned")
@Outcome(expect = FORBIDDEN, desc = "anything else: a lost completion or a duplicate delivery")
@State
public class PublishVsSubscriptionClose {

  private final Races.Fixture f = Races.runningCall();
  private final Races.Recorder late = new Races.Recorder();
  private final Subscription sub = f.bus().subscribe(late);

  @Actor
  public void publish(III_Result r) {
    r.r1 = f.call().complete("done").won() ? 1 : 0;
  }

  @Actor
  public void close(III_Result r) {
    sub.close();
    r.r2 = late.count();
  }

  @Arbiter
  public void arbiter(III_Result r) {
    r.r3 = late.count();
  }
}
