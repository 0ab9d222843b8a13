package dev.toolcall.execution;

import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolArguments;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@link OpenBatch}. The stream's methods run on one thread at a time (see the interface), so the entries and the
 * admission cursor are touched by that thread only; the calls list lives in the {@link BatchImpl}
 * (guarded there), so {@link #cancelAll} may come from any thread.
 */
final class OpenBatchImpl implements OpenBatch {
  private final ToolScheduler sched;

  final String sessionId;
  final BatchImpl batch;
  final CompletableFuture<Void> hold;
  /*
   * The stream's bookkeeping per call: the stream's thread only, and let go at seal (nothing reads it after: every
   * method that could checks the seal first), so a batch kept while its turn waits (a suspended turn) holds no entry,
   * id or map node per call.
   */
  Set<String> seen = new HashSet<>();
  List<Entry> entries = new ArrayList<>();
  Map<ToolCall, Entry> byCall = new java.util.IdentityHashMap<>();
  final CompletableFuture<Void> authorized = new CompletableFuture<>();
  /** Entries not yet authorized, plus one until sealed: {@link #authorized} completes when it reaches zero. */
  final AtomicInteger unauthorized = new AtomicInteger(1);
  int admitted; // entries [0, admitted) have been started or linked
  volatile boolean sealed;

  OpenBatchImpl(ToolScheduler sched, String sessionId, CompletableFuture<Void> hold) {
    this.sched = sched;
    this.batch = new BatchImpl(sched, 4, false);
    this.sessionId = sessionId;
    this.hold = hold;
  }

  /** One announced call and its raw arguments so far. */
  final class Entry {
    final Claims.Claim claim;
    final int index; // the call's place in the batch
    /**
     * The arguments so far while they are one fragment: that fragment itself, so arguments sent whole (the usual case
     * once a response is complete) are kept as the one string the model's response holds, never copied. Null once
     * the call was admitted (nothing reads them after that).
     */
    String text = "";
    /** The arguments so far once a second fragment came; null before and once admitted. */
    StringBuilder more;
    final Authorized authorized;
    int fragments;
    int published;
    boolean complete;

    Entry(Claims.Claim claim, int index) {
      this.claim = claim;
      this.index = index;
      this.authorized = new Authorized(OpenBatchImpl.this, claim.known());
      unauthorized.incrementAndGet();
      if (claim.fresh()) {
        claim.call().onTerminal(authorized);
      } else {
        authorized.complete(null);
      }
    }

    ToolCall call() {
      return claim.call();
    }

    void append(String fragment) {
      if (more == null && text.isEmpty()) {
        text = fragment;
        return;
      }
      if (more == null) {
        more = new StringBuilder(text.length() + fragment.length()).append(text);
      }
      more.append(fragment);
    }

    int length() {
      return more != null ? more.length() : text.length();
    }

    /** The arguments so far. */
    String raw() {
      return more != null ? more.toString() : text;
    }

    /** Whether this batch still fills in and runs the call. */
    boolean open() {
      return claim.fresh() && !complete && !claim.call().isTerminal();
    }
  }

  @Override
  public ToolCall announce(String callId, String toolName) {
    return announce(CallRequest.of(callId, toolName, ""));
  }

  @Override
  public ToolCall announce(String callId, String toolName, String parentCallId) {
    return announce(CallRequest.of(callId, toolName, "").nestedIn(parentCallId));
  }

  @Override
  public ToolCall announce(CallRequest req) {
    java.util.Objects.requireNonNull(req, "request");
    if (!req.rawArguments().isEmpty()) {
      ToolCall call = announce(new CallRequest(req.callId(), req.toolName(), "", req.parentCallId(), req.origin(),
          req.label()));
      appendArguments(call, req.rawArguments());
      return call;
    }
    String callId = req.callId();
    checkOpen();
    Claims.Claim c = sched.claims.claim(sessionId, req, !seen.add(callId), false);
    Entry e = new Entry(c, batch.append(c.call()));
    entries.add(e);
    byCall.put(c.call(), e);
    if (sched.closed && c.fresh()) {
      c.call().cancel("the runtime was closed");
    }
    return c.call();
  }

  @Override
  public void appendArguments(ToolCall call, String fragment) {
    Objects.requireNonNull(fragment, "fragment");
    Entry e = entry(call);
    if (!e.open() || fragment.isEmpty()) {
      return;
    }
    e.append(fragment);
    e.fragments++;
    int len = e.length();
    if (e.fragments >= 2 && len >= 2L * e.published) {
      e.published = len;
      call.store(); // a call whose arguments stream is stored and shown while they do
      call.modifyArguments(ToolCallState.PENDING, ToolArguments.ofText(e.raw()), STREAMING);
    }
  }

  @Override
  public void complete(ToolCall call) {
    Entry e = entry(call);
    e.complete = true;
    admitReady();
  }

  @Override
  public void fail(ToolCall call, FailureKind kind, String message) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
    if (message.isBlank()) {
      throw new IllegalArgumentException("message must not be blank: the model reads it");
    }
    Entry e = entry(call);
    if (e.open()) {
      failUnrun(e, kind, message);
    }
    e.complete = true;
    admitReady();
  }

  @Override
  public Batch seal() {
    if (sealed) {
      return batch;
    }
    for (Entry e : entries) {
      if (e.open()) {
        failUnrun(e, FailureKind.MALFORMED_ARGUMENTS, "The response ended before the arguments of this call were "
            + "complete, so it was not run. Send the call again with complete arguments.");
      }
      e.complete = true;
    }
    admitReady();
    sealed = true;
    seen = Set.of();
    entries = List.of();
    byCall = Map.of();
    batch.seal();
    authorizedOne(); // the seal's own count
    return batch;
  }

  /** An entry was authorized (or the batch sealed): the last of them completes {@link #authorized}. */
  void authorizedOne() {
    if (unauthorized.decrementAndGet() == 0) {
      authorized.complete(null);
    }
  }

  /**
   * An entry's authorization, which the batch counts ({@link #whenAuthorized}), and the one callback of its call's
   * end: the call's run, once it exists, takes it as its terminal hook ({@link #attach}) instead of chaining a stage
   * of its own on the call; before that (a call cancelled while its arguments stream) the end is told to the known-ids
   * window. Either way the call then counts as authorized, after its terminal event was published (as a denial must).
   * Completed once: by the run when the authorizer lets it go on, or by the call's end.
   */
  static final class Authorized extends CompletableFuture<Void> implements Consumer<ToolCallSnapshot> {
    private static final Object ENDED = new Object();
    private static final VarHandle RUN;

    static {
      try {
        RUN = MethodHandles.lookup().findVarHandle(Authorized.class, "run", Object.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final OpenBatchImpl batch;
    private final KnownCalls.Known known;
    /** Null, the call's run once attached, or ENDED once the call's end was handled; CAS-updated by any thread. */
    @SuppressWarnings("unused")
    private volatile Object run;

    Authorized(OpenBatchImpl batch, KnownCalls.Known known) {
      this.batch = batch;
      this.known = known;
    }

    /**
     * Makes {@code r}'s terminal hook the call's end callback; false when the call has ended already (the run then
     * chains its hook itself, which runs at once).
     */
    boolean attach(CallRun r) {
      return RUN.compareAndSet(this, null, r);
    }

    /** The call ended (its terminal event is out): its run's terminal hook, else the window; then authorized. */
    @Override
    public void accept(ToolCallSnapshot s) {
      if (RUN.getAndSet(this, ENDED) instanceof CallRun r) {
        r.onTerminal(s); // which tells the window, the permits and the batch
      } else {
        known.ended(s.state());
      }
      complete(null);
    }

    @Override
    public boolean complete(Void value) {
      if (!super.complete(value)) {
        return false;
      }
      batch.authorizedOne();
      return true;
    }
  }

  @Override
  public CompletionStage<Void> whenAuthorized() {
    return authorized.minimalCompletionStage();
  }

  @Override
  public List<ToolCall> calls() {
    return batch.calls();
  }

  @Override
  public int cancelAll(String reason) {
    return batch.cancelAll(reason);
  }

  void checkOpen() {
    if (sealed) {
      throw new IllegalStateException("the batch is sealed: no call can be announced or changed any more");
    }
  }

  Entry entry(ToolCall call) {
    Objects.requireNonNull(call, "call");
    checkOpen();
    Entry e = byCall.get(call);
    if (e == null) {
      throw new IllegalArgumentException("call " + call.callId() + " was not announced in this batch");
    }
    return e;
  }

  /** Ends a call this batch will not run: its raw arguments so far installed, then RUNNING -> FAILED. */
  void failUnrun(Entry e, FailureKind kind, String message) {
    ToolCall call = e.call();
    ToolArguments raw = ToolArguments.ofText(e.raw());
    if (!call.snapshot().arguments().equals(raw)) {
      call.modifyArguments(ToolCallState.PENDING, raw, STREAMING);
    }
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, ToolScheduler.VALIDATING);
    call.fail(kind, message);
  }

  /** Starts (or links) every entry whose arguments are complete, in announcement order, up to the first open one. */
  void admitReady() {
    while (admitted < entries.size() && entries.get(admitted).complete) {
      Entry e = entries.get(admitted++);
      ToolCall call = e.call();
      String raw = e.raw();
      e.text = null; // complete: no fragment, failure or seal reads them any more
      e.more = null;
      if (!e.claim.fresh() || call.isTerminal()) {
        sched.claims.admit(new Claims.Claim(call, null, false, null), batch, e.index, null, null);
        continue;
      }
      Validator.Validation v = sched.validator.validate(call.toolName(), raw);
      ToolArguments args = Claims.argumentsOf(v);
      if (!call.snapshot().arguments().equals(args)) {
        call.modifyArguments(ToolCallState.PENDING, args, FINAL);
      }
      sched.claims.admit(new Claims.Claim(call, v, true, e.claim.known()), batch, e.index, hold, e.authorized);
    }
  }
}
