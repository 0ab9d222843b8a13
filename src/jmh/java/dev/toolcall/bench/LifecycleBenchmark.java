package dev.toolcall.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One full tool-call lifecycle, PENDING -&gt; PERMISSION_PENDING -&gt; PERMISSION_APPROVED -&gt; RUNNING -&gt;
 * COMPLETED, on a freshly created machine, side by side for every {@link Impl}. Run with {@code -prof gc} for the
 * bytes allocated per lifecycle ({@code gc.alloc.rate.norm}). See {@code docs/performance.md}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LifecycleBenchmark {

  /** The implementations compared. */
  public enum Impl {
    /** The floor: an AtomicReference of the state and a bitmask matrix check; no snapshot, no events, no time. */
    RAW_CAS,
    /**
     * Not a state machine: the objects our lifecycle makes (snapshots, results, events) with no atomics and no
     * hand-off, single-threaded. The floor of the data model itself.
     */
    MODEL_FLOOR,
    /** Our ToolCall with a fixed clock and a constant ticker, one no-op subscriber. */
    TOOLCALL_FIXED_TIME,
    /** Our ToolCall with Clock.systemUTC() and System.nanoTime(), one no-op subscriber. */
    TOOLCALL_REAL_TIME,
    /** Not a lifecycle: the time reads REAL_TIME makes and FIXED_TIME does not (1 Clock.instant, 5 nanoTime). */
    TIME_READS_ONLY,
    /** stateless4j 2.6.0, shared configuration, one no-op trace. */
    STATELESS4J,
    /** squirrel-foundation 0.3.10, shared builder, one no-op transition-complete listener. */
    SQUIRREL,
    /** Spring Statemachine 4.0.1, factory made once per trial, one no-op listener. */
    SPRING_REUSED_FACTORY,
    /** Spring Statemachine 4.0.1, configured and built per lifecycle, one no-op listener. */
    SPRING_BUILD_PER_CALL;

    LifecycleAdapter create() {
      return switch (this) {
        case RAW_CAS -> new RawCasLifecycle();
        case MODEL_FLOOR -> new ModelFloorLifecycle();
        case TOOLCALL_FIXED_TIME -> new ToolCallLifecycle(false);
        case TOOLCALL_REAL_TIME -> new ToolCallLifecycle(true);
        case TIME_READS_ONLY -> new TimeReadsOnly();
        case STATELESS4J -> new Stateless4jLifecycle();
        case SQUIRREL -> new SquirrelLifecycle();
        case SPRING_REUSED_FACTORY -> new SpringLifecycle(true);
        case SPRING_BUILD_PER_CALL -> new SpringLifecycle(false);
      };
    }
  }

  @Param
  public Impl impl;

  private LifecycleAdapter adapter;

  @Setup(Level.Trial)
  public void setUp() {
    adapter = impl.create();
    adapter.lifecycle(); // fails the trial at once if the adapter is broken
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    adapter.close();
  }

  @Benchmark
  public Object lifecycle() {
    return adapter.lifecycle();
  }
}
