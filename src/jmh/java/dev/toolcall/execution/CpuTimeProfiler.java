package dev.toolcall.execution;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time per operation, for a machine shared with other work, where wall-clock time per operation also counts the
 * time the benchmark thread waited for a core. Two figures per iteration, divided by every operation the workers
 * ran between the iteration's start and end (JMH's all-ops count):
 * <ul>
 *   <li>{@code cpu.worker}: CPU time of the JMH worker threads (the caller's thread of the benchmark);</li>
 *   <li>{@code cpu.process}: CPU time of the whole JVM (also the scheduler's timer thread, a pool's thread, the
 *       garbage collector and the JIT compiler).</li>
 * </ul>
 * Use with {@code -prof dev.toolcall.execution.CpuTimeProfiler}.
 */
public final class CpuTimeProfiler implements InternalProfiler {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> workerStart = new HashMap<>();
  private long processStart;

  @Override
  public String getDescription() {
    return "CPU time per operation: JMH worker threads, and the whole process";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    workerStart.clear();
    for (long id : threads.getAllThreadIds()) {
      var info = threads.getThreadInfo(id);
      if (info != null && info.getThreadName().contains("jmh-worker")) {
        workerStart.put(id, threads.getThreadCpuTime(id));
      }
    }
    processStart = processCpu();
  }

  @Override
  public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
      IterationParams iterationParams, IterationResult result) {
    long process = processCpu() - processStart;
    long worker = 0;
    for (long id : threads.getAllThreadIds()) {
      var info = threads.getThreadInfo(id);
      if (info != null && info.getThreadName().contains("jmh-worker")) {
        long now = threads.getThreadCpuTime(id);
        if (now >= 0) {
          worker += now - workerStart.getOrDefault(id, 0L);
        }
      }
    }
    double ops = Math.max(1, result.getMetadata().getAllOps());
    return List.of(new ScalarResult("cpu.worker", worker / ops, "ns/op", AggregationPolicy.AVG),
        new ScalarResult("cpu.process", process / ops, "ns/op", AggregationPolicy.AVG));
  }

  private static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
