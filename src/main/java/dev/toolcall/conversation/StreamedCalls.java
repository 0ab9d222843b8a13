package dev.toolcall.conversation;

import dev.toolcall.FailureKind;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.OpenBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The assembly of the tool calls a model streams, for one {@link Agent}: a call is announced on the scheduler's open
 * batch as soon as the stream names it, its argument fragments fill in, and once they are complete the per-call guards
 * decide whether it is validated and authorized (its tool waits for the tool phase) or refused. Runs on the stream's
 * thread, one delta at a time; every read or write of the turn's state holds the agent's lock. A helper of
 * {@link TurnSteps}, which calls it for each delta and once the response is complete: it takes no step of the turn
 * (the conversation does not move here).
 */
final class StreamedCalls {
  private final Agent agent;
  private final TurnEnds ends;

  StreamedCalls(Agent agent, TurnEnds ends) {
    this.agent = agent;
    this.ends = ends;
  }

  /**
   * One delta of the response being streamed (the stream's thread, one delta at a time): a call is created when
   * announced, its arguments fill in, and once they are complete the guards decide whether it is validated and
   * authorized (its tool waits for the tool phase) or refused.
   */
  void onDelta(Turn t, ModelDelta d) {
    if (d instanceof ModelDelta.ToolCallStarted s) {
      Streamed st;
      String refusal;
      CallRequest req;
      synchronized (agent.lock) {
        if (!ends.live(t)) {
          return;
        }
        st = t.stream;
        if (st != null && st.responded) {
          return; // a client that streams after its response (against the contract): ignored
        }
        if (st == null) {
          st = new Streamed(t.requested.size());
          st.retries = new ToolRetryWatch(agent, t);
          st.batch = agent.runtime.scheduler().openBatch(agent.conversation.id(), st.hold, st.retries);
          t.stream = st;
        }
        refusal = refusedBeforeScheduling(s.callId(), s.toolName(), st);
        req = refusal == null ? request(s.callId(), s.toolName()) : null;
      }
      Announced a;
      if (refusal != null) {
        a = new Announced(s.callId(), s.toolName(), null, -1);
        a.refusal = refusal;
        a.blankName = !s.callId().isBlank() && s.toolName().isBlank();
      } else {
        ToolCall call = st.batch.announce(req);
        a = new Announced(s.callId(), s.toolName(), call, st.scheduled++);
      }
      st.announced.add(a);
      st.open.put(a.id, a);
    } else if (d instanceof ModelDelta.ToolCallArguments f) {
      Streamed st = stream(t);
      Announced a = st == null ? null : st.open.get(f.callId());
      if (a != null) {
        a.append(f.fragment());
        if (a.call != null) {
          st.batch.appendArguments(a.call, f.fragment());
        }
      }
    } else if (d instanceof ModelDelta.ToolCallCompleted c) {
      Streamed st = stream(t);
      Announced a = st == null ? null : st.open.remove(c.callId());
      if (a != null) {
        onCallComplete(t, st, a);
      }
    }
  }

  /**
   * The complete response's calls that the stream did not announce (a client that streams no calls, or not all):
   * they take the same path now, as if streamed; then each call refused before scheduling is put on the bus.
   * {@code st} is the stream as it was when the response completed.
   */
  void takeUnstreamed(Turn t, Streamed st, List<ToolCallRequest> calls) {
    for (int i = st == null ? 0 : st.announced.size(); i < calls.size(); i++) {
      ToolCallRequest c = calls.get(i);
      onDelta(t, new ModelDelta.ToolCallStarted(c.id(), c.name()));
      onDelta(t, new ModelDelta.ToolCallArguments(c.id(), c.rawArguments()));
      onDelta(t, new ModelDelta.ToolCallCompleted(c.id()));
    }
    publishRefused(t, calls);
  }

