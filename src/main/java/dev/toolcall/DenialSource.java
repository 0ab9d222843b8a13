package dev.toolcall;

/** Who denied a call that ended {@link ToolCallState#PERMISSION_DENIED}. */
public enum DenialSource {
  /** A person said no. */
  USER,
  /** A policy rule or the approval mode said no without asking. */
  POLICY,
  /** Nobody answered before the request's deadline. */
  TIMEOUT
}
