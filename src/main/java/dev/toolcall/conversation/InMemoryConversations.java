package dev.toolcall.conversation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link ConversationStore#inMemory()}: one immutable row per conversation in a concurrent map, each operation one
 * atomic {@code compute} on its row. Thread-safe.
 */
final class InMemoryConversations implements ConversationStore {
  private final Clock clock;
  private final ConcurrentHashMap<String, Row> rows = new ConcurrentHashMap<>();

  InMemoryConversations(Clock clock) {
    this.clock = clock;
  }

  private record Row(long revision, AgentSnapshot snapshot, String owner, Instant until) {
    boolean heldAt(Instant now) {
      return owner != null && until.isAfter(now);
    }
  }

  @Override
  public Step take(String conversationId, String owner, Duration lease) {
    checkTake(conversationId, owner, lease);
    Instant now = clock.instant();
    Step[] out = new Step[1];
    rows.compute(conversationId, (id, row) -> {
      if (row != null && row.heldAt(now)) {
        out[0] = new Busy(id, row.until());
        return row;
      }
      long revision = row == null ? 1 : row.revision() + 1;
      AgentSnapshot stored = row == null ? null : row.snapshot();
      out[0] = new Taken(id, owner, revision, Optional.ofNullable(stored));
      return new Row(revision, stored, owner, now.plus(lease));
    });
    return out[0];
  }

  @Override
  public boolean put(Taken taken, AgentSnapshot next) {
    checkPut(taken, next);
    boolean[] stored = new boolean[1];
    rows.computeIfPresent(taken.conversationId(), (id, row) -> {
      if (!holds(row, taken)) {
        return row;
      }
      stored[0] = true;
      return new Row(row.revision() + 1, next, null, null);
    });
    return stored[0];
  }

  @Override
  public void release(Taken taken) {
    Objects.requireNonNull(taken, "taken");
    rows.computeIfPresent(taken.conversationId(), (id, row) -> !holds(row, taken) ? row
        : row.snapshot() == null ? null : new Row(row.revision() + 1, row.snapshot(), null, null));
  }

  @Override
  public boolean renew(Taken taken, Duration lease) {
    Objects.requireNonNull(taken, "taken");
    Objects.requireNonNull(lease, "lease");
    boolean[] renewed = new boolean[1];
    Instant now = clock.instant();
    rows.computeIfPresent(taken.conversationId(), (id, row) -> {
      if (!holds(row, taken)) {
        return row;
      }
      renewed[0] = true;
      return new Row(row.revision(), row.snapshot(), row.owner(), now.plus(lease));
    });
    return renewed[0];
  }

  @Override
  public Optional<Stored> read(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    Row row = rows.get(conversationId);
    return row == null ? Optional.empty()
        : Optional.of(new Stored(row.revision(), Optional.ofNullable(row.snapshot()), row.heldAt(clock.instant())));
  }

  /** Whether {@code taken} still holds {@code row}: same owner and revision (a lapsed lease nobody took counts). */
  private static boolean holds(Row row, Taken taken) {
    return row.revision() == taken.revision() && taken.owner().equals(row.owner());
  }

  static void checkTake(String conversationId, String owner, Duration lease) {
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(lease, "lease");
    if (conversationId.isBlank()) {
      throw new IllegalArgumentException("conversationId must not be blank");
    }
    if (owner.isBlank()) {
      throw new IllegalArgumentException("owner must not be blank");
    }
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
  }

  static void checkPut(Taken taken, AgentSnapshot next) {
    Objects.requireNonNull(taken, "taken");
    Objects.requireNonNull(next, "next");
    if (!next.conversation().conversationId().equals(taken.conversationId())) {
      throw new IllegalArgumentException("next is conversation " + next.conversation().conversationId()
          + ", not the taken conversation " + taken.conversationId());
    }
  }

  @Override
  public String toString() {
    return "ConversationStore.inMemory[" + rows.size() + " conversations]";
  }
}
