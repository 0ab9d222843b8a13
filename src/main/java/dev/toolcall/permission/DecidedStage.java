package dev.toolcall.permission;

import dev.toolcall.OwnedStage;
import dev.toolcall.ToolCallSnapshot;

/**
 * The stage {@link PermissionService#authorize} returns: completed only by the service ({@link #release}), with the
 * snapshot that says whether the call may run (see {@link OwnedStage}). Where a minimal stage costs a second stage and
 * a relay per request (64 bytes while the request waits), this costs nothing more; the scheduler chains on it
 * directly, without a copy.
 */
final class DecidedStage extends OwnedStage {

  DecidedStage() {
    super("an authorize stage completes only when the permission service decides");
  }

  /** A stage completed with {@code s} already. */
  DecidedStage(ToolCallSnapshot s) {
    this();
    settle(s);
  }

  /** Completes the stage with {@code s}; by the service only. Later calls do nothing. */
  void release(ToolCallSnapshot s) {
    settle(s);
  }
}
