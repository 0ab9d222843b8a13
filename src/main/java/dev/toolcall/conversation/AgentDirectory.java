package dev.toolcall.conversation;

import dev.toolcall.CallRecord;
import dev.toolcall.CallStore;
import dev.toolcall.ToolCall;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.Decision;
import dev.toolcall.runtime.ToolCallRuntime;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agents of one server instance, found by conversation id: every entry point (an HTTP endpoint, a page's
 * decision, a protocol adapter) asks the directory for a step of a conversation, and the directory takes the
 * conversation from its {@link ConversationStore} for that step, loads its agent when this instance does not hold it
 * (the conversation's snapshot, and the true outcome of each call of its turn from the runtime's call store), runs the
 * step, and writes the conversation back. So any instance serves any conversation, and applications write no
 * snapshot plumbing.
 *
 * <pre>{@code
 * AgentDirectory agents = AgentDirectory.builder(runtime, store.conversations(),
 *     id -> Agent.builder(model, runtime)).build();
 * TurnResult r = agents.send("conv-1", "Deploy it").toCompletableFuture().join();          // on instance A
 * TurnResult next = agents.resumeWith("conv-1", decisions).toCompletableFuture().join();  // on A, B or C
 * }</pre>
 *
 * <h2>Steps</h2>
 * A step is {@link #send}, {@link #resumeWith} or {@link #abort}. Its agent is built by the application's factory
 * with {@link Agent.Builder#suspendOnApproval suspendOnApproval(true)} (a turn that needs a person ends
 * {@link TurnResult.Ending#INTERRUPTED} and the step with it; nothing waits for the person). Two steps of one
 * conversation never run at once, on this instance or across instances: the second one's stage fails with
 * {@link ConversationBusyException} and changes nothing. A step that runs long (a slow model) renews its hold every
 * third of the lease. When the step's turn ends (answered, interrupted, failed, aborted) the agent's snapshot is
 * written back and the hold let go in one compare-and-set; if the hold was lost meanwhile (this instance could not
 * renew it for a whole lease and another took the conversation), the step's result still stands and a WARN says
 * that its snapshot was not stored.
 *
 * <h2>Loading</h2>
 * An agent this instance holds from its own last step is used as it is, when no other instance has taken the
 * conversation since (the store's revision says so); otherwise it is built anew from the stored snapshot. A
 * conversation whose turn is under way (suspended, or left by an instance that died) goes on the way a restart does
 * ({@link Agent#resume}): each call of the turn that has no result yet gets the outcome the call store holds
 * (completed, failed, denied by a person or at its deadline, cancelled); a call that has not ended is brought into
 * this runtime (a request waits again under its id and absolute deadline; see
 * {@link ToolCallRuntime#restore}); the model is told "outcome unknown" only for a call the store does not hold. A
 * suspended turn whose requests are all resolved goes on with the step that loaded it.
 *
 * <h2>What stays in this instance's heap</h2>
 * On a runtime with a shared store ({@link ToolCallRuntime#isShared()}), nothing of a turn that ended
 * {@link TurnResult.Ending#INTERRUPTED}: its agent is let go and its calls are handed over to the store
 * ({@link ToolCallRuntime#handOff}), where any instance answers them, or denies them at their deadlines, and a later
 * step loads the turn again. (A turn one of whose calls was approved already, by a partial set of decisions, is kept
 * as it is: that call must not run before the turn goes on.) Besides, at most {@link Builder#maxAgents} agents of
 * idle conversations, least recently used first out, and the agents of turns under way that were not handed over;
 * correctness never depends on the idle ones. Without a shared store every agent of a turn under way is kept, since
 * the runtime holds its calls.
 *
 * <p>Thread-safe. Steps of different conversations run concurrently.
 */
public final class AgentDirectory implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentDirectory.class);

  private final ToolCallRuntime runtime;
  private final ConversationStore store;
  private final Function<String, Agent.Builder> agents;
  private final String owner;
  private final Duration lease;
  private final int maxAgents;
  /** The agents this instance holds, by conversation id, each with the revision its last put stored; access order. */
  private final LinkedHashMap<String, Held> held = new LinkedHashMap<>(16, 0.75f, true);
  private final ScheduledExecutorService renewals;
  /** The agents of the steps running on this instance now, by conversation id (for {@link #abort}). */
  private final java.util.concurrent.ConcurrentHashMap<String, Running> running =
      new java.util.concurrent.ConcurrentHashMap<>();

  private record Held(Agent agent, long revision) {}

  private record Running(Agent agent, CompletableFuture<TurnResult> done) {}

  private AgentDirectory(Builder b) {
    this.runtime = b.runtime;
    this.store = b.store;
    this.agents = b.agents;
    this.owner = b.owner;
    this.lease = b.lease;
    this.maxAgents = b.maxAgents;
    this.renewals = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "toolcall-directory-renew");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * A directory builder.
   *
   * @param runtime the runtime the agents run their calls on
   * @param store where the conversations live between steps
   * @param agents the builder of a conversation's agent (model client, instructions, options, limits); the directory
   *     sets the conversation id (or the snapshot to resume from) and {@code suspendOnApproval(true)}. Called once per
   *     load, on the step's thread
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(ToolCallRuntime runtime, ConversationStore store,
      Function<String, Agent.Builder> agents) {
    return new Builder(runtime, store, agents);
  }

  /** Who this directory holds conversations as (unique among the instances). */
  public String owner() {
    return owner;
  }

  /**
   * Starts a turn of {@code conversationId} with the user's message, as {@link Agent#send} does.
   *
   * @return how the turn ended; failed with {@link ConversationBusyException} when another step holds the
   *     conversation, with {@link IllegalStateException} when a turn of it is under way (as {@link Agent#send}), or
   *     with the store's exception when it could not be reached (nothing changed then)
   */
  public CompletionStage<TurnResult> send(String conversationId, String userText) {
    Objects.requireNonNull(userText, "userText");
    return step(conversationId, (agent, loaded) -> agent.send(userText));
  }

  /**
   * Goes on with the conversation's interrupted turn given a person's decisions, as {@link Agent#resumeWith} does,
   * on whichever instance the request landed. An empty list goes on after the requests were resolved otherwise (by
   * their deadlines), or answers {@link TurnResult.Ending#INTERRUPTED} listing the requests still open (for a client
   * that reconnects). Decisions for a turn another step already resumed are reported
   * {@link DecisionReport.Status#ALREADY_ANSWERED} or {@link DecisionReport.Status#UNKNOWN_REQUEST} and change nothing.
   *
   * @return how the turn ended, with a report per decision; failed with {@link ConversationBusyException} when
   *     another step holds the conversation
   */
  public CompletionStage<TurnResult> resumeWith(String conversationId, List<? extends Decision> decisions) {
    List<Decision> given = List.copyOf(Objects.requireNonNull(decisions, "decisions"));
    return step(conversationId, (agent, loaded) -> {
      if (loaded == null || loaded.ending() == TurnResult.Ending.INTERRUPTED) {
        return agent.resumeWith(given);
      }
      // the loaded turn went on by itself (every request was resolved meanwhile): report the decisions on its end
      return agent.resumeWith(given).thenApply(r -> new TurnResult(loaded.ending(), loaded.text(),
          loaded.toolResults(), loaded.calls(), loaded.usage(), loaded.interrupts(), r.decisions()));
    });
  }

  /**
   * Aborts the conversation's turn, as {@link Agent#abort} does: its open requests are cancelled and every call of it
   * gets its result message; the conversation is idle afterwards. A turn that a step of this instance is running
   * (a {@link #send} or {@link #resumeWith} not yet ended) is aborted in place: that step's stage completes
   * {@link TurnResult.Ending#ABORTED} and stores the conversation.
   *
   * @return completes once the aborted conversation is stored; failed with {@link ConversationBusyException} when
   *     a step of another instance holds the conversation (a turn running there: abort it there)
   */
  public CompletionStage<Void> abort(String conversationId) {
    Running here = running.get(Objects.requireNonNull(conversationId, "conversationId"));
    if (here != null) {
      here.agent().abort();
      return here.done().handle((x, e) -> null);
    }
    return step(conversationId, (agent, loaded) -> {
      agent.abort();
      return CompletableFuture.completedFuture(loaded);
    }).thenApply(r -> null);
  }

  /**
   * Runs a step of the caller's own with the conversation's agent, held as {@link #send} holds it: for an entry point
   * that must check something against the agent before it changes anything (an endpoint that applies a set of
   * decisions all or none checks them against {@link Agent#interrupts()} first). {@code step} is called once the
   * agent is loaded; when loading went on with a turn whose requests were all resolved meanwhile, once that turn has
   * ended. The conversation is written back when the stage {@code step} returns completes.
   *
   * @param step what to do with the agent; a stage it returns failed (or an exception it throws) is this method's
   *     stage failed the same way, and the agent is still written back as it is
   * @return the step's result; failed with {@link ConversationBusyException} when another step holds the conversation
   */
  public CompletionStage<TurnResult> run(String conversationId,
      Function<? super Agent, ? extends CompletionStage<TurnResult>> step) {
    Objects.requireNonNull(step, "step");
    return step(conversationId, (agent, loaded) -> {
      CompletionStage<TurnResult> out = step.apply(agent);
      return Objects.requireNonNull(out, "the step returned null");
    });
  }

  /**
   * The conversation as last stored (its messages and state), without taking it; empty when it was never stored.
   *
   * @throws RuntimeException if the store failed
   */
  public Optional<AgentSnapshot> snapshot(String conversationId) {
    return store.read(Objects.requireNonNull(conversationId, "conversationId")).flatMap(ConversationStore.Stored::snapshot);
  }

  /**
   * The conversation as last stored, with its revision and whether a step holds it now (on this instance or
   * another), without taking it: for a page that follows a conversation whichever instance runs its steps. Empty when
   * it was never stored.
   *
   * @throws RuntimeException if the store failed
   */
  public Optional<ConversationStore.Stored> stored(String conversationId) {
    return store.read(Objects.requireNonNull(conversationId, "conversationId"));
  }

  /** How many agents this instance holds now. */
  public int heldAgents() {
    synchronized (held) {
      return held.size();
    }
  }

  /** Lets go of every agent held here; conversations stay in the store as they are. Idempotent. */
  @Override
  public void close() {
    renewals.shutdownNow();
    synchronized (held) {
      held.clear();
    }
  }

  @Override
  public String toString() {
    return "AgentDirectory[" + owner + ", " + heldAgents() + " agents held]";
  }

  /** What a step does with the agent, given how loading it went on with its turn (null when it did not). */
  private interface Action {
    CompletionStage<TurnResult> apply(Agent agent, TurnResult loaded);
  }

  private CompletionStage<TurnResult> step(String conversationId, Action action) {
    Objects.requireNonNull(conversationId, "conversationId");
    ConversationStore.Step s;
    try {
      s = store.take(conversationId, owner, lease);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (s instanceof ConversationStore.Busy b) {
      return CompletableFuture.failedFuture(new ConversationBusyException(conversationId, b.until()));
    }
    ConversationStore.Taken taken = (ConversationStore.Taken) s;
    ScheduledFuture<?> renew = renewals.scheduleWithFixedDelay(() -> renew(taken),
        lease.toMillis() / 3, Math.max(1, lease.toMillis() / 3), TimeUnit.MILLISECONDS);
    CompletableFuture<TurnResult> out = new CompletableFuture<>();
    Agent[] agent = new Agent[1];
    CompletionStage<TurnResult> run;
    Running mine = null;
    try {
      CompletionStage<TurnResult> loading = load(taken, agent);
      if (agent[0] != null) {
        mine = new Running(agent[0], out);
        running.put(conversationId, mine);
      }
      run = loading.thenCompose(loaded -> {
        try {
          return action.apply(agent[0], loaded);
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(e);
        }
      });
    } catch (RuntimeException e) {
      run = CompletableFuture.failedFuture(e);
    }
    Running registered = mine;
    run.whenComplete((r, x) -> {
      if (registered != null) {
        running.remove(conversationId, registered);
      }
      renew.cancel(false);
      try {
        finish(taken, agent[0], r);
      } catch (RuntimeException e) {
        if (x == null) {
          log.warn("conversation {}: the step ended but its snapshot could not be stored (the hold lapses with its"
              + " lease; the next step loads the last stored state and the calls' stored outcomes): {}",
              conversationId, e.toString());
        }
      }
      if (x != null) {
        out.completeExceptionally(x instanceof java.util.concurrent.CompletionException && x.getCause() != null
            ? x.getCause() : x);
      } else {
        out.complete(r);
      }
    });
    return out;
  }

  private void renew(ConversationStore.Taken taken) {
    try {
      if (!store.renew(taken, lease)) {
        log.warn("conversation {}: the hold of this step was lost (another instance took it)",
            taken.conversationId());
      }
    } catch (RuntimeException e) {
      log.warn("conversation {}: renewing the hold failed: {}", taken.conversationId(), e.toString());
    }
  }

  /**
   * Writes the agent back and lets go of the conversation; keeps the agent when the write won, unless its turn is
   * suspended on a shared store: then its calls are handed over to the store and nothing of the turn stays here.
   */
  private void finish(ConversationStore.Taken taken, Agent agent, TurnResult result) {
    String id = taken.conversationId();
    if (agent == null) {
      store.release(taken);
      return;
    }
    boolean stored = store.put(taken, agent.snapshot());
    boolean handedOff = stored && result != null && result.ending() == TurnResult.Ending.INTERRUPTED
        && runtime.isShared() && handOff(agent);
    synchronized (held) {
      if (stored && !handedOff) {
        held.put(id, new Held(agent, taken.revision() + 1));
        trim();
      } else {
        held.remove(id);
      }
    }
    if (!stored) {
      log.warn("conversation {}: this step's hold was lost before it ended (another instance took the conversation);"
          + " its snapshot was not stored", id);
    }
  }

  /**
   * Hands the calls of {@code agent}'s suspended turn over to the store, when every call of it that has not ended
   * waits for a person (a call approved already is kept: it must not run before the turn goes on).
   *
   * @return whether any call was let go: the agent must go too (its turn no longer holds the runtime's calls)
   */
  private boolean handOff(Agent agent) {
    List<ToolCall> waiting = new ArrayList<>();
    synchronized (agent.lock) {
      Suspensions.Parked parked = agent.suspensions.parked();
      if (parked == null) {
        return false;
      }
      Turn t = parked.turn();
      for (int i = 0; i < t.open.size(); i++) {
        ToolCall c = t.callOf(i);
        if (c == null || c.isTerminal()) {
          continue;
        }
        if (c.state() != dev.toolcall.ToolCallState.PERMISSION_PENDING) {
          return false;
        }
        waiting.add(c);
      }
    }
    boolean any = false;
    for (ToolCall c : waiting) {
      any |= runtime.handOff(c);
    }
    return any;
  }

  /**
   * Drops the least recently used agents over the bound that may go, under the lock: those of idle conversations.
   * The agent of a turn under way that was not handed over (a call of it was approved already, and is held here until
   * the turn goes on) stays: only it would run that call here.
   */
  private void trim() {
    Iterator<Map.Entry<String, Held>> it = held.entrySet().iterator();
    while (held.size() > maxAgents && it.hasNext()) {
      if (!it.next().getValue().agent().conversation().state().isBusy()) {
        it.remove();
      }
    }
  }

  /**
   * The agent for the step of {@code taken} (into {@code out[0]}), and the end of the turn loading went on with, or
   * null when it went on with none.
   */
  private CompletionStage<TurnResult> load(ConversationStore.Taken taken, Agent[] out) {
    String id = taken.conversationId();
    Held h;
    synchronized (held) {
      h = held.remove(id);
    }
    if (h != null && h.revision() == taken.revision() - 1) {
      out[0] = h.agent(); // nobody took the conversation since this instance's last step
      return CompletableFuture.completedFuture(null);
    }
    Agent.Builder b = Objects.requireNonNull(agents.apply(id), "the agent factory returned null for " + id)
        .suspendOnApproval(true);
    if (taken.snapshot().isEmpty()) {
      out[0] = b.conversationId(id).build();
      return CompletableFuture.completedFuture(null);
    }
    AgentSnapshot snap = taken.snapshot().get();
    if (!snap.conversation().state().isBusy()) {
      out[0] = b.resume(snap).build();
      return CompletableFuture.completedFuture(null);
    }
    List<ToolCallRequest> open = openCalls(snap);
    List<ToolResultMessage> answered = new ArrayList<>(snap.answered());
    Set<String> known = new HashSet<>();
    answered.forEach(m -> known.add(m.callId()));
    List<String> labels = new ArrayList<>();
    for (ToolCallRequest c : open) {
      if (!known.contains(c.id())) {
        labels.add(c.id());
      }
    }
    List<Batch> owed = new ArrayList<>();
    Optional<CallStore> calls = runtime.callStore();
    // Each call of the turn gets its stored outcome, or is held here (brought in, or held already). A call that
    // moves on between the read and the bringing in (a sweep denied it, say), or that this runtime's own sweep is
    // bringing in at that moment (it is known here, not yet held), is read again a moment later, for up to 5 s.
    List<String> pending = new ArrayList<>(labels);
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (int round = 0; !pending.isEmpty() && calls.isPresent(); round++) {
      if (round > 0) {
        if (System.nanoTime() - giveUp > 0) {
          break;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      List<CallRecord> toAdopt = new ArrayList<>();
      List<ToolCall> heldHere = new ArrayList<>();
      for (CallRecord r : calls.get().readByLabels(id, pending)) {
        if (r.state().isTerminal()) { // the true outcome, reached while no agent held the turn
          answered.add(new ToolResultMessage(r.label(), r.toolName(), r.outcome().messageForModel(),
              r.outcome().isError()));
          pending.remove(r.label());
          continue;
        }
        Optional<ToolCall> mine = runtime.scheduler().call(r.sessionId(), r.callId());
        if (mine.isPresent()) {
          mine.get().refresh();
          heldHere.add(mine.get());
          pending.remove(r.label());
        } else {
          toAdopt.add(r);
        }
      }
      if (!heldHere.isEmpty()) {
        owed.add(new HeldBatch(heldHere));
      }
      if (!toAdopt.isEmpty()) {
        for (Batch batch : runtime.adopt(toAdopt)) {
          owed.add(batch);
          batch.calls().forEach(c -> pending.remove(c.identity().label()));
        }
      }
      if (toAdopt.isEmpty() && !pending.isEmpty()) {
        break; // what is left is not in the store
      }
    }
    if (!pending.isEmpty() && calls.isPresent()) {
      log.warn("conversation {}: calls {} of its turn are neither in the call store nor held here; the model is told"
          + " their outcome is unknown", id, pending);
    }
    Agent agent = b.resume(new AgentSnapshot(snap.conversation(), snap.messages(), answered)).build();
    out[0] = agent;
    return agent.resume(owed);
  }

  /** The calls of the snapshot's last assistant message, when it is the last message (its turn's open calls). */
  private static List<ToolCallRequest> openCalls(AgentSnapshot snap) {
    List<Message> m = snap.messages();
    if (!m.isEmpty() && m.get(m.size() - 1) instanceof AssistantMessage a) {
      return a.toolCalls();
    }
    return List.of();
  }

  /** Calls this runtime holds already, owed to a turn loaded here: done when each has ended. */
  private static final class HeldBatch implements Batch {
    private final List<ToolCall> calls;

    HeldBatch(List<ToolCall> calls) {
      this.calls = List.copyOf(calls);
    }

    @Override
    public List<ToolCall> calls() {
      return calls;
    }

    @Override
    public CompletionStage<List<CallResult>> whenDone() {
      CompletableFuture<?>[] ends = new CompletableFuture<?>[calls.size()];
      for (int i = 0; i < ends.length; i++) {
        ends[i] = calls.get(i).whenTerminal().toCompletableFuture();
      }
      return CompletableFuture.allOf(ends).thenApply(v -> {
        List<CallResult> out = new ArrayList<>();
        calls.forEach(c -> out.add(new CallResult(c.snapshot())));
        return out;
      });
    }

    @Override
    public int cancelAll(String reason) {
      int n = 0;
      for (ToolCall c : calls) {
        if (c.cancel(reason).won()) {
          n++;
        }
      }
      return n;
    }
  }

  /** Builds an {@link AgentDirectory}. Not thread-safe; each setter checks its value at once. */
  public static final class Builder {
    private final ToolCallRuntime runtime;
    private final ConversationStore store;
    private final Function<String, Agent.Builder> agents;
    private String owner = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();
    private Duration lease = Duration.ofSeconds(30);
    private int maxAgents = 1_000;

    private Builder(ToolCallRuntime runtime, ConversationStore store, Function<String, Agent.Builder> agents) {
      this.runtime = Objects.requireNonNull(runtime, "runtime");
      this.store = Objects.requireNonNull(store, "store");
      this.agents = Objects.requireNonNull(agents, "agents");
    }

    /**
     * Who this instance holds conversations as: unique among the instances (default: the JVM's name, which holds
     * its process id and host, and a random UUID).
     *
     * @throws IllegalArgumentException if blank
     */
    public Builder owner(String owner) {
      Objects.requireNonNull(owner, "owner");
      if (owner.isBlank()) {
        throw new IllegalArgumentException("owner must not be blank");
      }
      this.owner = owner;
      return this;
    }

    /**
     * How long a step's hold on its conversation lives unrenewed (default 30 seconds; renewed every third): how
     * long a conversation whose instance died stays busy.
     *
     * @throws IllegalArgumentException if under 100 milliseconds
     */
    public Builder lease(Duration lease) {
      Objects.requireNonNull(lease, "lease");
      if (lease.compareTo(Duration.ofMillis(100)) < 0) {
        throw new IllegalArgumentException("lease must be at least 100 ms, was " + lease);
      }
      this.lease = lease;
      return this;
    }

    /**
     * The most agents of idle conversations this instance keeps between steps (default 1,000; 0 keeps none: each
     * step loads its conversation from the store). See the class description for what else stays.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder maxAgents(int maxAgents) {
      if (maxAgents < 0) {
        throw new IllegalArgumentException("maxAgents must be >= 0, was " + maxAgents);
      }
      this.maxAgents = maxAgents;
      return this;
    }

    /** The directory. */
    public AgentDirectory build() {
      return new AgentDirectory(this);
    }
  }
}
