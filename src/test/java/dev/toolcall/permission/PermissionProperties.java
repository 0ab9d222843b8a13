package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Change;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * Action chains over one permission service driven by a fake ticker and a fake deadline scheduler: requests opened
 * (tools with different timeouts, some covered by grants made earlier in the chain), decisions of every kind on the
 * current or a stale arguments version (also on requests already resolved), modifications, time advancing past
 * deadlines, cancels of calls from outside, and a close.
 *
 * <p>Invariants, checked after every action:
 * <ol>
 *   <li><b>Resolved exactly once.</b> A call leaves PERMISSION_PENDING at most once; its authorize stage is done
 *       exactly when it has left, and holds the snapshot it left with. At most one decision per request won a
 *       resolution.</li>
 *   <li><b>No request for a terminal call.</b> {@code pending()} holds exactly the calls in PERMISSION_PENDING
 *       (opened by a request), each once, in arrival order, each with the call's current arguments version.</li>
 *   <li><b>Only approved arguments run.</b> A call approved by a decision is approved with exactly the arguments
 *       of the version the decision named (for "approve modified", exactly its new arguments).</li>
 *   <li><b>Grants only from a won "approve always".</b> The grant store holds one grant per won "approve always".</li>
 * </ol>
 * At the end, after the ticker passes every deadline, the queue is empty and every stage is done (quiescence).
 */
class PermissionProperties {

  static final ToolDefinition[] TOOLS = {
      ToolDefinition.builder("shell").permissionTimeout(Duration.ofSeconds(5)).build(),
      ToolDefinition.builder("write_file").permissionTimeout(Duration.ofSeconds(20)).build(),
      ToolDefinition.builder("fetch").build(), // the default, 30 s
  };

  /** The world of one chain. */
  static final class World {
    final PermissionTestSupport t = new PermissionTestSupport();
    final GrantStore store = GrantStore.inMemory();
    final PermissionService svc = t.service().grantStore(store).build();
    final List<ToolCall> calls = new ArrayList<>();
    final Map<String, CompletableFuture<ToolCallSnapshot>> stages = new HashMap<>();
    /** call id -> the arguments a winning approving decision named. */
    final Map<String, ToolArguments> approvedWith = new HashMap<>();
    final Map<String, Integer> resolvingWins = new HashMap<>();
    int alwaysWins;
    int opened;

    @Override
    public String toString() {
      return "World[" + calls.size() + " calls, pending " + svc.pending().size() + "]";
    }
  }

  @Property(tries = 150)
  void permissionInvariantsHold(@ForAll("chains") ActionChain<World> chain) {
    World w = chain.withInvariant("permission invariants", PermissionProperties::check).run();
    w.t.deadlines.advance(Duration.ofMinutes(1));
    check(w);
    assertThat(w.svc.pending()).as("queue empty at quiescence").isEmpty();
    for (ToolCall c : w.calls) {
      assertThat(w.stages.get(c.callId())).as("stage of " + c).isDone();
      assertThat(c.state()).isNotIn(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING);
    }
    w.svc.close();
  }

  @Provide
  Arbitrary<ActionChain<World>> chains() {
    return ActionChain.startWith(World::new)
        .withAction(4, open())
        .withAction(5, decide())
        .withAction(2, advance())
        .withAction(1, cancel())
        .withAction(1, Action.just("close", Transformer.mutate("close", w -> w.svc.close())))
        .withMaxTransformations(40);
  }

  private static Action.Independent<World> open() {
    return () -> Combinators.combine(Arbitraries.integers().between(0, TOOLS.length - 1),
        Arbitraries.of("ls", "npm test", "rm -rf x"), Arbitraries.of("s1", "s2"))
        .as((tool, cmd, session) -> Transformer.mutate("open " + TOOLS[tool].name() + " " + cmd + " in " + session,
            w -> {
              ToolCall c = w.t.call(TOOLS[tool].name(), cmd, session);
              w.calls.add(c);
              w.stages.put(c.callId(), w.svc.authorize(c, TOOLS[tool]).toCompletableFuture());
            }));
  }

  private enum Kind { ONCE, SESSION, ALWAYS, MODIFIED, MODIFY_AND_ASK, DENY }

  private static Action.Independent<World> decide() {
    return () -> Combinators.combine(Arbitraries.integers().between(0, 50), Arbitraries.of(Kind.class),
        Arbitraries.of(true, true, true, false))
        .as((index, kind, current) -> Transformer.mutate("decide " + kind + " on #" + index
            + (current ? "" : " (stale)"), w -> decide(w, index, kind, current)));
  }