  /**
   * Puts each call of the response refused before scheduling (a blank or reused id, no tool name) on the runtime's
   * bus, failed with its refusal, before the conversation moves on, so a UI shows it like every call
   * ({@link dev.toolcall.execution.ToolScheduler#refuse}: it gets an id of its own). Each once.
   */
  private void publishRefused(Turn t, List<ToolCallRequest> calls) {
    List<Announced> refused = new java.util.ArrayList<>();
    List<String> raw = new java.util.ArrayList<>();
    synchronized (agent.lock) {
      Streamed st = ends.live(t) ? t.stream : null;
      for (int i = 0; st != null && i < st.announced.size() && i < calls.size(); i++) {
        Announced a = st.announced.get(i);
        if (a.call == null && a.refusal != null && !a.published) {
          a.published = true;
          refused.add(a);
          raw.add(calls.get(i).rawArguments());
        }
      }
    }
    for (int i = 0; i < refused.size(); i++) {
      Announced a = refused.get(i);
      agent.runtime.scheduler().refuse(agent.conversation.id(), agent.parentCallId, a.id, a.name, raw.get(i),
          a.blankName ? FailureKind.UNKNOWN_TOOL : FailureKind.DUPLICATE_CALL, a.refusal);
    }
  }

  /**
   * Why a call the model announced is answered without being scheduled, or null: a blank id or tool name (nothing
   * could refer to it), or an id already answered earlier in this conversation or used by another call of this
   * response (the scheduler would take it for the earlier call, and the model could not tell the results apart).
   * Under the agent's lock.
   */
  private String refusedBeforeScheduling(String id, String name, Streamed st) {
    if (name.isBlank()) {
      return "Not run: this tool call names no tool. Send it again with the name of one of the available tools.";
    }
    boolean inThisResponse = false;
    for (Announced a : st.announced) {
      inThisResponse |= !id.isBlank() && a.id.equals(id);
    }
    if (inThisResponse) {
      return "Not run: the tool call id '" + id + "' was already used by another tool call of this response, so"
          + " its result could not be told apart. Send the call again with a new, unique id.";
    }
    return null;
  }

  /**
   * The scheduler's request for a call the provider announced as {@code id}. The provider's id is the call's id when
   * it can be one; a blank id, or one an earlier call of this conversation had (providers that number calls per
   * response send {@code call_0} every time), gets a call id minted by the library, and the provider's id becomes its
   * label: the result still goes back to the model under it, right after the message that made the call. Under the
   * agent's lock.
   */
  private CallRequest request(String id, String name) {
    CallRequest req = id.isBlank() || agent.answeredIds.contains(id)
        ? CallRequest.labelled(CallRequest.mintCallId(), id, name, "") : CallRequest.of(id, name, "");
    return agent.parentCallId == null ? req : req.nestedIn(agent.parentCallId);
  }

  /**
   * Whether {@code call} ended FAILED in validation, its tool never entered (an unknown tool, malformed or invalid
   * arguments): validation happens as each call's arguments complete, so by the time the response is complete an
   * invalid call has ended.
   */
  static boolean invalid(ToolCall call) {
    if (call == null) {
      return false;
    }
    ToolCallSnapshot s = call.snapshot();
    return s.state() == ToolCallState.FAILED && !s.toolStarted();
  }

  /** The calls of the response being streamed while {@code t} is live and the response is not complete, else null. */
  Streamed stream(Turn t) {
    synchronized (agent.lock) {
      Streamed st = ends.live(t) ? t.stream : null;
      return st == null || st.responded ? null : st;
    }
  }

  /** A streamed call's arguments are complete: the per-call guards, then the scheduler or a refusal. */
  void onCallComplete(Turn t, Streamed st, Announced a) {
    String raw = a.raw();
    a.text = null; // read once, here: the request keeps the text, the builder need not outlive the stream
    a.more = null;
    if (a.call == null) {
      return; // refused when announced: nothing to schedule, its refusal is its result
    }
    ToolCallRequest request = new ToolCallRequest(a.id, a.name, raw);
    GuardDecision d = null;
    synchronized (agent.lock) {
      if (!ends.live(t)) {
        return;
      }
      if (st.loop == null) {
        d = TurnGuards.checkToolCall(agent.limits, t.requested, request);
        if (d.verdict() == GuardDecision.Verdict.LOOP_DETECTED) {
          st.loop = d;
          st.loopIndex = st.announced.indexOf(a);
        } else {
          t.requested.add(request);
        }
      }
    }
    if (d != null && d.allowed()) {
      st.batch.complete(a.call);
      return;
    }
    a.refusal = d != null ? d.message() : TurnSteps.LOOP_NOT_RUN;
    st.batch.fail(a.call, FailureKind.LIMIT_EXCEEDED, a.refusal);
  }

