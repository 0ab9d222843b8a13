package dev.toolcall.runtime;

import dev.toolcall.CallRecord;
import dev.toolcall.Change;
import dev.toolcall.Reason;
import dev.toolcall.StateTransition;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallIdentity;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Authorizer;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.ToolScheduler;
import dev.toolcall.permission.Grant;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The two directions between live calls and a {@link RuntimeSnapshot}: a call's document entry from its snapshot,
 * and a restored call's snapshot from its entry (a history of its state changes, at the versions and times they were
 * made, on this runtime's ticker), plus the restore itself.
 */
final class RuntimeRestore {
  private final ToolCallRuntime runtime;
  private final Instant now;
  private final long nowTick;
  /**
   * Whether the calls are taken over from a store shared with other runtimes ({@link ToolScheduler#adopt}: an id known
   * here already is left out) rather than restored after a restart.
   */
  private final boolean adopting;
  /**
   * When {@link #adopting}: what kept a waiting call's request from being denied at its deadline ("the database was
   * unreachable"), or null when nothing did ({@link dev.toolcall.permission.PermissionService#resume(ToolCall,
   * ToolDefinition, Instant, String)}). A restore after a restart says the process was down.
   */
  private final String lateReason;

  /** A restore after a restart. */
  RuntimeRestore(ToolCallRuntime runtime, Clock clock, Ticker ticker) {
    this(runtime, clock, ticker, false, null);
  }

  private RuntimeRestore(ToolCallRuntime runtime, Clock clock, Ticker ticker, boolean adopting, String lateReason) {
    this.runtime = runtime;
    this.now = clock.instant();
    this.nowTick = ticker.read();
    this.adopting = adopting;
    this.lateReason = lateReason;
  }

  /**
   * A take-over of calls read from a store shared with other runtimes, which nobody looks after: as a restore, except
   * that a call known here already is left out, and a request past its deadline is denied saying {@code lateReason}
   * (null: as a plain timeout).
   */
  static RuntimeRestore adopting(ToolCallRuntime runtime, Clock clock, Ticker ticker, String lateReason) {
    return new RuntimeRestore(runtime, clock, ticker, true, lateReason);
  }

  /**
   * The document entry of a call that has not ended; {@code askedAt} gives the wall-clock time each open request was
   * opened at (the service's own reading), where known.
   */
  static CallRecord callOf(ToolCallSnapshot s, Map<String, Instant> askedAt) {
    ToolCallIdentity id = s.identity();
    List<CallRecord.Step> path = new ArrayList<>();
    path.add(new CallRecord.Step(ToolCallState.PENDING, 0, id.createdAt()));
    List<ToolCallSnapshot> kept = s.versions();
    ToolCallSnapshot first = kept.get(0);
    if (first.version() != 0 && first.state() != ToolCallState.PENDING) { // a history cut by a user's restore
      path.add(new CallRecord.Step(first.state(), first.version(), first.timestamp()));
    }
    for (StateTransition t : s.history()) {
      path.add(new CallRecord.Step(t.to(), t.version(), t.at()));
    }
    CallRecord.PermissionWait wait = null;
    if (s.state() == ToolCallState.PERMISSION_PENDING) {
      for (ToolCallSnapshot v = s; v != null && v.state() == ToolCallState.PERMISSION_PENDING; v = v.previous()) {
        if (v.change() instanceof Change.PermissionAsked asked) {
          wait = new CallRecord.PermissionWait(asked.requestId(),
              askedAt.getOrDefault(asked.requestId(), v.timestamp()), asked.deadline());
          break;
        }
      }
      if (wait == null) {
        throw new IllegalStateException("call " + s.callId() + " waits for permission without its request in its"
            + " history: " + s);
      }
    }
    return new CallRecord(id.sessionId(), id.callId(), id.toolName(), id.parentCallId(), id.origin(),
        id.createdAt(), s.state(), s.version(), s.arguments().raw(), s.argumentsVersion(), s.attempt(), path, wait,
        s.isTerminal() ? s.outcome() : null, id.label());
  }

  /** The restored call's snapshot: a chain of its state changes, the last being its current version. */
  ToolCallSnapshot snapshotOf(CallRecord c) {
    ToolCallIdentity id = new ToolCallIdentity(c.callId(), c.toolName(), c.sessionId(), c.parentCallId(),
        c.createdAt(), tickOf(c.createdAt()), c.origin(), c.label());
    ToolArguments args = ToolArguments.ofText(c.arguments());
    ToolCallSnapshot s = null;
    List<CallRecord.Step> path = c.path();
    for (int i = 0; i < path.size(); i++) {
      CallRecord.Step step = path.get(i);
      boolean head = i == path.size() - 1 && step.version() == c.version();
      Change change = i == 0 ? Change.Created.INSTANCE
          : step.state() == ToolCallState.RUNNING ? Reason.STARTED : Reason.RESTORED;
      if (head && c.permission() != null) {
        change = asked(c.permission(), c.argumentsVersion());
      }
      int attempt = step.state() == ToolCallState.RUNNING ? Math.max(1, c.attempt()) : 0;
      s = new ToolCallSnapshot(id, step.state(), step.version(), args, Math.min(c.argumentsVersion(), step.version()),
          attempt, step.state().isTerminal() ? c.outcome() : null, change, tickIn(id, step.at()), s);
    }
    if (s.version() != c.version()) {
      Change change = c.permission() != null ? asked(c.permission(), c.argumentsVersion()) : Reason.RESTORED;
      s = new ToolCallSnapshot(id, c.state(), c.version(), args, c.argumentsVersion(), c.attempt(), c.outcome(), change,
          c.permission() != null ? tickIn(id, c.permission().askedAt()) : tickOf(now), s);
    }
    return s;
  }

