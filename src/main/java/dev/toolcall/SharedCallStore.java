package dev.toolcall;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@link CallStore} that several runtimes share (runtimes behind a load balancer, each with its own connection
 * pool): {@code ToolCallRuntime.Builder.sharedStore}. The library ships
 * {@code dev.toolcall.postgres.PostgresCallStore#shared}.
 *
 * <p>What a runtime on a shared store guarantees, built on the one compare-and-set per change:
 * <ul>
 *   <li>a decision taken on any runtime for a request another runtime opened resumes the call exactly once (the
 *       deciding runtime loads the call by its request id and decides through the store);</li>
 *   <li>exactly one runtime runs each approved call: every runtime that holds it tries to move it to RUNNING, and the
 *       store lets one win; the others adopt that version and wait for the outcome;</li>
 *   <li>a request's deadline denies it once across all runtimes;</li>
 *   <li>a call a runtime drives (pending, approved or running; not one waiting for a person) carries that runtime's
 *       lease ({@link #lease()}), which it renews; once the lease expires (the runtime crashed, or paused longer than
 *       the lease), another runtime takes the call over as a restore does: a pending call is authorized anew, an
 *       approved one runs once, a running one runs again as the next attempt if its tool is idempotent and otherwise
 *       ends FAILED, outcome unknown. A lease that lapsed while the store was unreachable is not taken as a crash: a
 *       runtime that saw the store fail takes nothing over until the store has worked for a whole lease again, while
 *       every live runtime renews its leases and settles its own calls;</li>
 *   <li>each runtime learns of the others' changes through {@link #watch}, within the store's delay, and adopts
 *       them: its listeners see each state change made elsewhere once, in version order, after it committed.</li>
 * </ul>
 *
 * <p>Implementations are thread-safe. Each runtime uses its own instance, with its own {@link #owner()}.
 */
public interface SharedCallStore extends CallStore {

  /** The name of the runtime using this instance: the leases of the calls it drives carry it. Unique. */
  String owner();

  /** How long a lease lives without renewal; the runtime renews every third of it. */
  Duration lease();

  /**
   * The call waiting on permission request {@code requestId}, if one is stored waiting on it.
   *
   * @throws RuntimeException if the store failed
   */
  Optional<CallRecord> readByRequest(String requestId);

  /**
   * Renews the lease of every call this owner drives.
   *
   * @return how many calls it renewed
   * @throws RuntimeException if the store failed
   */
  int renewLeases();

  /**
   * Lets go of every lease this owner holds, as of now (its runtime is closing): the other runtimes take those calls
   * over at their next sweep.
   *
   * @return how many leases it let go
   * @throws RuntimeException if the store failed
   */
  int releaseLeases();

  /**
   * The calls no runtime is looking after: driven under an expired lease, and waiting for permission past their
   * deadline, by the store's clock. The runtime that reads one takes it over through the store, where one runtime
   * wins.
   *
   * @throws RuntimeException if the store failed
   */
  List<CallRecord> overdue();

  /**
   * The calls that have not ended and carry this runtime's lease, as stored: the runtime compares them with the calls
   * it holds, and takes over one it does not hold (a first version whose commit lost its answer, so the runtime took
   * the call as never stored while the row exists under its lease, which its renewals would otherwise keep alive for
   * ever). The default lists none.
   *
   * @throws RuntimeException if the store failed
   */
  default List<CallRecord> leased() {
    return List.of();
  }

  /**
   * Marks the waiting call {@code waiting} as handed over to the store by its runtime
   * ({@code ToolCallRuntime.handOff}), if the store still holds that version of it waiting: no runtime holds it or
   * will deny it at its deadline, so {@link #handedOverPastDeadline} lists it once its deadline has passed (and
   * {@link #overdue} does not). Not a new version of the call. The default marks nothing (such a store's runtimes do
   * not hand calls over).
   *
   * @return whether it is marked
   * @throws RuntimeException if the store failed
   */
  default boolean handOver(ToolCallSnapshot waiting) {
    return false;
  }

  /**
   * The waiting calls handed over to the store ({@link #handOver}) whose deadline has passed: the first runtime to
   * sweep denies each, once, as any timeout.
   *
   * @throws RuntimeException if the store failed
   */
  default List<CallRecord> handedOverPastDeadline() {
    return List.of();
  }

  /**
   * Tells {@code listener} of each version any runtime stores, soon after it commits. A version may be told twice or
   * out of order, and a version overtaken by the next, or one this instance stored itself (its runtime holds it), may
   * be left out; the listener reads the call to learn where it is. The listener runs on the store's thread and should
   * be quick.
   *
   * @return closing it stops the telling
   */
  AutoCloseable watch(Listener listener);

  /**
   * Told of stored versions; see {@link #watch}. A store that also keeps conversations (the PostgreSQL store's
   * {@code conversations()}) tells their changes to {@link #conversationChanged} as well.
   */
  @FunctionalInterface
  interface Listener {
    /** {@code version} of call {@code callId} in {@code sessionId} was stored. */
    void stored(String sessionId, String callId, int version);

    /**
     * Conversation {@code conversationId} changed in the store, by any runtime (this one's included): a step took it,
     * or a step stored its snapshot and let go. May be told twice or late, never before the change committed; read
     * the conversation to learn what it holds. The default ignores it.
     *
     * @param revision its revision after the change, as the store counts them
     */
    default void conversationChanged(String conversationId, long revision) {}
  }
}
