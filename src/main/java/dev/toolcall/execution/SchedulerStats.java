package dev.toolcall.execution;

/**
 * Counters of what a scheduler had to contain, since it was built. A snapshot; read with
 * {@link ToolScheduler#stats()}.
 *
 * @param callsScheduled calls created by the scheduler
 * @param attemptsStarted tool attempts entered
 * @param discardedResults results that arrived after their call had already ended (cancelled or timed out)
 * @param abandonedAttempts attempts whose tool was still running when its call ended; their threads were
 *     interrupted and their permits released
 * @param stillRunningAbandoned abandoned attempts whose tool has not returned yet (a tool ignoring interrupts)
 * @param droppedOutputWrites live-output writes dropped because a call's output buffer was full
 * @param executorRejections attempts the executor refused (each failed its call)
 */
public record SchedulerStats(long callsScheduled, long attemptsStarted, long discardedResults,
    long abandonedAttempts, long stillRunningAbandoned, long droppedOutputWrites, long executorRejections) {}
