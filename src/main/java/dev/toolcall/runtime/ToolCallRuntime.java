package dev.toolcall.runtime;

import dev.toolcall.CallRecord;
import dev.toolcall.CallStore;
import dev.toolcall.DeadlineTimer;
import dev.toolcall.SharedCallStore;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.event.EventBus;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.ToolScheduler;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The entry point: one event bus, one tool registry, one permission service and one scheduler sharing a clock, a
 * monotonic ticker and one {@link DeadlineTimer} (permission deadlines, tool timeouts, retry backoff and output
 * flushes all run on its one thread).
 *
 * <pre>{@code
 * try (ToolCallRuntime runtime = ToolCallRuntime.builder()
 *     .tools(readFile, shell)
 *     .permissions(p -> p.defaultTimeout(Duration.ofMinutes(2)))
 *     .build()) {
 *   runtime.events().subscribe(myUiListener, uiExecutor);
 *   Batch batch = runtime.schedule("session-1", List.of(CallRequest.of("call_1", "read_file", "{\"path\":\"a\"}")));
 *   List<CallResult> results = batch.join();  // one per call, in request order
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} cancels every call that has not ended (pending approvals are cancelled, never
 * run), releases every awaiting UI, and stops the library's threads, the timer last; with a
 * {@link Builder#sharedStore} it hands the calls over to the other runtimes instead of cancelling them.
 */
public final class ToolCallRuntime implements AutoCloseable {

  private final EventBus bus;
  private final PermissionService permissions;
  private final Object toolSetLock = new Object();
  private final ToolScheduler scheduler;
  private final Duration closeGrace;
  private final DeadlineTimer timer;
  private final boolean ownsTimer;
  private final List<Instrumentation> instrumentations;
  private final Clock clock;
  private final Ticker ticker;
  /** The link to the other runtimes of a shared store, or null. */
  private final SharedStoreLink link;
  /** The store of every change of a call, or null. */
  private final CallStore callStore;

  private ToolCallRuntime(Builder b) {
    this.bus = b.bus == null ? EventBus.create() : b.bus;
    ToolRegistry registry = b.registry.build();
    this.ownsTimer = b.timer == null;
    this.timer = ownsTimer ? DeadlineTimer.newDefault() : b.timer;
    this.link = b.sharedStore == null ? null : new SharedStoreLink(this, b.sharedStore, b.clock, b.ticker);
    PermissionService.Builder pb = PermissionService.builder().clock(b.clock).ticker(b.ticker).timer(timer);
    b.permissions.accept(pb);
    if (link != null) {
      pb.requestLoader(link::load);
    }
    this.permissions = pb.build();
    ToolScheduler.Builder sb = ToolScheduler.builder().registry(registry).authorizer(permissions::authorize)
        .eventBus(bus).clock(b.clock).ticker(b.ticker).timer(timer);
    for (Instrumentation i : b.instrumentations) {
      sb.instrumentation(i);
    }
    b.scheduler.accept(sb);
    if (b.callStore != null) {
      sb.callStore(b.callStore);
    }
    this.scheduler = sb.build();
    this.callStore = b.callStore;
    this.closeGrace = b.closeGrace;
    this.clock = b.clock;
    this.ticker = b.ticker;
    this.instrumentations = List.copyOf(b.instrumentations);
    for (Instrumentation i : instrumentations) {
      i.attach(this);
    }
    if (link != null) {
      link.start();
    }
  }

  /** Starts a runtime. */
  public static Builder builder() {
    return new Builder();
  }

  /** The bus every call publishes on: subscribe UI adapters here. */
  public EventBus events() {
    return bus;
  }

  /** The current tool set; see {@link #updateTools}. */
  public ToolRegistry registry() {
    return scheduler.registry();
  }

  /**
   * Adds, removes or replaces tools without rebuilding the runtime: {@code change} maps the current registry to the
   * next, for example {@code runtime.updateTools(r -> r.without("old_tool").with(newTool))}.
   * <ul>
   *   <li>A call validated before the change keeps the tool it was validated with, to its end (running, waiting for
   *       permission or for its turn). Calls validated after it see the new set; an {@code Agent} offers the model
   *       the new set from its next request.
   *   <li>Grants and pending requests survive, except that each pending request of a removed tool is denied, as
   *       policy, with a reason the model can read.
   *   <li>Each change publishes one {@link dev.toolcall.event.ToolSetEvent} on {@link #events()}, before the
   *       denials it causes; changes are serialised, and a change that alters nothing publishes nothing.
   * </ul>
   *
   * @return the change, or empty when the set is the same
   * @throws IllegalArgumentException from {@code change} (a duplicate name, an invalid schema); nothing changes then
   */
  public Optional<dev.toolcall.event.ToolSetEvent> updateTools(UnaryOperator<ToolRegistry> change) {
    synchronized (toolSetLock) { // the change and its denials together: a later change cannot come between them
      Optional<dev.toolcall.event.ToolSetEvent> e = scheduler.updateTools(change);
      e.ifPresent(ev -> {
        if (!ev.removed().isEmpty()) {
          java.util.Set<String> gone = java.util.Set.copyOf(ev.removed());
          permissions.denyPending(r -> gone.contains(r.toolName()), "The tool was removed from the tool set while"
              + " this call waited for permission, so it was not run. Do not call it again unless it is offered.");
        }
      });
      return e;
    }
  }

  /** The permission service: the UI lists, awaits and decides requests here. */
  public PermissionService permissions() {
    return permissions;
  }

  /** The scheduler. */
  public ToolScheduler scheduler() {
    return scheduler;
  }

  /** Schedules the tool calls of one model response; see {@link ToolScheduler#schedule}. */
  public Batch schedule(String sessionId, List<CallRequest> requests) {
    return scheduler.schedule(sessionId, requests);
  }

  /**
   * The store every change of a call is written to ({@link Builder#callStore} or {@link Builder#sharedStore}), if
   * any: where an outcome reached while nothing in this process held the call can be read.
   */
  public Optional<CallStore> callStore() {
    return Optional.ofNullable(callStore);
  }

  /**
   * Lets go of {@code call}, which waits for a person, so that this runtime's heap holds nothing of it: its request is
   * handed over to the shared store ({@link PermissionService#handOff(ToolCall)}: out of the queue, its deadline timer
   * disarmed) and the scheduler forgets it ({@link ToolScheduler#forget}). It stays open in the store: a decision on any
   * runtime answers it (the deciding runtime loads it by its request id), the first runtime to sweep past its
   * deadline denies it, once, and a restore (an agent loaded on any instance) brings it back. What {@code
   * AgentDirectory} does with the calls of a suspended turn.
   *
   * <p>The store marks the call handed over ({@link SharedCallStore#handOver}), so that the first runtime to sweep
   * past its deadline denies it as a plain timeout.
   *
   * @return whether the call was waiting here and is let go now (false for a call decided meanwhile, or one the store
   *     could not mark: it stays)
   * @throws IllegalStateException if this runtime has no shared store (nobody else could answer or deny the call)
   */
  public boolean handOff(ToolCall call) {
    Objects.requireNonNull(call, "call");
    if (link == null) {
      throw new IllegalStateException("handOff needs a shared store (Builder.sharedStore): without one nothing would"
          + " answer the call or deny it at its deadline");
    }
    ToolCallSnapshot s = call.snapshot();
    if (s.state() != dev.toolcall.ToolCallState.PERMISSION_PENDING || !link.handOver(s)) {
      return false; // decided meanwhile, or the store could not mark it: it stays here
    }
    if (!permissions.handOff(call)) {
      return false; // decided meanwhile: the mark went with the decision's new version
    }
    scheduler.forget(call);
    return true;
  }

  /**
   * Brings calls another runtime stored, and nobody holds, into this one, as a shared store's sweep takes a call over:
   * as {@link #restore} does (a request waits again under its id and absolute deadline, denied at once when that has
   * passed; an approved call runs once; a running one ends outcome unknown unless its tool is idempotent), except that
   * a call whose id this runtime knows already (it ended here since it was read, say) is left out, and nothing is
   * published for it. For an {@code AgentDirectory} loading a turn whose calls were handed over.
   *
   * @return the batches of the calls brought in, in the order of {@code calls}
   * @throws NullPointerException if {@code calls} is null
   */
  public List<Batch> adopt(List<CallRecord> calls) {
    Objects.requireNonNull(calls, "calls");
    return RuntimeRestore.adopting(this, clock, ticker, null).restore(RuntimeSnapshot.ofCalls(clock.instant(), calls));
  }

  /**
   * Tells {@code listener} of the changes stored in this runtime's shared store by the other runtimes, as they reach
   * this one, through the one watch this runtime keeps on the store (a listener costs no connection): each version of
   * a call another runtime stored ({@link SharedCallStore.Listener#stored}), and each change of a conversation the
   * store keeps, by any runtime ({@link SharedCallStore.Listener#conversationChanged}). For a UI that shows what this
   * runtime does not hold, such as a page whose session's turn runs on another instance: it reads the call
   * ({@link CallStore#read}) and shows it as {@link #snapshotOf} makes it. A version this runtime stored itself is
   * left out (its events publish it); a call this runtime holds is told too, and its events publish the change once
   * this runtime has adopted it. A version may be told twice, late or out of order, and one overtaken by the next may
   * be left out: keep the highest version seen.
   *
   * <p>The listener runs on the store's thread, one change at a time: it must be quick (hand the work to an executor)
   * and should not throw; what it throws is logged at ERROR, and the other listeners are told all the same.
   *
   * @return closing it stops the telling (a change being told may still arrive while it closes)
   * @throws NullPointerException if {@code listener} is null
   * @throws IllegalStateException if this runtime has no shared store ({@link #isShared()})
   */
  public dev.toolcall.event.Subscription watchStore(SharedCallStore.Listener listener) {
    Objects.requireNonNull(listener, "listener");
    if (link == null) {
      throw new IllegalStateException("watchStore needs a shared store (Builder.sharedStore): without one no other"
          + " runtime changes this runtime's calls");
    }
    return link.listen(listener);
  }

  /**
   * The snapshot of a stored call as this runtime would hold it: its state changes as a chain of versions, the last
   * being {@code stored}'s, with times on this runtime's clock and ticker (so a {@code Presenter} on the same ticker
   * shows its countdown and durations), the permission request it waits on, and its outcome once it has ended.
   * Nothing is held, run or published: for showing a call another runtime drives.
   *
   * @throws NullPointerException if {@code stored} is null
   */
  public ToolCallSnapshot snapshotOf(CallRecord stored) {
    Objects.requireNonNull(stored, "stored");
    return new RuntimeRestore(this, clock, ticker).snapshotOf(stored);
  }

  /** Whether this runtime shares its call store with other runtimes ({@link Builder#sharedStore}). */
  public boolean isShared() {
    return link != null;
  }

  /**
   * The durable state of this runtime now: every call that has not ended (in the order they were scheduled), the
   * request each waiting call waits on with its absolute deadline, and the session grants. Each call is read once, so
   * calls changing meanwhile are captured at some version each; take it when the runtime is quiet (before a planned
   * restart, or after each change worth keeping) and write it with {@link RuntimeSnapshot#writeTo}.
   */
  public RuntimeSnapshot snapshot() {
    List<dev.toolcall.permission.PermissionRequest> queue = permissions.pending();
    Map<String, java.time.Instant> askedAt = new java.util.HashMap<>();
    queue.forEach(r -> askedAt.put(r.requestId(), r.createdAt()));
    List<CallRecord> calls = new ArrayList<>();
    List<List<Integer>> batches = new ArrayList<>();
    for (List<ToolCall> batch : scheduler.activeBatches()) {
      List<Integer> indexes = new ArrayList<>();
      for (ToolCall c : batch) {
        ToolCallSnapshot s = c.snapshot();
        if (!s.isTerminal()) {
          indexes.add(calls.size());
          calls.add(RuntimeRestore.callOf(s, askedAt));
        }
      }
      if (!indexes.isEmpty()) {
        batches.add(indexes);
      }
    }
    List<RuntimeSnapshot.SessionGrant> grants = new ArrayList<>();
    new java.util.TreeMap<>(permissions.sessionGrants()).forEach((session, list) -> list.forEach(g -> grants.add(
        new RuntimeSnapshot.SessionGrant(session, g.id(), g.toolName(), g.arguments(), g.createdAt(),
            g.expiresAt()))));
    java.util.Set<String> waiting = new java.util.LinkedHashSet<>();
    for (CallRecord c : calls) {
      if (c.permission() != null) {
        waiting.add(c.permission().requestId());
      }
    }
    List<String> order = new ArrayList<>();
    for (dev.toolcall.permission.PermissionRequest r : queue) { // the queue's order
      if (waiting.remove(r.requestId())) {
        order.add(r.requestId());
      }
    }
    order.addAll(waiting); // opened while this was read: after the others
    return new RuntimeSnapshot(RuntimeSnapshot.SCHEMA_VERSION, clock.instant(), calls, order, grants, batches);
  }

  /**
   * Brings back the calls, requests and session grants of {@code snapshot} (taken by {@link #snapshot()}, usually by
   * another process before a restart) into this runtime, in the document's order, and returns the batches whose
   * results are what the model is owed for those calls: one per batch the calls were scheduled in
   * ({@link RuntimeSnapshot#batches()}), in that order (each batch orders its calls as {@link #schedule} would). Ids, versions, arguments
   * versions, attempts and request ids are kept, and the requests re-open in the order they were first asked, with
   * their absolute deadlines. By state (see {@link ToolScheduler#resume}):
   * <ul>
   *   <li>{@code pending}: validated and authorized as a new call;</li>
   *   <li>{@code permission_pending}: waits again on the same request id; a deadline that passed while the process
   *       was down denies it at once, once, saying so;</li>
   *   <li>{@code permission_approved}: runs once;</li>
   *   <li>{@code running}: it may have partly run: FAILED {@code outcome_unknown} for the model, unless its tool is
   *       idempotent, which runs it again as the next attempt.</li>
   * </ul>
   * Nothing is published for a restored version itself; each change after it is. A call id already known in its
   * session fails as a duplicate instead of running.
   *
   * @throws dev.toolcall.CorruptSnapshotException if a grant's arguments are not in the store's spelling; nothing is restored
   */
  public List<Batch> restore(RuntimeSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    return new RuntimeRestore(this, clock, ticker).restore(snapshot);
  }

  /**
   * Cancels everything in flight, resolves pending approvals as cancelled, waits up to the close grace for running
   * tools, and stops the library's threads: the timer last, so tool timeouts still fire during the grace. No tool
   * starts once close has begun (the scheduler closes first, so a call a cancelled request would let go is cancelled
   * too). A timer given to {@link Builder#timer} is not closed. Idempotent.
   *
   * <p>With a {@link Builder#sharedStore} it hands the calls over instead of ending them: nothing is cancelled in the
   * store, open requests stay open there for the other runtimes to answer (or deny at their deadlines), running tools
   * get the grace to finish and store their ends, and this runtime's leases are let go, so the others take over at
   * once the calls it drove. UIs awaiting requests here are released.
   */
  @Override
  public void close() {
    if (link != null) { // hand the calls over to the other runtimes: nothing is cancelled in the store
      link.close(); // first: nothing more is adopted, loaded or taken over from the store
      scheduler.handOff(closeGrace);
      permissions.handOff();
      link.releaseLeases();
    } else {
      scheduler.close(closeGrace); // first: once it is closing no tool starts, even one a cancelled request lets go
      permissions.close();
    }
    if (ownsTimer) {
      timer.close();
    }
    for (Instrumentation i : instrumentations) {
      try {
        i.close();
      } catch (RuntimeException e) { // user code: the runtime is closed all the same
        org.slf4j.LoggerFactory.getLogger(ToolCallRuntime.class).warn("instrumentation {} failed to close", i, e);
      }
    }
  }

  /** Builds a {@link ToolCallRuntime}; not thread-safe; each setter checks its value at once. */
  public static final class Builder {
    private final ToolRegistry.Builder registry = ToolRegistry.builder();
    private EventBus bus;
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private Consumer<PermissionService.Builder> permissions = p -> {};
    private final java.util.ArrayList<Instrumentation> instrumentations = new java.util.ArrayList<>();
    private Consumer<ToolScheduler.Builder> scheduler = s -> {};
    private Duration closeGrace = Duration.ofSeconds(5);
    private DeadlineTimer timer;
    private CallStore callStore;
    private SharedCallStore sharedStore;

    private Builder() {}

    /** Registers tools; a duplicate name throws at once. */
    public Builder tools(Tool... tools) {
      for (Tool t : Objects.requireNonNull(tools, "tools")) {
        registry.register(Objects.requireNonNull(t, "tool"));
      }
      return this;
    }

    /** Registers tools; a duplicate name throws at once. */
    public Builder tools(Iterable<? extends Tool> tools) {
      for (Tool t : Objects.requireNonNull(tools, "tools")) {
        registry.register(Objects.requireNonNull(t, "tool"));
      }
      return this;
    }

    /** The bus (default: a new one). */
    public Builder eventBus(EventBus bus) {
      this.bus = Objects.requireNonNull(bus, "bus");
      return this;
    }

    /**
     * The store every change of a call is written to before it is visible (default: none, memory only), for
     * example {@code PostgresCallStore.create(dataSource).calls()}; see {@link CallStore}.
     */
    public Builder callStore(CallStore store) {
      this.callStore = Objects.requireNonNull(store, "store");
      this.sharedStore = store instanceof SharedCallStore shared ? shared : null;
      return this;
    }

    /**
     * A store this runtime shares with other runtimes (each with its own instance; for example
     * {@code PostgresCallStore.create(dataSource).shared(owner, Duration.ofSeconds(30))}): every change is written
     * there first, as with {@link #callStore}, and the runtime also adopts the changes the others make to the calls it
     * holds, answers here the requests the others opened, claims each approved call by compare-and-set (one runtime
     * runs it), renews its claims' leases and takes over calls whose runtime stopped renewing. See
     * {@link SharedCallStore} for the guarantees. The runtime's own thread for this is stopped by {@link #close()}.
     */
    public Builder sharedStore(SharedCallStore store) {
      return callStore(store);
    }

    /** The wall clock shared by every part (default: system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The monotonic ticker shared by every part (default: {@link System#nanoTime()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * The one timer of the runtime (default: a {@link DeadlineTimer#newDefault()}, one daemon thread, closed by
     * {@link ToolCallRuntime#close()}). A timer given here is shared with the caller, who closes it; tests give a
     * fake driven by the same fake {@link Ticker} as {@link #ticker}. A {@link #permissions} or {@link #scheduler}
     * configurer that sets a timer of its own replaces this one for that part, and closes its own.
     */
    public Builder timer(DeadlineTimer timer) {
      this.timer = Objects.requireNonNull(timer, "timer");
      return this;
    }

    /** Configures the permission service (policy, approval mode, grant store, default timeout). */
    public Builder permissions(Consumer<PermissionService.Builder> configure) {
      this.permissions = Objects.requireNonNull(configure, "configure");
      return this;
    }

    /** Configures the scheduler (executor, parallelism, order, timeouts, interceptors). */
    public Builder scheduler(Consumer<ToolScheduler.Builder> configure) {
      this.scheduler = Objects.requireNonNull(configure, "configure");
      return this;
    }

    /**
     * Adds an {@link Instrumentation} (tracing, metrics): the one builder call that turns telemetry on, for example
     * {@code .instrumentation(ToolCallTelemetry.create(openTelemetry))}. Several may be added; they run in order.
     */
    public Builder instrumentation(Instrumentation instrumentation) {
      instrumentations.add(Objects.requireNonNull(instrumentation, "instrumentation"));
      return this;
    }

    /** How long {@link #close()} waits for running tools (default 5 s). */
    public Builder closeGrace(Duration grace) {
      Objects.requireNonNull(grace, "grace");
      if (grace.isNegative()) {
        throw new IllegalArgumentException("closeGrace must not be negative, was " + grace);
      }
      this.closeGrace = grace;
      return this;
    }

    /** The runtime. */
    public ToolCallRuntime build() {
      return new ToolCallRuntime(this);
    }
  }
}
