package dev.toolcall.permission;

import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import java.util.Objects;

/**
 * A check that runs before the permission policy for every validated call (what Claude Code calls a PreToolUse
 * hook): it may let the policy decide, allow without asking, insist on asking a person, deny, or rewrite the
 * arguments. Register hooks with {@link PermissionService.Builder#hook}; they run in registration order on the
 * scheduler's thread that authorizes the call, and must be thread-safe and quick.
 *
 * <h2>How verdicts combine</h2>
 * <ul>
 *   <li>{@link Rewrite}: the call's arguments are replaced at once (an {@code ArgumentsModified} change named after
 *       the hook) and the later hooks and the policy see the new ones. They are validated against the tool's schema
 *       again before the tool runs; invalid ones end the call FAILED with a message for the model.</li>
 *   <li>The most restrictive of the other verdicts wins: {@link Deny} (the call ends PERMISSION_DENIED by policy,
 *       the reason goes to the model; no later hook runs), then {@link Ask} (a person is asked even if a rule, a
 *       grant or the approval mode would allow), then {@link Allow} (approved without asking).</li>
 *   <li>A deny rule of the policy and plan (read-only) mode still deny after an {@code Allow} or {@code Ask}: a hook
 *       can make the check stricter or skip the question, never undo an explicit deny.</li>
 *   <li>A hook that throws or returns null denies the call (it fails closed) and is logged.</li>
 * </ul>
 */
@FunctionalInterface
public interface PermissionHook {

  /**
   * Decides about {@code call} (PENDING, arguments valid) of the tool {@code definition}.
   *
   * @return the verdict; never null
   */
  Verdict check(ToolCallSnapshot call, ToolDefinition definition);

  /** A name for logs and for the record of who rewrote arguments. */
  default String name() {
    return getClass().getSimpleName();
  }

  /** What a hook decided. */
  sealed interface Verdict permits Continue, Allow, Ask, Deny, Rewrite {
    /** Let the later hooks and the policy decide. */
    Verdict CONTINUE = new Continue();

    /** Approve without asking a person; {@code why} is recorded on the approval. */
    static Verdict allow(String why) {
      return new Allow(why);
    }

    /** Ask a person, whatever rules, grants and the approval mode would say. */
    static Verdict ask() {
      return new Ask();
    }

    /** Deny; {@code reason} is for the model. */
    static Verdict deny(String reason) {
      return new Deny(reason);
    }

    /** Replace the arguments, then go on to the later hooks and the policy. */
    static Verdict rewrite(ToolArguments arguments) {
      return new Rewrite(arguments);
    }
  }

  /** See {@link Verdict#CONTINUE}. */
  record Continue() implements Verdict {}

  /**
   * See {@link Verdict#allow}.
   *
   * @param why recorded on the approval's reason
   */
  record Allow(String why) implements Verdict {
    /** Checks the text. */
    public Allow {
      Objects.requireNonNull(why, "why");
    }
  }

  /** See {@link Verdict#ask}. */
  record Ask() implements Verdict {}

  /**
   * See {@link Verdict#deny}.
   *
   * @param reason for the model
   */
  record Deny(String reason) implements Verdict {
    /** Checks the reason. */
    public Deny {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * See {@link Verdict#rewrite}.
   *
   * @param arguments the replacement
   */
  record Rewrite(ToolArguments arguments) implements Verdict {
    /** Checks the arguments. */
    public Rewrite {
      Objects.requireNonNull(arguments, "arguments");
    }
  }
}
