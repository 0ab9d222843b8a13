package dev.toolcall.execution;

/** How the calls of one batch may overlap once they are approved. */
public enum ExecutionOrder {
  /**
   * The default. Read-only calls run in parallel (up to the concurrency limit); a call that is not read-only waits
   * for every earlier call of the batch to end, and later calls wait for it. So a write is never reordered with
   * anything before or after it, and reads between two writes overlap.
   */
  PARALLEL_READS,
  /** Every call waits for the one before it: strictly one at a time, in request order. */
  SEQUENTIAL,
  /** Every approved call may start at once (up to the concurrency limit), read-only or not. */
  PARALLEL
}
