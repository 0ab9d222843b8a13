package dev.toolcall.execution;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One batch: its calls in request order, their turns, and the future of their results.
 *
 * <p>Turns. Every gate of {@link ExecutionOrder} is a prefix condition: a call may start once calls
 * {@code 0..turn-1} of its batch have ended (SEQUENTIAL: all earlier calls; PARALLEL_READS: all earlier calls for
 * a write, everything up to the last write before it for a read; PARALLEL: none). So the batch keeps the length of
 * its ended prefix and the runs waiting for a longer one; each call's terminal hook records its end, advances the
 * prefix and starts the runs whose turn came, outside the lock. The results complete, once, when the batch is
 * sealed and every call added to it has ended; they are the terminal snapshots handed to those hooks, which run
 * after each terminal event was published.
 */
final class BatchImpl implements Batch {
  private final ToolScheduler sched;

  final CompletableFuture<List<CallResult>> done = new CompletableFuture<>();
  ToolCall[] calls; // guarded by this; appended by the scheduling thread
  ToolCallSnapshot[] ends; // guarded by this; a call's terminal snapshot once its hook ran
  int added; // guarded by this; written only by the scheduling thread, which may read it unlocked
  int writeEnd; // index + 1 of the last write added; scheduling thread only
  int prefix; // guarded by this: calls 0..prefix-1 have ended
  int open; // guarded by this: calls added and not ended
  boolean sealed; // guarded by this
  ArrayList<CallRun> waiting; // guarded by this: runs whose turn has not come
  List<ToolCall> sealedCalls; // guarded by this; made on the first calls() after seal
  String cancelled; // guarded by this: set by cancelAll; calls appended later are cancelled at once
  /** The thread adding calls while their starts may be deferred ({@link #deferStart}); null once sealed or open. */
  Thread scheduling;
  CallRun deferredHead; // scheduling thread only: runs ready to begin before the batch was sealed, linked
  CallRun deferredTail; // through CallRun.nextDeferred in the order they became ready
  /** Told of the calls' retries; set before the first call is announced, then read-only. */
  RetryListener retries = RetryListener.NONE;

  /**
   * @param deferStarts whether runs that become ready on this thread before {@link #seal()} are handed to the
   *     executor together at the seal (for {@link #schedule}, which creates the whole batch at once); an open batch
   *     passes false, its calls start as their arguments complete
   */
  BatchImpl(ToolScheduler sched, int size, boolean deferStarts) {
    this.sched = sched;
    this.calls = new ToolCall[Math.max(1, size)];
    this.ends = new ToolCallSnapshot[calls.length];
    this.scheduling = deferStarts ? Thread.currentThread() : null;
  }

  /**
   * Appends {@code call} and returns its index; it counts as open until its end is reported. A call appended after
   * {@link #cancelAll} is cancelled at once. Adding thread only.
   */
  int append(ToolCall call) {
    int index;
    String reason;
    synchronized (this) {
      index = added;
      if (index == calls.length) {
        calls = Arrays.copyOf(calls, index * 2);
        ends = Arrays.copyOf(ends, index * 2);
      }
      calls[index] = call;
      added = index + 1;
      open++;
      reason = cancelled;
    }
    if (reason != null) {
      call.cancel(reason);
    }
    return index;
  }

  /**
   * Gives call {@code index} its turn (the ended prefix it must wait for; a write moves the turn of later reads)
   * and arranges for its end to be reported: by {@code run}'s terminal hook, or, for a call this batch does not
   * run, by a hook of the batch. Calls are attached in index order, by the adding thread only.
   */
  int attach(int index, ExecutionOrder order, boolean readOnly, CallRun run) {
    int turn = switch (order) {
      case PARALLEL -> 0;
      case SEQUENTIAL -> index;
      case PARALLEL_READS -> readOnly ? writeEnd : index;
    };
    if (!readOnly) {
      writeEnd = index + 1;
    }
    if (run != null) {
      run.index = index;
    } else {
      ToolCall call;
      synchronized (this) {
        call = calls[index];
      }
      call.whenTerminal().thenAccept(s -> ended(index, s));
    }
    return turn;
  }

  /**
   * No more calls: hands the runs that became ready meanwhile to the executor, and completes the results now if
   * every call has already ended.
   */
  void seal() {
    CallRun ready = deferredHead;
    deferredHead = null;
    deferredTail = null;
    scheduling = null;
    boolean complete;
    synchronized (this) {
      sealed = true;
      complete = open == 0;
    }
    while (ready != null) {
      CallRun next = ready.nextDeferred;
      ready.nextDeferred = null;
      ready.submit();
      ready = next;
    }
    if (complete) {
      complete();
    }
  }

