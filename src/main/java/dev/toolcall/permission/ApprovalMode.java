package dev.toolcall.permission;

/**
 * How much the runtime lets through without asking. The mode is applied after the policy's deny and ask rules and
 * after grants; it never overrides an explicit deny or ask rule. It can be changed while the service runs
 * ({@link PermissionService#setApprovalMode}); requests already waiting are not re-evaluated.
 */
public enum ApprovalMode {
  /** Ask a person for every call that needs approval and that no rule or grant allows (the default). */
  ASK,
  /**
   * Approve calls of edit tools without asking; ask for the others. A tool is an edit tool when its name matches one
   * of the policy's {@linkplain PermissionPolicy.Builder#editTools edit tool patterns} (for example
   * {@code write_file}, {@code edit_*}); no tool is one by default.
   */
  AUTO_APPROVE_EDITS,
  /** Approve every call that no deny or ask rule stops ("yolo"). */
  ALLOW_ALL,
  /**
   * Plan mode: deny (by policy, without asking) every call of a tool whose definition is not
   * {@linkplain dev.toolcall.tool.ToolDefinition#readOnly() read-only}; read-only tools are treated as in
   * {@link #ASK}.
   */
  READ_ONLY
}
