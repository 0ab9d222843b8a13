package dev.toolcall.permission;

import dev.toolcall.Change;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.ToolArguments;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A question waiting for a person: may this call run with these arguments? A plain immutable value: when the
 * arguments are modified the service hands out a new request with the same id and a new {@code argumentsVersion};
 * a {@link Decision} names the version it was made on.
 *
 * @param requestId {@code perm-} and 128 random bits: unique, and not to be guessed from any other request's id
 * @param callId the call's id
 * @param sessionId the call's session
 * @param toolName the tool, exactly as the model named it
 * @param arguments the arguments to approve
 * @param argumentsVersion the version of those arguments (a decision must name it)
 * @param createdAt when the request was opened (wall clock, for display)
 * @param deadline when it is auto-denied if nobody answers (wall clock, for display)
 * @param deadlineTick the same deadline on the service's monotonic ticker: this one is what counts
 */
public record PermissionRequest(String requestId, String callId, String sessionId, String toolName,
    ToolArguments arguments, int argumentsVersion, Instant createdAt, Instant deadline, long deadlineTick) {

  /** Checks the parts. */
  public PermissionRequest {
    Grant.requireNonBlank(requestId, "requestId");
    Grant.requireNonBlank(callId, "callId");
    Grant.requireNonBlank(sessionId, "sessionId");
    Grant.requireNonBlank(toolName, "toolName");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(deadline, "deadline");
  }

  /**
   * The time left before the deadline as of the ticker reading {@code now} (for a countdown); zero once it has
   * passed.
   */
  public Duration remaining(long now) {
    long left = deadlineTick - now;
    return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  /**
   * The request a call in {@link ToolCallState#PERMISSION_PENDING} is waiting on, rebuilt from its snapshot (for a
   * UI that follows the call's events instead of the queue); empty in any other state.
   */
  public static Optional<PermissionRequest> of(ToolCallSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    if (snapshot.state() != ToolCallState.PERMISSION_PENDING) {
      return Optional.empty();
    }
    for (ToolCallSnapshot s = snapshot; s != null; s = s.previous()) {
      if (s.change() instanceof Change.PermissionAsked asked) {
        return Optional.of(new PermissionRequest(asked.requestId(), snapshot.callId(),
            snapshot.identity().sessionId(), snapshot.toolName(), snapshot.arguments(),
            snapshot.argumentsVersion(), s.timestamp(), asked.deadline(), asked.deadlineTick()));
      }
      if (s.isStateChange()) {
        break;
      }
    }
    return Optional.empty();
  }

  PermissionRequest withArguments(ToolArguments args, int version) {
    return new PermissionRequest(requestId, callId, sessionId, toolName, args, version, createdAt, deadline,
        deadlineTick);
  }
}