  /**
   * Keeps {@code run} to be handed to the executor at {@link #seal()}, if it became ready on the scheduling thread
   * while the batch is still being built: the executor then gets the batch's ready calls together (a pool thread
   * woken once finds them all) instead of one by one between the creation of the next ones.
   */
  boolean deferStart(CallRun run) {
    if (scheduling != Thread.currentThread()) {
      return false;
    }
    if (deferredTail == null) {
      deferredHead = run;
    } else {
      deferredTail.nextDeferred = run;
    }
    deferredTail = run;
    return true;
  }

  /**
   * Whether {@code run}'s turn has come; if not, it is queued and {@link CallRun#onTurn()} is called when it comes.
   */
  boolean awaitTurn(CallRun run, int turn) {
    synchronized (this) {
      if (prefix >= turn) {
        return true;
      }
      if (waiting == null) {
        waiting = new ArrayList<>();
      }
      run.turn = turn;
      waiting.add(run);
      return false;
    }
  }

  /** Call {@code index} ended with {@code s} (its terminal event published): its turn passes on. */
  void ended(int index, ToolCallSnapshot s) {
    CallRun[] ready = null;
    boolean complete;
    synchronized (this) {
      ends[index] = s;
      open--;
      int p = prefix;
      while (p < added && ends[p] != null) {
        p++;
      }
      if (p != prefix) {
        prefix = p;
        ready = takeReady(p);
      }
      complete = sealed && open == 0;
    }
    if (ready != null) {
      for (CallRun r : ready) {
        r.onTurn();
      }
    }
    if (complete) {
      complete();
    }
  }

  /** Removes and returns the waiting runs whose turn is at most {@code p}, in the order they began waiting. */
  CallRun[] takeReady(int p) {
    if (waiting == null || waiting.isEmpty()) {
      return null;
    }
    ArrayList<CallRun> ready = null;
    for (var it = waiting.iterator(); it.hasNext(); ) {
      CallRun r = it.next();
      if (r.turn <= p) {
        it.remove();
        if (ready == null) {
          ready = new ArrayList<>();
        }
        ready.add(r);
      }
    }
    return ready == null ? null : ready.toArray(new CallRun[0]);
  }

  void complete() {
    CallResult[] out;
    synchronized (this) {
      out = new CallResult[added];
      for (int i = 0; i < added; i++) {
        out[i] = new CallResult(ends[i]);
      }
    }
    done.complete(new ArrayView<>(out));
  }

  @Override
  public synchronized List<ToolCall> calls() {
    List<ToolCall> l = sealedCalls;
    if (l == null) {
      l = new ArrayView<>(Arrays.copyOf(calls, added));
      if (sealed) {
        sealedCalls = l;
      }
    }
    return l;
  }

  @Override
  public CompletionStage<List<CallResult>> whenDone() {
    return done.minimalCompletionStage();
  }

  @Override
  public List<CallResult> join() {
    return done.join();
  }

  @Override
  public int cancelAll(String reason) {
    Objects.requireNonNull(reason, "reason");
    List<ToolCall> cs;
    synchronized (this) {
      if (cancelled == null) {
        cancelled = reason;
      }
      cs = calls();
    }
    int[] n = {0};
    // last first: cancelling an earlier call opens later calls' turns, so they must already be cancelled
    for (int i = cs.size() - 1; i >= 0; i--) {
      ToolCall c = cs.get(i);
      if (sched.store == null) {
        if (c.cancel(reason).won()) {
          n[0]++;
        }
        continue;
      }
      try { // a cancel the store fails is tried again until it lands (counted here only if it landed at once)
        sched.writes.durably(c, () -> {
          if (c.cancel(reason).won()) {
            n[0]++;
          }
        }, 0, e -> ToolScheduler.log.error("call {} ({}) could not be cancelled: its store refuses the change ({})",
            c.callId(), c.toolName(), e.toString()));
      } catch (RuntimeException e) { // closed, or moved on elsewhere: the others are cancelled all the same
        ToolScheduler.log.warn("call {} ({}) could not be cancelled: {}", c.callId(), c.toolName(), e.toString());
      }
    }
    return n[0];
  }
}