  private Change.PermissionAsked asked(CallRecord.PermissionWait w, int argumentsVersion) {
    return new Change.PermissionAsked(w.requestId(), argumentsVersion, w.deadline(), tickOf(w.deadline()));
  }

  /**
   * A moment of the call {@code id} as a tick: its creation's tick plus the time since (exact for every moment a
   * document may hold, {@link RuntimeSnapshot#withinRange}), so {@link ToolCallIdentity#instantOf} gives the moment
   * back exactly, however far the call's creation is from now.
   */
  private static long tickIn(ToolCallIdentity id, Instant t) {
    return CallRecord.tickAt(id.createdAt(), id.createdTick(), t);
  }

  /** A wall-clock instant as a reading of this runtime's ticker (only differences of ticks mean anything). */
  long tickOf(Instant t) {
    return tickAt(now, nowTick, t);
  }

  /** The tick of {@code t} on a ticker that read {@code baseTick} at {@code base}. */
  static long tickAt(Instant base, long baseTick, Instant t) {
    Duration d = Duration.between(base, t);
    long nanos;
    try {
      nanos = d.toNanos();
    } catch (ArithmeticException e) { // more than 292 years away: as far as a tick can say
      nanos = d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
    return baseTick + nanos;
  }

  List<Batch> restore(RuntimeSnapshot snapshot) {
    List<Map.Entry<String, Grant>> grants = new ArrayList<>();
    for (int i = 0; i < snapshot.sessionGrants().size(); i++) {
      RuntimeSnapshot.SessionGrant g = snapshot.sessionGrants().get(i);
      grants.add(Map.entry(g.sessionId(), new Grant(g.grantId(), g.toolName(), g.arguments(), g.createdAt(),
          g.expiresAt())));
    }
    Map<String, Instant> askedAt = new java.util.HashMap<>();
    for (CallRecord c : snapshot.calls()) {
      if (c.permission() != null) {
        askedAt.put(c.permission().requestId(), c.permission().askedAt());
      }
    }
    List<List<ToolCallSnapshot>> runs = new ArrayList<>(); // the batches the calls were scheduled in
    for (List<Integer> batch : snapshot.batches()) {
      List<ToolCallSnapshot> run = new ArrayList<>(batch.size());
      for (int i : batch) {
        run.add(snapshotOf(snapshot.calls().get(i)));
      }
      runs.add(run);
    }
    for (Map.Entry<String, Grant> g : grants) {
      runtime.permissions().addSessionGrant(g.getKey(), g.getValue());
    }
    record Waiting(ToolCall call, ToolDefinition definition, CompletableFuture<ToolCallSnapshot> decided,
        String requestId) {}
    List<Waiting> waiting = new ArrayList<>();
    Authorizer reopen = (call, definition) -> {
      CompletableFuture<ToolCallSnapshot> f = new CompletableFuture<>();
      waiting.add(new Waiting(call, definition, f,
          ((Change.PermissionAsked) call.snapshot().change()).requestId())); // the restored head: nothing ran yet
      return f;
    };
    List<Batch> out = new ArrayList<>();
    for (List<ToolCallSnapshot> run : runs) {
      String session = run.get(0).identity().sessionId();
      out.add(adopting ? runtime.scheduler().adopt(session, run, reopen)
          : runtime.scheduler().resume(session, run, reopen));
    }
    Map<String, Integer> place = new java.util.HashMap<>();
    for (String id : snapshot.requestOrder()) {
      place.put(id, place.size());
    }
    waiting.sort(Comparator.comparingInt(w -> place.get(w.requestId()))); // the queue's order, kept
    for (Waiting w : waiting) {
      try { // a deadline passed already is denied there, saying what kept it from being denied at it
        Instant asked = askedAt.get(w.requestId());
        (adopting ? runtime.permissions().resume(w.call(), w.definition(), asked, lateReason)
            : runtime.permissions().resume(w.call(), w.definition(), asked)).whenComplete((s, t) -> {
          if (t != null) {
            w.decided().completeExceptionally(t);
          } else {
            w.decided().complete(s);
          }
        });
      } catch (RuntimeException e) {
        w.decided().completeExceptionally(e);
      }
    }
    return Collections.unmodifiableList(out);
  }
}