  private static void decide(World w, int index, Kind kind, boolean current) {
    List<ToolCall> asked = new ArrayList<>();
    for (ToolCall c : w.calls) {
      if (requestOf(c.snapshot()) != null) {
        asked.add(c);
      }
    }
    if (asked.isEmpty()) {
      return;
    }
    ToolCall call = asked.get(index % asked.size());
    ToolCallSnapshot s = call.snapshot();
    Change.PermissionAsked req = requestOf(s);
    int version = current ? s.argumentsVersion() : Math.max(0, s.argumentsVersion() - 1);
    ToolArguments shown = s.argumentsVersion() == version ? s.arguments() : argumentsAt(s, version);
    ToolArguments edited = ToolArguments.ofText(shown.raw() + " --edited");
    Decision d = switch (kind) {
      case ONCE -> new Decision.ApproveOnce(req.requestId(), version);
      case SESSION -> new Decision.ApproveForSession(req.requestId(), version, ArgumentPattern.exact(shown.raw()));
      case ALWAYS -> new Decision.ApproveAlways(req.requestId(), version, ArgumentPattern.exact(shown.raw()), Duration.ofHours(1));
      case MODIFIED -> new Decision.ApproveModified(req.requestId(), version, edited);
      case MODIFY_AND_ASK -> new Decision.ModifyAndAsk(req.requestId(), version, edited);
      case DENY -> new Decision.Deny(req.requestId(), version, "no");
    };
    DecisionResult r = w.svc.decide(req.requestId(), d);
    boolean wasCurrent = s.state() == ToolCallState.PERMISSION_PENDING && version == s.argumentsVersion();
    if (r.won()) {
      assertThat(wasCurrent).as("a decision on a stale version or a resolved request never wins").isTrue();
      if (kind != Kind.MODIFY_AND_ASK) {
        w.resolvingWins.merge(call.callId(), 1, Integer::sum);
      }
      if (kind == Kind.ALWAYS) {
        w.alwaysWins++;
      }
      if (kind == Kind.MODIFIED) {
        w.approvedWith.put(call.callId(), edited);
      } else if (kind != Kind.DENY && kind != Kind.MODIFY_AND_ASK) {
        w.approvedWith.put(call.callId(), shown);
      }
    } else if (s.state() == ToolCallState.PERMISSION_PENDING && !current && s.argumentsVersion() != version) {
      assertThat(r).isInstanceOf(DecisionResult.Stale.class);
    } else if (s.state() != ToolCallState.PERMISSION_PENDING) {
      assertThat(r).isInstanceOf(DecisionResult.Lost.class);
    }
  }

  private static Action.Independent<World> advance() {
    return () -> Arbitraries.of(1L, 4L, 5L, 6L, 19L, 21L, 31L).map(sec -> Transformer.mutate("advance " + sec + " s",
        w -> w.t.deadlines.advance(Duration.ofSeconds(sec))));
  }

  private static Action.Independent<World> cancel() {
    return () -> Arbitraries.integers().between(0, 50).map(i -> Transformer.mutate("cancel #" + i, w -> {
      if (!w.calls.isEmpty()) {
        w.calls.get(i % w.calls.size()).cancel("cancelled by the user");
      }
    }));
  }

  /** The PermissionAsked of a call that was asked (whatever its state now), or null. */
  static Change.PermissionAsked requestOf(ToolCallSnapshot s) {
    for (ToolCallSnapshot v = s; v != null; v = v.previous()) {
      if (v.change() instanceof Change.PermissionAsked a) {
        return a;
      }
    }
    return null;
  }

  static ToolArguments argumentsAt(ToolCallSnapshot s, int version) {
    for (ToolCallSnapshot v = s; v != null; v = v.previous()) {
      if (v.version() == version) {
        return v.arguments();
      }
    }
    return s.arguments();
  }

  static void check(World w) {
    List<PermissionRequest> pending = w.svc.pending();
    Set<String> pendingCalls = new HashSet<>();
    long lastCreated = Long.MIN_VALUE;
    for (PermissionRequest r : pending) {
      assertThat(pendingCalls.add(r.callId())).as("each call once in the queue").isTrue();
    }
    for (ToolCall c : w.calls) {
      ToolCallSnapshot s = c.snapshot();
      List<ToolCallSnapshot> versions = s.versions();
      long leaves = versions.stream().filter(v -> v.previousState() == ToolCallState.PERMISSION_PENDING
          && v.state() != ToolCallState.PERMISSION_PENDING).count();
      assertThat(leaves).as("left PERMISSION_PENDING at most once: " + c).isLessThanOrEqualTo(1);
      assertThat(w.resolvingWins.getOrDefault(c.callId(), 0)).isLessThanOrEqualTo(1);
      Change.PermissionAsked asked = requestOf(s);
      boolean waiting = s.state() == ToolCallState.PERMISSION_PENDING && asked != null;
      assertThat(pendingCalls.contains(c.callId())).as("queued exactly while waiting: " + c).isEqualTo(waiting);
      CompletableFuture<ToolCallSnapshot> stage = w.stages.get(c.callId());
      if (asked != null) {
        assertThat(stage.isDone()).as("stage done exactly once resolved: " + c).isEqualTo(leaves == 1);
        if (leaves == 1) {
          ToolCallSnapshot left = versions.stream().filter(v -> v.previousState() == ToolCallState.PERMISSION_PENDING
              && v.state() != ToolCallState.PERMISSION_PENDING).findFirst().orElseThrow();
          assertThat(stage.join()).isEqualTo(left);
          if (left.state() == ToolCallState.PERMISSION_APPROVED) {
            assertThat(w.approvedWith).as("approved only by a decision: " + c).containsKey(c.callId());
            assertThat(left.arguments()).as("approved with the arguments named").isEqualTo(
                w.approvedWith.get(c.callId()));
          }
        }
      }
      if (waiting) {
        PermissionRequest r = pending.stream().filter(p -> p.callId().equals(c.callId())).findFirst().orElseThrow();
        assertThat(r.argumentsVersion()).isEqualTo(s.argumentsVersion());
        assertThat(r.requestId()).isEqualTo(asked.requestId());
      }
    }
    for (PermissionRequest r : pending) {
      // request ids are random (issue 29): the order the calls were opened in is the arrival order
      long seq = w.calls.stream().map(ToolCall::callId).toList().indexOf(r.callId());
      assertThat(seq).as("arrival order").isGreaterThan(lastCreated);
      lastCreated = seq;
    }
    assertThat(w.store.grants()).hasSize(w.alwaysWins);
  }
}
