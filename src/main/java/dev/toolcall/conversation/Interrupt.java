package dev.toolcall.conversation;

import dev.toolcall.permission.DecisionKind;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.ToolArguments;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One open permission request of a turn that ended {@link TurnResult.Ending#INTERRUPTED}: what a remote client shows
 * and answers. A plain immutable value; its request stays open in the runtime's
 * {@link dev.toolcall.permission.PermissionService} (with its deadline timer) until a decision, its deadline or a
 * cancel resolves it. Answer it with {@link Agent#resumeWith}, naming {@link #requestId()} and
 * {@link #argumentsVersion()}.
 *
 * @param requestId the request's id: random, unguessable from any other, stable across snapshots and instances
 * @param callId the call's id
 * @param sessionId the call's session (the conversation id)
 * @param toolName the tool
 * @param arguments the arguments to approve
 * @param argumentsVersion their version: a decision must name it (else {@link DecisionReport.Status#STALE})
 * @param createdAt when the request was opened
 * @param deadline when it is denied if nobody answers (absolute, wall clock)
 * @param allowed the decisions this request accepts
 * @param responseSchema a JSON Schema (as text) of the answer a client posts for it: one element of the wire
 *     format's {@code decisions} array, with this request's id and version as constants and the tool's parameter
 *     schema for edited arguments
 */
public record Interrupt(String requestId, String callId, String sessionId, String toolName, ToolArguments arguments,
    int argumentsVersion, Instant createdAt, Instant deadline, Set<DecisionKind> allowed, String responseSchema) {

  /** Checks the parts and copies the set. */
  public Interrupt {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(callId, "callId");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(deadline, "deadline");
    allowed = Set.copyOf(EnumSet.copyOf(Objects.requireNonNull(allowed, "allowed")));
    Objects.requireNonNull(responseSchema, "responseSchema");
  }

  /** The request this interrupt stands for (deadline tick left at zero: it is not this value's business). */
  static Interrupt of(PermissionRequest r, Set<DecisionKind> allowed, String responseSchema) {
    return new Interrupt(r.requestId(), r.callId(), r.sessionId(), r.toolName(), r.arguments(), r.argumentsVersion(),
        r.createdAt(), r.deadline(), allowed, responseSchema);
  }
}
