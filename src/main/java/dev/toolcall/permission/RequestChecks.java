package dev.toolcall.permission;

import dev.toolcall.DenialSource;
import dev.toolcall.Reason;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.fsm.TransitionResult;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checks of one {@link PermissionService#authorize} before anybody is asked, in the order its class comment
 * lists: the hooks, the approval mode, the policy's rules, the session grants and the stored grants; a call none of
 * them settles is asked about ({@link PermissionService#ask}). A grant store or hook that fails is logged and the
 * call is asked about (a failing hook denies it). Stateless beyond its service; thread-safe as the service is.
 */
final class RequestChecks {

  private static final Logger log = LoggerFactory.getLogger(PermissionService.class);

  private final PermissionService svc;

  RequestChecks(PermissionService svc) {
    this.svc = svc;
  }

  /**
   * The stage of the call's authorization, or null when its arguments changed while it was checked (the caller
   * evaluates again).
   */
  CompletionStage<ToolCallSnapshot> evaluate(ToolCall call, ToolDefinition definition, ToolCallSnapshot s) {
    PermissionHook.Verdict hooked = PermissionHook.Verdict.CONTINUE;
    for (PermissionHook h : svc.hooks) {
      PermissionHook.Verdict v;
      try {
        v = Objects.requireNonNull(h.check(s, definition), "the hook returned null");
      } catch (RuntimeException | Error e) { // user code: fail closed
        log.warn("permission hook {} failed on call {} ({}); the call is denied", h.name(), call.callId(),
            call.toolName(), e);
        return denyByPolicy(call, "The call was denied: a permission check failed.");
      }
      if (v instanceof PermissionHook.Deny d) {
        return denyByPolicy(call, d.reason());
      }
      if (v instanceof PermissionHook.Rewrite r) {
        TransitionResult<ToolCallSnapshot> w = call.modifyArguments(ToolCallState.PENDING, s.argumentsVersion(),
            r.arguments(), h.name());
        if (w.lost()) {
          ToolCallSnapshot cur = w.snapshot();
          return cur.isTerminal() ? PermissionService.done(cur) : null; // changed meanwhile: evaluate again
        }
        s = w.snapshot();
      } else if (v instanceof PermissionHook.Ask
          || (v instanceof PermissionHook.Allow && !(hooked instanceof PermissionHook.Ask))) {
        hooked = v;
      }
    }
    String tool = call.toolName();
    ToolArguments args = s.arguments();
    ApprovalMode m = svc.mode;
    if (m == ApprovalMode.READ_ONLY && !definition.readOnly()) {
      return denyByPolicy(call, "Only read-only tools may run in plan (read-only) mode.");
    }
    PermissionPolicy.Verdict verdict = svc.policy.evaluate(tool, args);
    if (verdict.rule().isPresent() && verdict.effect() == PermissionRule.Effect.DENY) {
      return denyByPolicy(call, "Rule: " + verdict.rule().get() + ".");
    }
    if (hooked instanceof PermissionHook.Ask) {
      return svc.opening.ask(call, definition, s);
    }
    if (hooked instanceof PermissionHook.Allow a) {
      return definition.requiresApproval() ? approve(call, "hook: " + a.why()) : PermissionService.done(s);
    }
    if (verdict.rule().isPresent()) {
      PermissionRule rule = verdict.rule().get();
      if (verdict.effect() == PermissionRule.Effect.ASK) {
        return svc.opening.ask(call, definition, s);
      }
      return definition.requiresApproval() ? approve(call, "rule " + rule) : PermissionService.done(s);
    }
    if (!definition.requiresApproval()) {
      return PermissionService.done(s);
    }
    Instant now = svc.clock.instant();
    List<Grant> session;
    try {
      session = svc.sessionGrants.of(call.sessionId());
    } catch (RuntimeException | Error e) { // a session grant store is user code (or a database)
      log.warn("session grant store {} failed to look up {}; asking instead", svc.sessionGrants, tool, e);
      session = List.of();
    }
    for (Grant g : session) {
      if (g.covers(tool, args, now)) {
        return approve(call, "session grant " + g.form());
      }
    }
    Optional<Grant> stored;
    try {
      stored = svc.grantStore.find(tool, args, now);
    } catch (RuntimeException | Error e) { // a grant store is user code
      log.warn("grant store {} failed to look up {}; asking instead", svc.grantStore, tool, e);
      stored = Optional.empty();
    }
    if (stored.isPresent()) {
      return approve(call, "grant " + stored.get().id() + " " + stored.get().form());
    }
    if (m == ApprovalMode.ALLOW_ALL) {
      return approve(call, "approval mode ALLOW_ALL");
    }
    if (m == ApprovalMode.AUTO_APPROVE_EDITS && svc.policy.isEditTool(tool)) {
      return approve(call, "approval mode AUTO_APPROVE_EDITS: edit tool");
    }
    return svc.opening.ask(call, definition, s);
  }

  private CompletionStage<ToolCallSnapshot> approve(ToolCall call, String why) {
    return PermissionService.done(call.transition(ToolCallState.PENDING, ToolCallState.PERMISSION_APPROVED,
        Reason.AUTO_APPROVED.withMessage("auto-approved by " + why)).snapshot());
  }

  private CompletionStage<ToolCallSnapshot> denyByPolicy(ToolCall call, String why) {
    TransitionResult<ToolCallSnapshot> r = call.transition(ToolCallState.PENDING, ToolCallState.PERMISSION_PENDING,
        Reason.PERMISSION_REQUIRED.withMessage("denied by policy without asking"));
    if (r.lost()) {
      return PermissionService.done(r.snapshot());
    }
    return PermissionService.done(call.deny(DenialSource.POLICY, why).snapshot());
  }

}
