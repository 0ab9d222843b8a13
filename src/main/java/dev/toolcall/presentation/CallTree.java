package dev.toolcall.presentation;

import dev.toolcall.ToolCallSnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The calls of a turn as a tree: a nested call (one whose {@link dev.toolcall.ToolCallIdentity#parentCallId()} names
 * another call) hangs under its parent. Immutable and thread-safe.
 *
 * <p>Rules: one node per call id (of two snapshots of one call, the higher version is kept); roots and each node's
 * children are in creation order (the calls' ticker readings at creation, ties in the order given); a call whose
 * parent is not among the snapshots (an orphan) is a root; should the parent links form a cycle (bad data; the
 * library never makes one), its earliest-created member becomes a root, so every call appears exactly once.
 */
public final class CallTree {

  /**
   * Creation order by ticker reading, compared by difference (readings may wrap past {@link Long#MAX_VALUE}, as
   * {@link System#nanoTime()} allows).
   */
  private static final Comparator<ToolCallSnapshot> BY_CREATION =
      (a, b) -> Long.signum(a.identity().createdTick() - b.identity().createdTick());

  /**
   * One call in the tree.
   *
   * @param snapshot the call's snapshot
   * @param depth 0 for a root, one more per level
   * @param children the calls nested in this one, in creation order (immutable)
   */
  public record Node(ToolCallSnapshot snapshot, int depth, List<Node> children) {
    /** Checks the parts and copies the children. */
    public Node {
      Objects.requireNonNull(snapshot, "snapshot");
      if (depth < 0) {
        throw new IllegalArgumentException("depth must be >= 0, was " + depth);
      }
      children = List.copyOf(children);
    }

    /** The call id. */
    public String callId() {
      return snapshot.callId();
    }

    /**
     * Whether this call runs inside another call: its identity names a parent (true also for an orphan shown as a
     * root because its parent is not in the tree).
     */
    public boolean isNested() {
      return snapshot.identity().parentCallId() != null;
    }

    /** Whether other calls of the tree run inside this one. */
    public boolean hasNested() {
      return !children.isEmpty();
    }
  }

  private static final CallTree EMPTY = new CallTree(List.of(), List.of());

  private final List<Node> roots;
  private final List<Node> flat;

  private CallTree(List<Node> roots, List<Node> flat) {
    this.roots = roots;
    this.flat = flat;
  }

  /** A tree with no calls. */
  public static CallTree empty() {
    return EMPTY;
  }

  /** The tree of {@code snapshots} (in any order; null elements are a programming error). */
  public static CallTree of(Collection<ToolCallSnapshot> snapshots) {
    Objects.requireNonNull(snapshots, "snapshots");
    LinkedHashMap<String, ToolCallSnapshot> byId = new LinkedHashMap<>();
    for (ToolCallSnapshot s : snapshots) {
      Objects.requireNonNull(s, "snapshot in snapshots");
      byId.merge(s.callId(), s, (a, b) -> b.version() > a.version() ? b : a);
    }
    if (byId.isEmpty()) {
      return EMPTY;
    }
    List<ToolCallSnapshot> ordered = new ArrayList<>(byId.values());
    ordered.sort(BY_CREATION); // stable: ties keep input order
    Map<String, List<ToolCallSnapshot>> children = new HashMap<>();
    List<ToolCallSnapshot> rootCalls = new ArrayList<>();
    for (ToolCallSnapshot s : ordered) {
      String parent = s.identity().parentCallId();
      if (parent != null && byId.containsKey(parent)) {
        children.computeIfAbsent(parent, k -> new ArrayList<>()).add(s);
      } else {
        rootCalls.add(s);
      }
    }
    Set<String> placed = new HashSet<>();
    List<Node> roots = new ArrayList<>();
    for (ToolCallSnapshot s : rootCalls) {
      roots.add(build(s, 0, children, placed));
    }
    if (placed.size() < byId.size()) { // parent links with a cycle: lift each cycle's earliest member to the root
      for (ToolCallSnapshot s : ordered) {
        if (!placed.contains(s.callId())) {
          roots.add(build(s, 0, children, placed));
        }
      }
      roots.sort((a, b) -> BY_CREATION.compare(a.snapshot(), b.snapshot()));
    }
    List<Node> flat = new ArrayList<>(byId.size());
    for (Node r : roots) {
      flatten(r, flat);
    }
    return new CallTree(Collections.unmodifiableList(roots), Collections.unmodifiableList(flat));
  }

  private static Node build(ToolCallSnapshot s, int depth, Map<String, List<ToolCallSnapshot>> children,
      Set<String> placed) {
    placed.add(s.callId());
    List<Node> kids = new ArrayList<>();
    for (ToolCallSnapshot c : children.getOrDefault(s.callId(), List.of())) {
      if (!placed.contains(c.callId())) {
        kids.add(build(c, depth + 1, children, placed));
      }
    }
    return new Node(s, depth, kids);
  }

  private static void flatten(Node n, List<Node> out) {
    out.add(n);
    for (Node c : n.children()) {
      flatten(c, out);
    }
  }

  /** The top-level calls, in creation order. */
  public List<Node> roots() {
    return roots;
  }

  /** Every node, depth first, each parent before its children: the order a list UI shows them in. */
  public List<Node> nodes() {
    return flat;
  }

  /** The node of {@code callId}. */
  public Optional<Node> find(String callId) {
    Objects.requireNonNull(callId, "callId");
    for (Node n : flat) {
      if (n.callId().equals(callId)) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  /** The number of calls. */
  public int size() {
    return flat.size();
  }

  /** Whether there are no calls. */
  public boolean isEmpty() {
    return flat.isEmpty();
  }

  @Override
  public String toString() {
    return "CallTree[" + flat.size() + " calls, " + roots.size() + " roots]";
  }
}
