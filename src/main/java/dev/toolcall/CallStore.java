package dev.toolcall;


/**
 * Where a runtime makes each change of a tool call durable before anyone sees it (an SPI: the library ships
 * {@code dev.toolcall.postgres.PostgresCallStore#calls()}; without a store a runtime keeps its calls in memory, as
 * before, at the same speed).
 *
 * <p>With a store, a transition of a call is: build the next version; write it to the store by compare-and-set on
 * the version; only if that write won, install it in memory and publish its event. So no event is ever published for
 * a change that did not commit, and a store failure changes neither memory nor events: the transition throws what
 * the store threw. Writes of one call are serialised within a runtime (a local lost race never reaches the store);
 * a write the store refuses because another writer moved the call on is a {@link StaleCallException}.
 *
 * <p>Implementations must be thread-safe; each method is called with no lock of the caller's held except the one
 * call's write lock.
 */
public interface CallStore {

  /**
   * Stores a new call's first version (version 0, or a restored version).
   *
   * @return false when a call with that session and id is stored already (nothing changed)
   * @throws RuntimeException if the store failed; nothing was stored
   */
  boolean create(ToolCallSnapshot first);

  /**
   * Stores the first versions of several new calls, the calls of one batch a runtime admits whole, in their order:
   * what {@link #create} does for each, in one write where the store can (the PostgreSQL store sends one
   * {@code INSERT} and one commit for the lot). A call whose session and id is stored already is left out (its entry
   * stays false, nothing of it changes) and the others are stored all the same, so the runtime tells exactly which
   * ids were used before. The default creates them one by one.
   *
   * @param firsts the first versions, of distinct calls
   * @param stored one entry per call, all false: set to true for each call as it is stored
   * @throws RuntimeException if the store failed. The calls whose entry is true were stored before the failure and
   *     stay stored (the runtime withdraws them); the others were not. The default leaves the calls before the one
   *     that failed stored; a store that writes them in one transaction stores none.
   */
  default void createAll(java.util.List<ToolCallSnapshot> firsts, boolean[] stored) {
    if (stored.length != firsts.size()) {
      throw new IllegalArgumentException("stored must have one entry per call: " + firsts.size() + ", was "
          + stored.length);
    }
    for (int i = 0; i < stored.length; i++) {
      stored[i] = create(firsts.get(i));
    }
  }

  /**
   * Stores {@code next} over {@code expected} if the stored version is still {@code expected.version()}.
   *
   * @return true when stored; false when another writer changed the call since {@code expected}
   * @throws RuntimeException if the store failed and changed nothing (or could not tell; its message says so)
   */
  boolean compareAndSet(ToolCallSnapshot expected, ToolCallSnapshot next);

  /**
   * The call as stored now (its entry, {@link dev.toolcall.runtime.RuntimeSnapshot#storedEntry}), or empty when it is not stored. After a
   * {@link #compareAndSet} another writer won, the runtime reads the winner here and adopts it, so the transition
   * reports a lost race with the winner, as one in memory does. The default reads nothing, and such a write is a
   * {@link StaleCallException} instead; a store shared by several runtimes implements it.
   *
   * @throws RuntimeException if the store failed
   */
  default java.util.Optional<CallRecord> read(String sessionId, String callId) {
    return java.util.Optional.empty();
  }

  /**
   * The calls of {@code sessionId} stored under the ids their provider sent ({@link CallRecord#label()}, which is
   * the call id unless the library minted one), as stored now, ended ones included: what an agent loading a
   * conversation on another instance reads to tell the model the true outcome of each call of its turn. A label
   * found twice in the session (a provider that numbers ids per response) gives the one stored last. The default
   * reads each label as a call id with {@link #read}.
   *
   * @throws RuntimeException if the store failed
   */
  default java.util.List<CallRecord> readByLabels(String sessionId, java.util.Collection<String> labels) {
    java.util.List<CallRecord> out = new java.util.ArrayList<>();
    for (String label : labels) {
      read(sessionId, label).ifPresent(out::add);
    }
    return out;
  }

  /**
   * Whether {@code failure}, thrown by a write of this store, may go away if the write is tried again (the database
   * was unreachable, a statement timed out). A runtime retries such a write until it lands; a failure that retrying
   * cannot fix (the store refused the data or a constraint, a row that cannot be right) ends the call FAILED instead,
   * with a reason for the model. The default says every failure may go away.
   */
  default boolean retriable(RuntimeException failure) {
    return true;
  }
}
