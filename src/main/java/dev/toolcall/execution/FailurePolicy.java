package dev.toolcall.execution;

/** What a batch does when one of its calls fails. */
public enum FailurePolicy {
  /** The default: the other calls go on. */
  CONTINUE,
  /** The calls of the batch that have not ended are cancelled, with a cause naming the failed call. */
  CANCEL_SIBLINGS
}
