package dev.toolcall.permission;

import dev.toolcall.OwnedStage;
import dev.toolcall.ToolCallSnapshot;

/**
 * The stage {@link PermissionService#authorize} returns when it decided at once (no person was asked: a rule, a grant,
 * the mode, a tool that needs no approval, a closed service): complete from the start, with the snapshot that says
 * whether the call may run (see {@link OwnedStage}). A request that waits for a person is its own stage
 * ({@link Pending}), completed when it is resolved.
 */
final class DecidedStage extends OwnedStage {

  /** A stage completed with {@code s}. */
  DecidedStage(ToolCallSnapshot s) {
    super("an authorize stage completes only when the permission service decides");
    settle(s);
  }
}
