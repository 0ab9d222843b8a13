package dev.toolcall.permission;

import dev.toolcall.ToolArguments;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A standing approval: calls of {@code toolName} whose arguments match {@code arguments} are approved without asking
 * until {@code expiresAt} (if set) or until the grant is revoked. Made by "approve for session" (held by the
 * {@link PermissionService} for one session) or "approve always" (kept by a {@link GrantStore}).
 *
 * <p>The tool name is compared exactly (no case folding, no normalisation). Expiry is an absolute wall-clock
 * instant, because a stored grant outlives the process; an expired grant never approves anything. A plain
 * immutable value.
 *
 * @param id the grant's id, unique within its store
 * @param toolName the tool, exactly
 * @param arguments which arguments it covers
 * @param createdAt when it was made
 * @param expiresAt when it stops approving; null for never
 */
public record Grant(String id, String toolName, ArgumentPattern arguments, Instant createdAt, Instant expiresAt) {

  /** Checks the parts. */
  public Grant {
    requireNonBlank(id, "id");
    requireNonBlank(toolName, "toolName");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** The expiry, if any. */
  public Optional<Instant> expiry() {
    return Optional.ofNullable(expiresAt);
  }

  /** Whether the grant still approves at {@code now}. */
  public boolean isActiveAt(Instant now) {
    return expiresAt == null || now.isBefore(expiresAt);
  }

  /** Whether this grant approves a call of {@code tool} with {@code args} at {@code now}. */
  public boolean covers(String tool, ToolArguments args, Instant now) {
    return toolName.equals(tool) && isActiveAt(now) && arguments.matches(args);
  }

  /** The rule-like form, {@code tool(arguments)}. */
  public String form() {
    return arguments.kind() == ArgumentPattern.Kind.ANY ? toolName : toolName + "(" + arguments.form() + ")";
  }

  static String requireNonBlank(String value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return value;
  }
}
