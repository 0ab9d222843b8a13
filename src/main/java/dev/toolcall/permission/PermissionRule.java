package dev.toolcall.permission;

import dev.toolcall.ToolArguments;
import java.util.Objects;

/**
 * One rule of a {@link PermissionPolicy}: for calls whose tool name matches {@code toolPattern} and whose arguments
 * match {@code arguments}, allow, ask or deny.
 *
 * <p>The string form is {@code tool} or {@code tool(arguments)}, for example {@code read_file},
 * {@code mcp__github__*}, {@code shell(npm test:*)} or {@code shell(git status)}: the tool part is an exact name or
 * a glob (see {@link PermissionPolicy}), the part in parentheses an {@link ArgumentPattern}. Immutable.
 *
 * @param effect what the rule decides
 * @param toolPattern the tool name, exact or with {@code *}
 * @param arguments which arguments it covers
 * @param priority higher wins; at the same priority deny beats ask beats allow (default 0)
 */
public record PermissionRule(Effect effect, String toolPattern, ArgumentPattern arguments, int priority) {

  /** What a rule decides. */
  public enum Effect {
    /** Approve without asking. */
    ALLOW,
    /** Ask a person, even when a grant or the approval mode would approve. */
    ASK,
    /** Deny without asking. */
    DENY
  }

  /** Checks the parts. */
  public PermissionRule {
    Objects.requireNonNull(effect, "effect");
    ToolNamePattern.check(toolPattern, "toolPattern");
    Objects.requireNonNull(arguments, "arguments");
  }

  /** An allow rule from its string form, priority 0. */
  public static PermissionRule allow(String form) {
    return parse(Effect.ALLOW, form);
  }

  /** An ask rule from its string form, priority 0. */
  public static PermissionRule ask(String form) {
    return parse(Effect.ASK, form);
  }

  /** A deny rule from its string form, priority 0. */
  public static PermissionRule deny(String form) {
    return parse(Effect.DENY, form);
  }

  /**
   * A rule from its string form {@code tool} or {@code tool(arguments)}.
   *
   * @throws IllegalArgumentException naming the form when it is malformed
   */
  public static PermissionRule parse(Effect effect, String form) {
    Objects.requireNonNull(form, "form");
    int open = form.indexOf('(');
    if (open < 0) {
      return new PermissionRule(effect, ToolNamePattern.check(form, "rule '" + form + "' tool"),
          ArgumentPattern.ANY, 0);
    }
    if (!form.endsWith(")")) {
      throw new IllegalArgumentException("rule '" + form + "' must be tool or tool(arguments), e.g. shell(npm test:*)");
    }
    String tool = form.substring(0, open);
    ToolNamePattern.check(tool, "rule '" + form + "' tool");
    return new PermissionRule(effect, tool, ArgumentPattern.parse(form.substring(open + 1, form.length() - 1)), 0);
  }

  /** The same rule at {@code priority}. */
  public PermissionRule withPriority(int priority) {
    return new PermissionRule(effect, toolPattern, arguments, priority);
  }

  /** Whether this rule covers a call of {@code toolName} with {@code args}. */
  public boolean matches(String toolName, ToolArguments args) {
    return ToolNamePattern.matches(toolPattern, toolName) && arguments.matches(args);
  }

  /** The string form: {@code tool} or {@code tool(arguments)}. */
  public String form() {
    return arguments.kind() == ArgumentPattern.Kind.ANY ? toolPattern : toolPattern + "(" + arguments.form() + ")";
  }

  @Override
  public String toString() {
    return effect.name().toLowerCase(java.util.Locale.ROOT) + " " + form()
        + (priority == 0 ? "" : " priority " + priority);
  }
}
