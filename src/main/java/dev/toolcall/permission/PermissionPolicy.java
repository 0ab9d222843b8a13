package dev.toolcall.permission;

import dev.toolcall.ToolArguments;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Ordered rules that decide, before anyone is asked, whether a call is allowed, denied or must be asked about, plus
 * the set of "edit" tools that {@link ApprovalMode#AUTO_APPROVE_EDITS} approves.
 *
 * <h2>Evaluation</h2>
 * Of the rules that match a call (tool name pattern and argument pattern), the one with the highest priority
 * decides; at the same priority deny beats ask and ask beats allow; at the same priority and effect the rule added
 * first is the one reported. When no rule matches the verdict is {@link PermissionRule.Effect#ASK} with no rule, and
 * grants and the approval mode may still approve the call.
 *
 * <h2>Names</h2>
 * Tool names are compared exactly as the model sent them. A pattern is an exact name or a glob whose {@code *}
 * matches only characters a tool name may hold ({@code A-Z a-z 0-9 _ -}), so a look-alike name (with a zero-width
 * character, in another case, with full-width letters) never matches a rule.
 *
 * <p>Immutable and thread-safe.
 */
public final class PermissionPolicy {

  private static final PermissionPolicy EMPTY = new PermissionPolicy(List.of(), List.of());

  /** How many tool names {@link #rulesFor} keeps the applicable rules of. */
  private static final int NAMES_KEPT = 1_024;

  private final List<PermissionRule> rules;
  private final List<String> editTools;
  /** The rules whose tool pattern matches a name, by name (see {@link #rulesFor}). */
  private final java.util.concurrent.ConcurrentHashMap<String, PermissionRule[]> byTool =
      new java.util.concurrent.ConcurrentHashMap<>();

  private PermissionPolicy(List<PermissionRule> rules, List<String> editTools) {
    this.rules = List.copyOf(rules);
    this.editTools = List.copyOf(editTools);
  }

  /** No rules and no edit tools: every call that needs approval is asked about (unless granted or in a mode). */
  public static PermissionPolicy empty() {
    return EMPTY;
  }

  /** Starts a policy. */
  public static Builder builder() {
    return new Builder();
  }

  /** The rules, in the order they were added. */
  public List<PermissionRule> rules() {
    return rules;
  }

  /** The edit tool patterns. */
  public List<String> editTools() {
    return editTools;
  }

  /** Whether {@code toolName} is an edit tool (see {@link ApprovalMode#AUTO_APPROVE_EDITS}). */
  public boolean isEditTool(String toolName) {
    Objects.requireNonNull(toolName, "toolName");
    for (String p : editTools) {
      if (ToolNamePattern.matches(p, toolName)) {
        return true;
      }
    }
    return false;
  }

  /** The verdict for a call of {@code toolName} with {@code arguments} (see the class comment). */
  public Verdict evaluate(String toolName, ToolArguments arguments) {
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(arguments, "arguments");
    PermissionRule best = null;
    for (PermissionRule r : rulesFor(toolName)) {
      if (r.arguments().matches(arguments) && (best == null || r.priority() > best.priority()
          || (r.priority() == best.priority() && r.effect().ordinal() > best.effect().ordinal()))) {
        best = r;
      }
    }
    return best == null ? Verdict.NO_RULE : new Verdict(best.effect(), Optional.of(best));
  }

  /**
   * The rules whose tool pattern matches {@code toolName}, in order: worked out once per name (a rule's tool pattern
   * depends on nothing else) and kept for at most {@link #NAMES_KEPT} names, after which they are worked out per call.
   */
  private PermissionRule[] rulesFor(String toolName) {
    PermissionRule[] found = byTool.get(toolName);
    if (found != null) {
      return found;
    }
    List<PermissionRule> applicable = new ArrayList<>();
    for (PermissionRule r : rules) {
      if (ToolNamePattern.matches(r.toolPattern(), toolName)) {
        applicable.add(r);
      }
    }
    found = applicable.toArray(new PermissionRule[0]);
    if (byTool.size() < NAMES_KEPT) {
      byTool.putIfAbsent(toolName, found);
    }
    return found;
  }

  @Override
  public String toString() {
    return "PermissionPolicy[rules=" + rules + ", editTools=" + editTools + "]";
  }

  /**
   * What the policy said about one call.
   *
   * @param effect allow, ask or deny
   * @param rule the rule that decided; empty when no rule matched (then the effect is ASK)
   */
  public record Verdict(PermissionRule.Effect effect, Optional<PermissionRule> rule) {
    static final Verdict NO_RULE = new Verdict(PermissionRule.Effect.ASK, Optional.empty());

    /** Checks the parts. */
    public Verdict {
      Objects.requireNonNull(effect, "effect");
      Objects.requireNonNull(rule, "rule");
    }
  }

  /** Builds a {@link PermissionPolicy}; not thread-safe. Each method checks its argument at once. */
  public static final class Builder {
    private final List<PermissionRule> rules = new ArrayList<>();
    private final List<String> editTools = new ArrayList<>();

    private Builder() {}

    /** Adds an allow rule in string form, e.g. {@code shell(npm test:*)}. */
    public Builder allow(String form) {
      return rule(PermissionRule.allow(form));
    }

    /** Adds an ask rule in string form. */
    public Builder ask(String form) {
      return rule(PermissionRule.ask(form));
    }

    /** Adds a deny rule in string form. */
    public Builder deny(String form) {
      return rule(PermissionRule.deny(form));
    }

    /** Adds a rule. */
    public Builder rule(PermissionRule rule) {
      rules.add(Objects.requireNonNull(rule, "rule"));
      return this;
    }

    /** Adds tool name patterns (exact or with {@code *}) of edit tools. */
    public Builder editTools(String... patterns) {
      Objects.requireNonNull(patterns, "patterns");
      for (String p : patterns) {
        editTools.add(ToolNamePattern.check(p, "edit tool pattern"));
      }
      return this;
    }

    /** The policy. */
    public PermissionPolicy build() {
      return new PermissionPolicy(rules, editTools);
    }
  }
}
