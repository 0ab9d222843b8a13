package dev.toolcall.permission;

import dev.toolcall.DenialSource;
import dev.toolcall.Outcome;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.fsm.TransitionResult;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A person's answers to one {@link PermissionService}'s requests ({@link PermissionService#decide}): finding the
 * request (here, among the recently resolved, or loaded from a shared store), refusing a decision for another
 * request, one no longer waiting, one past its deadline (the timeout is carried out first and wins) or one made on
 * stale arguments, and otherwise carrying it out through the call's compare-and-set; the grant of "approve for
 * session" or "approve always" is written only when that decision won. Thread-safe as the service is.
 */
final class Decisions {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private final PermissionService svc;

  Decisions(PermissionService svc) {
    this.svc = svc;
  }

  /** {@link PermissionService#decide}, its arguments checked and the read noted. */
  DecisionResult decide(String requestId, Decision decision) {
    if (!decision.requestId().equals(requestId)) {
      return new DecisionResult.WrongRequest(requestId, decision.requestId());
    }
    Pending p = svc.byId.get(requestId);
    if (p == null) {
      DecisionResult.Lost lost = svc.resolved.getIfPresent(requestId);
      if (lost != null) {
        return lost;
      }
      p = svc.reopened.loaded(requestId);
      if (p == null) {
        lost = svc.resolved.getIfPresent(requestId); // loaded, but decided elsewhere before it re-opened here
        return lost == null ? new DecisionResult.UnknownRequest(requestId) : lost;
      }
    }
    ToolCall call = p.call;
    ToolCallSnapshot s = call.snapshot();
    if (s.state() == ToolCallState.PENDING) {
      return new DecisionResult.UnknownRequest(requestId); // not opened yet
    }
    if (s.state() != ToolCallState.PERMISSION_PENDING) {
      return DecisionResult.Lost.of(requestId, s);
    }
    if (svc.timeouts.pastDeadline(p)) { // its denial is due (its timer may be late, or failed on the store): it wins
      ToolCallSnapshot t = svc.timeouts.timeOut(p);
      return t.state() == ToolCallState.PERMISSION_PENDING ? afterLoss(p, t, decision.argumentsVersion())
          : DecisionResult.Lost.of(requestId, t);
    }
    int v = decision.argumentsVersion();
    if (v != s.argumentsVersion()) {
      return new DecisionResult.Stale(requestId, v, p.request(s));
    }
    final ToolCallState pp = ToolCallState.PERMISSION_PENDING;
    final ToolCallState approved = ToolCallState.PERMISSION_APPROVED;
    TransitionResult<ToolCallSnapshot> r;
    Optional<Grant> grant = Optional.empty();
    if (decision instanceof Decision.ApproveOnce) {
      r = call.transition(pp, v, approved, Reason.APPROVED_ONCE);
    } else if (decision instanceof Decision.ApproveForSession d) {
      r = call.transition(pp, v, approved, Reason.APPROVED_FOR_SESSION);
      if (r.won()) {
        Grant g = new Grant("session-" + requestId, call.toolName(), d.arguments(), svc.clock.instant(), null);
        try {
          svc.sessionGrants.add(call.sessionId(), g);
          grant = Optional.of(g);
        } catch (RuntimeException | Error e) { // user code (or a database): the approval stands
          log.warn("call {} is approved but session grant store {} failed to keep grant {}", call.callId(),
              svc.sessionGrants, g.form(), e);
        }
      }
    } else if (decision instanceof Decision.ApproveAlways d) {
      r = call.transition(pp, v, approved, Reason.APPROVED_ALWAYS);
      if (r.won()) {
        Instant now = svc.clock.instant();
        Grant g = new Grant("grant-" + requestId, call.toolName(), d.arguments(), now,
            d.expiry() == null ? null : Durations.saturatedPlus(now, d.expiry()));
        try {
          svc.grantStore.add(g);
          grant = Optional.of(g);
        } catch (RuntimeException | Error e) { // a grant store is user code
          log.warn("call {} is approved but grant store {} failed to keep grant {}", call.callId(), svc.grantStore,
              g.form(), e);
        }
      }
    } else if (decision instanceof Decision.ApproveModified d) {
      TransitionResult<ToolCallSnapshot> m = call.modifyArguments(pp, v, d.arguments(), "user");
      if (m.lost()) {
        return afterLoss(p, m.snapshot(), v);
      }
      r = call.transition(pp, m.snapshot().argumentsVersion(), approved,
          Reason.APPROVED_ONCE.withMessage("approved by the user with modified arguments"));
    } else if (decision instanceof Decision.ModifyAndAsk d) {
      TransitionResult<ToolCallSnapshot> m = call.modifyArguments(pp, v, d.arguments(), "user");
      return m.won() ? new DecisionResult.Won(requestId, m.snapshot(), Optional.empty())
          : afterLoss(p, m.snapshot(), v);
    } else {
      Decision.Deny d = (Decision.Deny) decision;
      r = call.terminate(pp, v, new Outcome.Denied(DenialSource.USER, d.reasonForModel()), Reason.DENIED_BY_USER);
    }
    if (r.lost()) {
      return afterLoss(p, r.snapshot(), v);
    }
    svc.finish(p, r.snapshot());
    return new DecisionResult.Won(requestId, r.snapshot(), grant);
  }


  static DecisionResult afterLoss(Pending p, ToolCallSnapshot s, int decidedOn) {
    String id = p.id();
    return s.state() == ToolCallState.PERMISSION_PENDING ? new DecisionResult.Stale(id, decidedOn, p.request(s))
        : DecisionResult.Lost.of(id, s);
  }
}
