package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.KnownCalls.CallKey;
import dev.toolcall.execution.KnownCalls.Known;
import dev.toolcall.ToolArguments;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * The call ids of one {@link ToolScheduler}: a request claims its id (a new call, the call already scheduled under
 * it, or a call refused as a duplicate under an id of its own), a claimed call is admitted into its batch (its turn,
 * its run started), a call of a batch refused whole is withdrawn, and a call nothing could refer to is published
 * failed ({@link ToolScheduler#refuse}). Thread-safe as the scheduler is: the window of known calls decides between
 * two claims of one id.
 */
final class Claims {

  private static final Logger log = ToolScheduler.log;

  /** The arguments of a call announced before any of its text came: one value for all of them. */
  private static final ToolArguments NONE_YET = ToolArguments.ofText("");

  final ToolScheduler sched;
  /** The n of the ids given to refused calls ({@link ToolScheduler#refuse}); any thread. */
  private final AtomicLong refused = new AtomicLong();

  Claims(ToolScheduler sched) {
    this.sched = sched;
  }

  /** {@link ToolScheduler#schedule}, its arguments checked and {@code reqs} copied. */
  Batch schedule(String sessionId, List<CallRequest> reqs) {
    Claim[] claims = sched.store != null && reqs.size() > 1 ? new BatchClaim(this, sessionId, reqs).claims()
        : claimEach(sessionId, reqs);
    BatchImpl batch = new BatchImpl(sched, reqs.size(), true);
    for (Claim c : claims) {
      admit(c, batch, batch.append(c.call()), null, null);
    }
    batch.seal();
    return batch;
  }

  /** The claims of a batch, each call created (and stored) by its own write, before any is authorized. */
  private Claim[] claimEach(String sessionId, List<CallRequest> reqs) {
    SeenIds seen = new SeenIds(reqs.size());
    Claim[] claims = new Claim[reqs.size()];
    int made = 0;
    try { // every call is created (and stored) before any is authorized: all of them, or none runs
      for (CallRequest req : reqs) {
        claims[made] = claim(sessionId, req, !seen.add(req.callId()), true);
        made++;
      }
    } catch (RuntimeException | Error e) {
      withdrawFresh(claims, made);
      throw e;
    }
    return claims;
  }

  /** Withdraws the fresh claims among the first {@code made} of {@code claims} (their batch was refused). */
  void withdrawFresh(Claim[] claims, int made) {
    for (int i = 0; i < made; i++) {
      if (claims[i] != null && claims[i].fresh()) {
        withdraw(claims[i]);
      }
    }
  }

  /**
   * A call claimed by a batch: {@code fresh} when the batch created it and runs it (then {@code known} is its
   * reservation in the window of known calls); otherwise a duplicate of an id in the batch or a call already scheduled
   * in the session. {@code validation} is set when the call was created with validated arguments.
   */
  record Claim(ToolCall call, Validator.Validation validation, boolean fresh, Known known) {}

  /**
   * The id rules of one request of a batch: a duplicate id within the batch ({@code duplicate}) gets its own call,
   * failed and published under an id of its own ({@link ToolScheduler#refuse}); an id already scheduled in the session returns that call (nothing runs twice); a new id
   * gets a new PENDING call, whose creation event is published before this returns. With {@code validateNow} the
   * arguments are validated first and the call is created with them; otherwise it is created with the raw text as it
   * stands (a call announced by a stream, validated when its arguments are complete).
   */
  Claim claim(String sessionId, CallRequest req, boolean duplicate, boolean validateNow) {
    if (duplicate) {
      return new Claim(duplicate(sessionId, req, "This response already contains a tool call with id '"
          + req.callId() + "'; each call needs its own id. The duplicate was not run."), null, false, null);
    }
    Known mine = new Known();
    CallKey key = new CallKey(sessionId, req.callId());
    Known existing = sched.known.reserve(key, mine);
    if (existing != null) {
      return known(sessionId, req, existing);
    }
    Validator.Validation v = null;
    ToolCall call;
    try {
      if (validateNow) {
        v = sched.validator.validate(req.toolName(), req.rawArguments());
      }
      call = builder(sessionId, req, v).storeWithFirstChange().build(); // stored with its first change
    } catch (dev.toolcall.DuplicateCallException e) { // the store holds the id from before a restart, or elsewhere
      sched.known.unreserve(key, mine, e);
      return storedAlready(sessionId, req);
    } catch (RuntimeException | Error e) {
      sched.known.unreserve(key, mine, e);
      throw e;
    }
    mine.built(call);
    sched.counters.scheduled.increment();
    return new Claim(call, v, true, mine);
  }

  /**
   * The claim of an id reserved already in the window ({@code existing}): that call while it has not ended, else a
   * duplicate told to the model. Waits until the call is built.
   *
   * @throws java.util.concurrent.CompletionException if that call could not be built (its store failed)
   */
  Claim known(String sessionId, CallRequest req, Known existing) {
    ToolCall same;
    try {
      same = existing.await();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof dev.toolcall.DuplicateCallException) { // it raced a reuse the store refused
        return storedAlready(sessionId, req);
      }
      throw e;
    }
    return new Claim(same != null ? same : duplicate(sessionId, req, "Tool call id '" + req.callId()
        + "' was already used in this session by a call that ended " + existing.endedIn().wireName()
        + ", and its result was given then; each call needs its own id. This call was not run."),
        null, false, null);
  }

  /**
   * The builder of a new call for {@code req}: with the validated arguments of {@code v}, or (null) the raw text as it
   * stands; with the scheduler's store.
   */
  ToolCall.Builder builder(String sessionId, CallRequest req, Validator.Validation v) {
    ToolArguments args = v != null ? argumentsOf(v) : req.rawArguments().isEmpty() ? NONE_YET
        : ToolArguments.ofText(req.rawArguments());
    String name = v instanceof Validator.Valid ok ? ok.tool().definition().name() // found by the validation already
        : sched.validator.canonicalName(req.toolName());
    ToolCall.Builder cb = ToolCall.builder(req.callId(), name)
        .sessionId(sessionId).arguments(args).clock(sched.clock).ticker(sched.ticker).eventBus(sched.bus)
        .origin(req.origin()).label(req.label());
    if (req.parentCallId() != null) {
      cb.parentCallId(req.parentCallId());
    }
    if (sched.store != null) {
      cb.store(sched.store);
    }
    return cb;
  }

  /** The claim of an id the store holds already (this runtime does not know it): a duplicate, told to the model. */
  Claim storedAlready(String sessionId, CallRequest req) {
    return new Claim(duplicate(sessionId, req, "Tool call id '" + req.callId() + "' was already used in this session"
        + " (by a call stored before); each call needs its own id. This call was not run."), null, false, null);
  }

  /**
   * Withdraws a call created for a batch that {@link ToolScheduler#schedule} then refused (another of its calls could not be
   * created): it never runs, and ends CANCELLED, written to the store until the store takes it.
   */
  void withdraw(Claim c) {
    ToolCall call = c.call();
    call.whenTerminal().thenAccept(s -> c.known().ended(s.state()));
    try {
      sched.writes.durably(call, () -> call.cancel("The call was not run: another call of its batch could not be stored, so the"
          + " whole batch was refused."), 0, e -> log.error("call {} ({}) of a refused batch could not be ended: its"
          + " store refuses the change ({})", call.callId(), call.toolName(), e.toString()));
    } catch (RuntimeException e) { // closed meanwhile: the call stays as stored
      log.warn("call {} ({}) of a refused batch could not be ended: {}", call.callId(), call.toolName(), e.toString());
    }
  }

  /**
   * Gives call {@code index} of {@code batch} (appended already) its turn and, when the claim is fresh and
   * validated, starts its run; a call that is not fresh only takes its place (as if read-only: it runs nothing here).
   * Calls are admitted in their batch order, by the one thread that adds them. {@code hold}, when given, keeps the
   * tool from starting until it completes; {@code authorized}, when given, completes once the authorizer has decided
   * that the call may run (an open batch's whenAuthorized).
   */
  void admit(Claim c, BatchImpl batch, int index, CompletableFuture<Void> hold,
      CompletableFuture<Void> authorized) {
    boolean readOnly = true;
    CallRun run = null;
    if (c.fresh()) {
      Validator.Validation v = c.validation();
      run = new CallRun(sched, c.call(), v, batch, c.known());
      if (c.call().identity().parentCallId() != null) {
        sched.nesting.link(c.call());
      }
      run.hold = hold;
      run.authorized = authorized;
      readOnly = !(v instanceof Validator.Valid ok) || ok.tool().definition().readOnly();
    }
    int turn = batch.attach(index, sched.order, readOnly, run);
    if (run != null) {
      run.start(turn);
    }
  }

  ToolCall duplicate(String sessionId, CallRequest req, String message) {
    return refuse(sessionId, req.parentCallId(), req.callId(), req.toolName(), req.rawArguments(),
        FailureKind.DUPLICATE_CALL, message);
  }

  /** {@link ToolScheduler#refuse}. */
  ToolCall refuse(String sessionId, String parentCallId, String callId, String toolName, String rawArguments,
      FailureKind kind, String message) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
    if (kind != FailureKind.DUPLICATE_CALL && kind != FailureKind.UNKNOWN_TOOL) {
      throw new IllegalArgumentException("kind must be DUPLICATE_CALL or UNKNOWN_TOOL, was " + kind);
    }
    if (message.isBlank()) {
      throw new IllegalArgumentException("message must not be blank: the model reads it");
    }
    String id = (callId == null || callId.isBlank() ? "no-id" : callId) + "#" + refused.incrementAndGet();
    ToolCall.Builder cb = ToolCall.builder(id, toolName == null || toolName.isBlank() ? "unnamed" : toolName)
        .sessionId(sessionId).arguments(ToolArguments.ofText(rawArguments == null ? "" : rawArguments))
        .clock(sched.clock).ticker(sched.ticker).eventBus(sched.bus);
    if (parentCallId != null && !parentCallId.isBlank()) {
      cb.parentCallId(parentCallId);
    }
    ToolCall call = cb.build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, ToolScheduler.VALIDATING);
    call.fail(kind, message);
    return call;
  }

  static ToolArguments argumentsOf(Validator.Validation v) {
    return v instanceof Validator.Valid ok ? ok.arguments() : ((Validator.Invalid) v).arguments();
  }
}
