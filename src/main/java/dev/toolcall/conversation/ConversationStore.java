package dev.toolcall.conversation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a conversation lives between its steps, so that any instance of a server can serve it: one row per
 * conversation holding its latest {@link AgentSnapshot}, a revision, and who holds it for the step under way (an SPI;
 * the library ships {@link #inMemory()} for one process and {@code dev.toolcall.postgres.PostgresCallStore#conversations}
 * for many). {@link AgentDirectory} is its user: an application rarely calls it directly.
 *
 * <h2>Ownership per step</h2>
 * An instance {@link #take takes} a conversation for one step (a user message, a resume, an abort): the take is one
 * compare-and-set that succeeds only when nobody holds the conversation or the holder's lease has lapsed, and it
 * raises the revision. The holder renews its lease while the step runs ({@link #renew}) and ends the step with
 * {@link #put}, which stores the new snapshot and lets go in one compare-and-set on the revision it took. So two
 * instances never run steps of one conversation at once: the second is told {@link Busy} and changes nothing. A holder
 * whose lease lapsed (it paused, or could not reach the store, for a whole lease) and whose conversation another
 * instance took meanwhile is told so by {@code put} returning false: its snapshot is not stored.
 *
 * <p>Implementations are thread-safe; every method is one atomic operation on the store.
 */
public interface ConversationStore {

  /**
   * Takes {@code conversationId} for one step, for {@code owner}, until {@code lease} has passed unrenewed. A
   * conversation never stored is taken too (its {@link Taken#snapshot()} is empty), so that two instances starting
   * the same new conversation are serialized as well.
   *
   * @return {@link Taken} with the stored snapshot, or {@link Busy} when another step holds it (this one's own
   *     included: a holder never takes twice)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code conversationId} or {@code owner} is blank, or {@code lease} is not
   *     positive
   * @throws RuntimeException if the store failed; nothing was taken then
   */
  Step take(String conversationId, String owner, Duration lease);

  /**
   * Ends the step of {@code taken}: stores {@code next} as the conversation's snapshot and lets go, if
   * {@code taken} still holds it.
   *
   * @return true when stored; false when the hold was lost (its lease lapsed and another step took the
   *     conversation), and nothing was written
   * @throws IllegalArgumentException if {@code next} is of another conversation
   * @throws RuntimeException if the store failed; the hold is then kept until its lease lapses
   */
  boolean put(Taken taken, AgentSnapshot next);

  /**
   * Lets go of {@code taken} without writing anything (the step changed nothing); does nothing when the hold was
   * lost already.
   *
   * @throws RuntimeException if the store failed; the hold then lapses with its lease
   */
  void release(Taken taken);

  /**
   * Extends the hold of {@code taken} by {@code lease} from now.
   *
   * @return false when the hold was lost already
   * @throws RuntimeException if the store failed
   */
  boolean renew(Taken taken, Duration lease);

  /**
   * The conversation as last stored, without taking it: for reading (a page that shows a conversation).
   *
   * @throws RuntimeException if the store failed
   */
  Optional<Stored> read(String conversationId);

  /** A store in this process's memory, on the system clock: one instance's conversations, lost at exit. */
  static ConversationStore inMemory() {
    return inMemory(Clock.systemUTC());
  }

  /** A store in this process's memory whose leases run on {@code clock}. */
  static ConversationStore inMemory(Clock clock) {
    return new InMemoryConversations(Objects.requireNonNull(clock, "clock"));
  }

  /** What {@link #take} found: the conversation {@link Taken} for this step, or {@link Busy} with another. */
  sealed interface Step permits Taken, Busy {
    /** The conversation. */
    String conversationId();
  }

  /**
   * A conversation held for one step.
   *
   * @param conversationId the conversation
   * @param owner who holds it
   * @param revision the revision this take gave the conversation; {@link #put} and {@link #renew} compare it
   * @param snapshot the conversation as stored before this step; empty for a conversation never stored
   */
  record Taken(String conversationId, String owner, long revision, Optional<AgentSnapshot> snapshot)
      implements Step {
    /** Checks the parts. */
    public Taken {
      Objects.requireNonNull(conversationId, "conversationId");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(snapshot, "snapshot");
    }
  }

  /**
   * A conversation another step holds.
   *
   * @param conversationId the conversation
   * @param until when that step's lease lapses unless renewed
   */
  record Busy(String conversationId, Instant until) implements Step {
    /** Checks the parts. */
    public Busy {
      Objects.requireNonNull(conversationId, "conversationId");
      Objects.requireNonNull(until, "until");
    }
  }

  /**
   * A conversation as stored.
   *
   * @param revision its revision (raised by every take and every put)
   * @param snapshot its latest snapshot; empty while its first step runs
   * @param held whether a step holds it now
   */
  record Stored(long revision, Optional<AgentSnapshot> snapshot, boolean held) {
    /** Checks the parts. */
    public Stored {
      Objects.requireNonNull(snapshot, "snapshot");
    }
  }
}
