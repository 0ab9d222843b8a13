/**
 * Permissions: who may let a tool call run, and what happens while nobody has decided.
 *
 * <p>{@link dev.toolcall.permission.PermissionService} is the entry point: the scheduler asks it to
 * {@link dev.toolcall.permission.PermissionService#authorize authorize} a call; a
 * {@link dev.toolcall.permission.PermissionPolicy} and the {@link dev.toolcall.permission.ApprovalMode} decide first;
 * calls that need a person wait as {@link dev.toolcall.permission.PermissionRequest}s in a FIFO queue until a
 * {@link dev.toolcall.permission.Decision}, their deadline, a cancel or the service's close, whichever comes first.
 * Grants made by "approve always" are kept by a {@link dev.toolcall.permission.GrantStore}.
 */
package dev.toolcall.permission;