  /**
   * The response failed or was discarded: its calls are cancelled (those whose arguments were complete first, so
   * nothing starts), the stream's guard records are undone, and the batch is sealed.
   */
  void dropStream(Turn t, String reason) {
    Streamed st;
    synchronized (agent.lock) {
      st = t.stream;
      t.stream = null;
      if (st != null && ends.live(t)) {
        t.requested.subList(st.requestedMark, t.requested.size()).clear();
      }
    }
    if (st != null) {
      st.batch.cancelAll(reason);
      st.batch.seal();
      st.hold.complete(null);
    }
  }

  /** Whether the calls the stream announced are the first calls of the response (same ids and names, in order). */
  static boolean streamedAsResponse(Streamed st, List<ToolCallRequest> calls) {
    if (st == null) {
      return true;
    }
    if (st.announced.size() > calls.size()) {
      return false;
    }
    for (int i = 0; i < st.announced.size(); i++) {
      Announced a = st.announced.get(i);
      if (!a.id.equals(calls.get(i).id()) || !a.name.equals(calls.get(i).name())) {
        return false;
      }
    }
    return true;
  }

  /**
   * The tool calls of one response as it streams: the open batch, the hold that keeps their tools from starting
   * before {@code executing_tools}, and per call what the loop knows. The lists, the map and the loop fields are
   * touched by the stream's thread (one delta at a time) and then by the step that handles the complete response
   * (after the stream's stage completed); {@code batch.cancelAll} and {@code hold} by any thread.
   */
  static final class Streamed {
    final CompletableFuture<Void> hold = new CompletableFuture<>();
    /** Shows the batch's tool retries on the conversation once its tools may start. */
    ToolRetryWatch retries;
    /** How many requests of the turn the guards had seen before this response. */
    final int requestedMark;
    /** Every announced call, in order; let go by {@link #forgetCalls} once the response has been handled. */
    List<Announced> announced = new ArrayList<>();
    /** The announced calls whose arguments are still coming, by id; let go with {@link #announced}. */
    Map<String, Announced> open = new HashMap<>();
    OpenBatch batch;
    GuardDecision loop;
    int loopIndex = -1;
    /** Set under the agent's lock once the complete response is handled: later deltas are ignored. */
    boolean responded;
    /** How many calls were announced on the batch (the stream's thread only). */
    int scheduled;

    Streamed(int requestedMark) {
      this.requestedMark = requestedMark;
    }

    /**
     * The complete response has been handled (its calls are in the turn, their refusals and batch places copied
     * there): nothing reads what the stream knew per call again (a late delta is ignored once {@link #responded}),
     * so a turn kept while it waits for a person holds no entry per call here.
     */
    void forgetCalls() {
      announced = List.of();
      open = Map.of();
    }
  }

  /**
   * One announced call: its id, tool name, call (null when it was refused before scheduling) and its index in the
   * batch (-1 then), its raw arguments so far (until they are complete), and the refusal if any.
   */
  static final class Announced {
    final String id;
    final String name;
    final ToolCall call;
    final int batchIndex;
    /**
     * The arguments so far while they are one fragment: that fragment itself, so arguments sent whole are kept as the
     * model's own string, not a copy; null once complete ({@link StreamedCalls#onCallComplete}). The stream's thread
     * only, as {@link #more} is.
     */
    String text = "";
    /** The arguments so far once a second fragment came; null before and once complete. */
    StringBuilder more;
    String refusal;
    /** A refusal for a call with an id but no tool name (else the id was blank or reused). */
    boolean blankName;
    /** Whether the refused call was put on the bus; guarded by the agent's lock. */
    boolean published;

    Announced(String id, String name, ToolCall call, int batchIndex) {
      this.id = id;
      this.name = name;
      this.call = call;
      this.batchIndex = batchIndex;
    }

    void append(String fragment) {
      if (more == null && text.isEmpty()) {
        text = fragment;
        return;
      }
      if (more == null) {
        more = new StringBuilder(text.length() + fragment.length()).append(text);
      }
      more.append(fragment);
    }

    /** The arguments so far. */
    String raw() {
      return more != null ? more.toString() : text;
    }
  }
}
