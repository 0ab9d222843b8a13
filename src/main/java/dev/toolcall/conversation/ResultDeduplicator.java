package dev.toolcall.conversation;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The source's deduplication guard: a tool result for a call id is processed once. The first delivery of a call id
 * wins; every later one (a late duplicate from a retry, a model that repeated an id, a racing completion) is
 * recognised and dropped.
 *
 * <p>Thread-safe: of several threads delivering the same call id at once, exactly one sees
 * {@link #firstDelivery} return true. One instance per conversation; it remembers every id it has seen.
 */
public final class ResultDeduplicator {

  private final Set<String> delivered = ConcurrentHashMap.newKeySet();

  /** A guard that has seen nothing. */
  public ResultDeduplicator() {}

  /**
   * Records a delivery of {@code callId}.
   *
   * @return true exactly the first time for this id: process the result; false for a duplicate: drop it
   */
  public boolean firstDelivery(String callId) {
    return delivered.add(Checks.requireNonBlank(callId, "callId"));
  }

  /** Whether a result for {@code callId} has been delivered. */
  public boolean isDelivered(String callId) {
    return delivered.contains(Objects.requireNonNull(callId, "callId"));
  }

  /**
   * The results of {@code results} whose call id is delivered here for the first time, in order; the others are
   * duplicates (of an earlier batch, or within this one) and are left out.
   */
  public List<ToolResultMessage> firstDeliveries(List<ToolResultMessage> results) {
    Objects.requireNonNull(results, "results");
    ArrayList<ToolResultMessage> out = new ArrayList<>(results.size());
    for (ToolResultMessage r : results) {
      if (firstDelivery(r.callId())) {
        out.add(r);
      }
    }
    return List.copyOf(out);
  }

  /** How many distinct call ids were delivered. */
  public int size() {
    return delivered.size();
  }

  @Override
  public String toString() {
    return "ResultDeduplicator[" + delivered.size() + " delivered]";
  }
}
