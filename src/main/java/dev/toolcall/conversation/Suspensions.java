package dev.toolcall.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.Batch;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.DecisionKind;
import dev.toolcall.permission.DecisionResult;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolCallValidation;
import dev.toolcall.tool.ToolCallValidator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Turns that suspend on approval ({@link Agent.Builder#suspendOnApproval}) and their resumption
 * ({@link Agent#resumeWith}).
 *
 * <p>Design. A turn whose tool phase has to wait for a person ends at once: its {@link Turn} is marked ended (so no
 * step of it touches the conversation any more), its stage completes with {@link TurnResult.Ending#INTERRUPTED}, and
 * a {@link Parked} record keeps what going on needs: the turn, the response's streamed calls (whose tools are held
 * by {@code Streamed.hold}) and batch, or after a restart the restored calls. Nothing else is kept: no stage waits on
 * the permission service, so no thread and no callback chain hangs on the suspended turn; the requests' deadline
 * timers live in the permission service as for any request. {@link #resumeWith} applies the decisions one by one (each
 * checked first: this conversation's request, an allowed kind, the current arguments version, edited arguments valid
 * against the tool's schema), then, under the agent's lock, either lists what is still open (the turn stays
 * suspended) or takes the parked turn and goes on with a {@link Turn#continued() continuation} exactly as the
 * in-process path would have once every request was decided. Resumptions are serialized by {@code resumeLock}, so
 * two clients answering at once cannot both take the parked turn; the loser learns that its decisions came too late
 * ({@link DecisionReport.Status#ALREADY_ANSWERED}) and gets {@link TurnResult.Ending#NOT_INTERRUPTED}.
 */
final class Suspensions {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How many request ids of this conversation are remembered, so a replay is told it was already answered. */
  private static final int KNOWN_LIMIT = 4096;

  private final Agent agent;
  private final Object resumeLock = new Object();
  /** The suspended turn, or null; guarded by the agent's lock. */
  private Parked parked;
  /** Request ids this conversation listed in interrupts, oldest first, bounded; guarded by the agent's lock. */
  private final IdWindow known = new IdWindow(KNOWN_LIMIT);

  Suspensions(Agent agent) {
    this.agent = agent;
  }

  /** A suspended turn: its calls, and for an in-process turn the streamed response and batch whose tools it holds. */
  record Parked(Turn turn, StreamedCalls.Streamed stream, Batch batch, List<ToolCall> calls) {}

  /**
   * Suspends turn {@code t} in awaiting_tool_approval (already published), when a call still waits for a person;
   * false when none does any more (decided meanwhile: the caller goes on as usual).
   */
  boolean suspend(Turn t, StreamedCalls.Streamed st, Batch batch) {
    return park(t, st, batch, batch.calls());
  }

  /** Suspends turn {@code t}, resumed after a restart in awaiting_tool_approval, when a restored call still waits. */
  boolean suspendResumed(Turn t, List<ToolCall> calls) {
    return park(t, null, null, calls);
  }

  private boolean park(Turn t, StreamedCalls.Streamed st, Batch batch, List<ToolCall> calls) {
    TurnResult r;
    synchronized (agent.lock) {
      if (!agent.ends.live(t)) {
        return true; // ended meanwhile (an abort): nothing to suspend
      }
      List<Interrupt> open = interrupts(calls);
      if (open.isEmpty()) {
        return false;
      }
      t.ended = true;
      // the parked turn is a copy without t's stage: that stage keeps the result it completes with (the interrupts
      // with their response schemas), which is the caller's to keep or drop, not the agent's while it waits
      Turn held = t.continued();
      held.ended = true;
      agent.ends.current = held;
      if (st != null && st.retries != null) {
        st.retries.follow(held);
      }
      parked = new Parked(held, st, batch, List.copyOf(calls));
      r = interrupted(t, open, List.of());
    }
    Agent.log.debug("conversation {} turn interrupted: {} open request(s)", agent.conversation.id(),
        r.interrupts().size());
    t.result.complete(r);
    return true;
  }

  /** The suspended turn, if any. Under the agent's lock. */
  Parked parked() {
    return parked;
  }

  /** Takes the suspended turn away (an abort ends it). Under the agent's lock. */
  Parked unpark() {
    Parked p = parked;
    parked = null;
    return p;
  }

  /** The open requests of the suspended turn; empty when none is suspended. */
  List<Interrupt> interrupts() {
    synchronized (agent.lock) {
      return parked == null ? List.of() : interrupts(parked.calls);
    }
  }

  CompletionStage<TurnResult> resumeWith(List<? extends Decision> decisions) {
    Objects.requireNonNull(decisions, "decisions");
    List<Decision> given = new ArrayList<>(decisions.size());
    for (int i = 0; i < decisions.size(); i++) {
      given.add(Objects.requireNonNull(decisions.get(i), "decisions[" + i + "]"));
    }
    List<DecisionReport> reports = new ArrayList<>(given.size());
    Parked p;
    Turn next;
    synchronized (resumeLock) { // the decisions and the taking of the parked turn; the turn goes on outside it
      Set<String> seen = new HashSet<>();
      for (Decision d : given) {
        reports.add(seen.add(d.requestId()) ? apply(d) : new DecisionReport(d.requestId(),
            DecisionReport.Status.DUPLICATE, "Ignored: this call already carried a decision for this request."));
      }
      synchronized (agent.lock) {
        p = parked;
        if (p == null) {
          return CompletableFuture.completedStage(new TurnResult(TurnResult.Ending.NOT_INTERRUPTED,
              "No turn of conversation " + agent.conversation.id() + " is interrupted; nothing was resumed.",
              List.of(), List.of(), TokenUsage.NONE, List.of(), reports));
        }
        if (waiting(p.calls)) {
          return CompletableFuture.completedStage(interrupted(p.turn, interrupts(p.calls), reports));
        }
        parked = null;
        next = p.turn.continued();
        agent.ends.current = next;
        if (p.stream != null && p.stream.retries != null) {
          p.stream.retries.follow(next);
        }
      }
    }
    Agent.log.debug("conversation {}: interrupted turn resumed", agent.conversation.id());
    CompletionStage<TurnResult> ended = next.result.thenApply(r -> r.withDecisions(reports));
    if (p.stream != null) {
      agent.steps.guarded(next, () -> agent.steps.afterApproval(next, p.stream, p.batch));
    } else {
      agent.steps.guarded(next, () -> agent.steps.afterDecided(next, p.calls));
    }
    return ended;
  }

  /** One decision, checked, then given to the permission service. */
  private DecisionReport apply(Decision d) {
    String id = d.requestId();
    PermissionService permissions = agent.runtime.permissions();
    Optional<PermissionRequest> open = permissions.request(id);
    if (open.isPresent() && !open.get().sessionId().equals(agent.conversation.id())) {
      open = Optional.empty(); // another conversation's request: answered exactly as an unknown id
    } else if (open.isEmpty()) {
      boolean ours;
      synchronized (agent.lock) {
        ours = known.contains(id);
      }
      if (!ours) {
        return unknown(id);
      }
      return report(id, permissions.decide(id, d));
    }
    if (open.isEmpty()) {
      return unknown(id);
    }
    PermissionRequest request = open.get();
    DecisionKind kind = DecisionKind.of(d);
    if (!agent.allowedDecisions.contains(kind)) {
      return new DecisionReport(id, DecisionReport.Status.NOT_ALLOWED, "Not applied: this request does not allow '"
          + kind.wireName() + "'; allowed: " + wireNames(agent.allowedDecisions) + ".");
    }
    if (d.argumentsVersion() != request.argumentsVersion()) {
      return stale(id, d.argumentsVersion(), request.argumentsVersion());
    }
    ToolArguments edited = d instanceof Decision.ApproveModified m ? m.arguments()
        : d instanceof Decision.ModifyAndAsk m ? m.arguments() : null;
    if (edited != null) {
      ToolCallValidation v = ToolCallValidator.of(agent.runtime.registry()).validate(request.toolName(), edited);
      if (v instanceof ToolCallValidation.Invalid bad) {
        return new DecisionReport(id, DecisionReport.Status.INVALID_ARGUMENTS, "Not applied: " + bad.message());
      }
    }
    return report(id, permissions.decide(id, d));
  }

  private static DecisionReport report(String id, DecisionResult r) {
    if (r instanceof DecisionResult.UnknownRequest) { // an id this conversation handed out: it was resolved
      return new DecisionReport(id, DecisionReport.Status.ALREADY_ANSWERED,
          "Not applied: the request is no longer open.");
    }
    if (r instanceof DecisionResult.WrongRequest) {
      return unknown(id);
    }
    return DecisionReport.of(r);
  }

  private static DecisionReport unknown(String id) {
    return new DecisionReport(id, DecisionReport.Status.UNKNOWN_REQUEST,
        "Not applied: no such request in this conversation.");
  }

  private static DecisionReport stale(String id, int decidedOn, int current) {
    return DecisionReport.stale(id, decidedOn, current);
  }

  /**
   * Whether a call still waits for a person. (A PENDING call needs none: it runs without permission once its tools
   * may start, or its authorization is under way and the tool phase waits for it as usual.)
   */
  private static boolean waiting(List<ToolCall> calls) {
    for (ToolCall c : calls) {
      if (c.state() == ToolCallState.PERMISSION_PENDING) {
        return true;
      }
    }
    return false;
  }

  /** An INTERRUPTED result of {@code t}. Under the agent's lock. */
  private TurnResult interrupted(Turn t, List<Interrupt> open, List<DecisionReport> reports) {
    StringBuilder text = new StringBuilder("The turn waits for a decision on ").append(open.size())
        .append(open.size() == 1 ? " tool call:" : " tool calls:");
    for (Interrupt i : open) {
      text.append(' ').append(i.toolName()).append(" (").append(i.callId()).append(')');
    }
    return new TurnResult(TurnResult.Ending.INTERRUPTED, text.append('.').toString(), t.toolResults, t.callResults,
        t.usage, open, reports);
  }

  /** The open requests among {@code calls}, in order; remembers their ids. Under the agent's lock. */
  private List<Interrupt> interrupts(List<ToolCall> calls) {
    List<Interrupt> out = new ArrayList<>();
    for (ToolCall c : calls) {
      Optional<PermissionRequest> r = PermissionRequest.of(c.snapshot());
      if (r.isPresent()) {
        PermissionRequest req = agent.runtime.permissions().request(r.get().requestId()).orElse(r.get());
        out.add(Interrupt.of(req, agent.allowedDecisions, responseSchema(req)));
        remember(req.requestId());
      }
    }
    return out;
  }

  private void remember(String requestId) {
    known.add(requestId);
  }

  private static String wireNames(Set<DecisionKind> kinds) {
    List<String> names = new ArrayList<>();
    for (DecisionKind k : DecisionKind.values()) {
      if (kinds.contains(k)) {
        names.add(k.wireName());
      }
    }
    return String.join(", ", names);
  }

  /** The JSON Schema of one answer to {@code r}: a wire-format decision with its id and version fixed. */
  private String responseSchema(PermissionRequest r) {
    ObjectNode s = JSON.createObjectNode();
    s.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    s.put("title", "Decision on " + r.toolName() + " (" + r.callId() + ")");
    s.put("type", "object");
    ArrayNode required = s.putArray("required");
    required.add("requestId").add("argumentsVersion").add("decision");
    ObjectNode p = s.putObject("properties");
    p.putObject("v").put("const", 1); // the wire format's version (dev.toolcall.wire.WireFormat.VERSION)
    p.putObject("requestId").put("const", r.requestId());
    p.putObject("argumentsVersion").put("const", r.argumentsVersion());
    ArrayNode kinds = p.putObject("decision").putArray("enum");
    for (DecisionKind k : DecisionKind.values()) {
      if (agent.allowedDecisions.contains(k)) {
        kinds.add(k.wireName());
      }
    }
    JsonNode params = agent.runtime.registry().find(r.toolName())
        .<JsonNode>map(tool -> tool.definition().parameters().deepCopy()).orElseGet(JSON::createObjectNode);
    if (params.isObject()) {
      ((ObjectNode) params).remove("$schema");
    }
    p.set("arguments", params);
    p.putObject("reason").put("type", "string");
    s.put("additionalProperties", false);
    return s.toString();
  }
}
