package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import dev.toolcall.execution.Claims.Claim;
import dev.toolcall.execution.KnownCalls.CallKey;
import dev.toolcall.execution.KnownCalls.Known;
import java.util.ArrayList;
import java.util.List;

/**
 * The claims of one batch {@link ToolScheduler#schedule} admits with a call store: its new calls are stored by one
 * write ({@link ToolCall#buildAll}, {@link dev.toolcall.CallStore#createAll}) instead of one each, and each one's
 * PENDING event is published, in batch order, after that write. The same rules as {@link Claims#claim}, in three
 * steps:
 * <ol>
 *   <li>each new id is reserved in the window of known calls and its arguments validated; nothing waits and nothing
 *       is written;</li>
 *   <li>the new calls are stored together and published; each reservation is then resolved: built, or let go with a
 *       {@link dev.toolcall.DuplicateCallException} when the store held that id already (that call alone is refused
 *       as a duplicate, told to the model; the others run);</li>
 *   <li>only then the ids within the batch seen before, and those reserved by another schedule, are answered: this
 *       thread waits for another's reservation only once it holds none unresolved, so two batches that share ids in
 *       opposite orders cannot wait for each other.</li>
 * </ol>
 * When the store fails the write, nothing of the batch was stored (or, with a store that writes one call after the
 * other, the calls it stored are withdrawn as before), every reservation is let go with the failure, and
 * {@code schedule} throws it: the batch is refused whole. One use, on the scheduling thread.
 */
final class BatchClaim {

  private final Claims claims;
  private final ToolScheduler sched;
  private final String sessionId;
  private final List<CallRequest> reqs;
  private final Claim[] out;
  /** Per request: the reservation another schedule holds on its id, else null. */
  private final Known[] existing;
  /** Per request: this batch's reservation of its id (a new call), else null. */
  private final Known[] mine;
  /** Per request: its arguments, validated, for a new call. */
  private final Validator.Validation[] validations;
  /** Per request: a duplicate of an id earlier in the batch. */
  private final boolean[] repeated;

  BatchClaim(Claims claims, String sessionId, List<CallRequest> reqs) {
    this.claims = claims;
    this.sched = claims.sched;
    this.sessionId = sessionId;
    this.reqs = reqs;
    int n = reqs.size();
    this.out = new Claim[n];
    this.existing = new Known[n];
    this.mine = new Known[n];
    this.validations = new Validator.Validation[n];
    this.repeated = new boolean[n];
  }

  /** The claims, in batch order; throws what the store threw (the batch refused, nothing of it left to run). */
  Claim[] claims() {
    int n = reqs.size();
    List<ToolCall.Builder> builders = new ArrayList<>(n);
    try {
      reserve(builders);
    } catch (RuntimeException | Error e) {
      letGo(e);
      throw e;
    }
    ToolCall[] built = new ToolCall[builders.size()];
    try {
      ToolCall.buildAll(builders, built);
    } catch (RuntimeException | Error e) {
      resolve(built);
      claims.withdrawFresh(out, n); // those a store writing one call after the other stored before it failed
      letGo(e);
      throw e;
    }
    resolve(built);
    boolean[] storedBefore = new boolean[n];
    for (int i = 0; i < n; i++) { // not stored: the store holds its id from before a restart, or elsewhere
      if (mine[i] != null) {
        CallRequest req = reqs.get(i);
        sched.known.unreserve(key(req), mine[i], new dev.toolcall.DuplicateCallException(sessionId, req.callId()));
        mine[i] = null;
        storedBefore[i] = true;
      }
    }
    try {
      for (int i = 0; i < n; i++) {
        CallRequest req = reqs.get(i);
        if (storedBefore[i]) {
          out[i] = claims.storedAlready(sessionId, req);
        } else if (repeated[i]) {
          out[i] = claims.claim(sessionId, req, true, true);
        } else if (existing[i] != null) {
          out[i] = claims.known(sessionId, req, existing[i]);
        }
      }
    } catch (RuntimeException | Error e) {
      claims.withdrawFresh(out, n);
      throw e;
    }
    return out;
  }

  /** Step one: reserves each new id and validates its arguments, adding its builder; waits for nothing. */
  private void reserve(List<ToolCall.Builder> builders) {
    SeenIds seen = new SeenIds(reqs.size());
    for (int i = 0; i < reqs.size(); i++) {
      CallRequest req = reqs.get(i);
      if (!seen.add(req.callId())) {
        repeated[i] = true;
        continue;
      }
      Known m = new Known();
      Known other = sched.known.reserve(key(req), m);
      if (other != null) {
        existing[i] = other;
        continue;
      }
      mine[i] = m;
      validations[i] = sched.validator.validate(req.toolName(), req.rawArguments());
      builders.add(claims.builder(sessionId, req, validations[i]));
    }
  }

  /**
   * Step two's end: each reservation of a call that was stored is built (its claim fresh); one whose id the store
   * held already is let go as a duplicate, and its claim is a call refused for the model. {@code built} holds the
   * new calls in the order of their reservations; a reservation whose call was not stored is left for
   * {@link #letGo} when the write failed.
   */
  private void resolve(ToolCall[] built) {
    int b = 0;
    for (int i = 0; i < reqs.size(); i++) {
      if (mine[i] == null) {
        continue;
      }
      ToolCall call = built[b++];
      if (call != null) {
        mine[i].built(call);
        sched.counters.scheduled.increment();
        out[i] = new Claim(call, validations[i], true, mine[i]);
        mine[i] = null;
      }
    }
  }

  /**
   * Lets go of every reservation not built: with {@code failure} when the batch is refused, so whoever waits on one
   * fails as this schedule does.
   */
  private void letGo(Throwable failure) {
    for (int i = 0; i < reqs.size(); i++) {
      if (mine[i] != null) {
        sched.known.unreserve(key(reqs.get(i)), mine[i], failure);
        mine[i] = null;
      }
    }
  }

  private CallKey key(CallRequest req) {
    return new CallKey(sessionId, req.callId());
  }
}
