package dev.toolcall.bench;

import dev.toolcall.Ticker;
import dev.toolcall.event.EventBus;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How our lifecycle (fixed time source, one no-op subscriber) scales from one thread to two, each thread running
 * its own calls. Throughput mode: the scaling ratio is {@code twoThreads / oneThread} of the summed ops/s.
 *
 * <ul>
 *   <li>{@code ownBus*}: each thread's calls publish on the thread's own bus (no shared mutable state at all);</li>
 *   <li>{@code sharedBus*}: all calls publish on one bus with one inline subscriber, the common case of one UI
 *       listener for every call (its delivery takes the subscription's monitor, so the threads contend there);</li>
 *   <li>{@code rawCas*}: the raw CAS lifecycle, as a control for how much this machine scales at all;</li>
 *   <li>{@code modelFloor*}: the objects of our lifecycle without any atomic operation ({@link ModelFloorLifecycle}),
 *       a control for how much allocating them scales on this machine.</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LifecycleScalingBenchmark {

  private static final Clock CLOCK = ToolCallLifecycle.FIXED_CLOCK;
  private static final Ticker TICKER = ToolCallLifecycle.FIXED_TICKER;

  /** One bus per benchmark thread. */
  @State(Scope.Thread)
  public static class OwnBus {
    final EventBus bus = ToolCallLifecycle.newBusWithNoOpSubscriber();
  }

  /** One bus for all benchmark threads. */
  @State(Scope.Benchmark)
  public static class SharedBus {
    final EventBus bus = ToolCallLifecycle.newBusWithNoOpSubscriber();
  }

  @Benchmark
  @Threads(1)
  public Object ownBus1Thread(OwnBus s) {
    return ToolCallLifecycle.run(s.bus, CLOCK, TICKER);
  }

  @Benchmark
  @Threads(2)
  public Object ownBus2Threads(OwnBus s) {
    return ToolCallLifecycle.run(s.bus, CLOCK, TICKER);
  }

  @Benchmark
  @Threads(1)
  public Object sharedBus1Thread(SharedBus s) {
    return ToolCallLifecycle.run(s.bus, CLOCK, TICKER);
  }

  @Benchmark
  @Threads(2)
  public Object sharedBus2Threads(SharedBus s) {
    return ToolCallLifecycle.run(s.bus, CLOCK, TICKER);
  }

  /** One model-floor adapter per benchmark thread (it holds a listener array). */
  @State(Scope.Thread)
  public static class Floor {
    final ModelFloorLifecycle floor = new ModelFloorLifecycle();
  }

  @Benchmark
  @Threads(1)
  public Object modelFloor1Thread(Floor s) {
    return s.floor.lifecycle();
  }

  @Benchmark
  @Threads(2)
  public Object modelFloor2Threads(Floor s) {
    return s.floor.lifecycle();
  }

  @Benchmark
  @Threads(1)
  public Object rawCas1Thread() {
    return RawCasLifecycle.run();
  }

  @Benchmark
  @Threads(2)
  public Object rawCas2Threads() {
    return RawCasLifecycle.run();
  }
}
