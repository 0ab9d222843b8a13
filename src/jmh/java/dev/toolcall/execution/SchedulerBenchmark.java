package dev.toolcall.execution;

import dev.toolcall.DeadlineTimer;
import dev.toolcall.FailureKind;
import dev.toolcall.Reason;
import dev.toolcall.Ticker;
import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.EventBus;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * The scheduler's overhead per call against running the same tool directly on the same executor, and the
 * throughput of a batch of read-only calls.
 *
 * <pre>
 * mvn -P jmh package &amp;&amp; java -jar target/benchmarks.jar SchedulerBenchmark -prof gc \
 *     -prof dev.toolcall.execution.CpuTimeProfiler
 * </pre>
 *
 * Scheduler overhead per call = {@code scheduledCall - directCall} (of which {@code toolCallOnly} is the call's own
 * lifecycle), and {@code (scheduledBatchOf16 - directBatchOf16) / 16} per call in a batch.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class SchedulerBenchmark {

  /** Which executor the tool runs on: the caller's thread, or a one-thread pool (one hand-off per call). */
  @Param({"direct", "pool"})
  public String executor;

  /** The timer: the default thread, or one that never fires (to isolate the cost of arming timeouts). */
  @Param({"default", "noop"})
  public String timer;

  private ExecutorService pool;
  private java.util.concurrent.Executor exec;
  private ToolScheduler scheduler;
  private Tool tool;
  private long ids;
  private final EventBus bus = EventBus.create();
  private final Clock clock = Clock.systemUTC();
  private final Ticker ticker = Ticker.system();

  @Setup(Level.Trial)
  public void setUp() {
    tool = Tool.of(ToolDefinition.builder("noop").readOnly(true).requiresApproval(false).build(),
        inv -> ToolResult.of("ok"));
    Validator validator = new Validator() {
      final Validation valid = new Valid(tool, ToolArguments.empty());

      @Override
      public Validation validate(String toolName, String raw) {
        return toolName.equals("noop") ? valid
            : new Invalid(FailureKind.UNKNOWN_TOOL, "unknown", null, ToolArguments.ofText(raw));
      }

      @Override
      public Validation revalidate(Tool t, ToolArguments a) {
        return new Valid(t, a);
      }
    };
    if (executor.equals("pool")) {
      pool = Executors.newSingleThreadExecutor();
      exec = pool;
    } else {
      exec = Runnable::run;
    }
    ToolScheduler.Builder b = ToolScheduler.builder().validator(validator).authorizer(Authorizer.ALLOW_ALL)
        .executor(exec).defaultTimeout(Duration.ofHours(1)).eventBus(bus).clock(clock).ticker(ticker);
    if (timer.equals("noop")) {
      b.timer(new DeadlineTimer() {
        @Override
        public Handle schedule(Runnable task, Duration delay) {
          return Handle.NONE;
        }

        @Override
        public void close() {}
      });
    }
    scheduler = b.build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    scheduler.close(Duration.ofSeconds(1));
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  /** The tool called on the executor with no lifecycle: the floor. */
  @Benchmark
  public Object directCall() throws Exception {
    return runDirect().get();
  }

  /** Runs the tool body on the executor, with no lifecycle. */
  private CompletableFuture<ToolResult> runDirect() {
    CompletableFuture<ToolResult> f = new CompletableFuture<>();
    exec.execute(() -> {
      try {
        f.complete(((Tool.BlockingTool) tool).body().run(null));
      } catch (Exception e) {
        f.completeExceptionally(e);
      }
    });
    return f;
  }

  /** 16 runs of the tool on the executor, awaited together: the floor of {@link #scheduledBatchOf16}. */
  @Benchmark
  public Object directBatchOf16() throws Exception {
    CompletableFuture<?>[] fs = new CompletableFuture<?>[16];
    for (int i = 0; i < 16; i++) {
      fs[i] = runDirect();
    }
    CompletableFuture.allOf(fs).get();
    return fs;
  }

  /**
   * The part of a scheduled call that is {@link ToolCall} itself: create it with the scheduler's settings and drive
   * it through the states a scheduled call of this tool goes through (PENDING -&gt; RUNNING -&gt; COMPLETED), with
   * no scheduler. Scheduler overhead proper is {@code scheduledCall - toolCallOnly - directCall}.
   */
  @Benchmark
  public Object toolCallOnly() {
    ToolCall call = ToolCall.builder("t" + (ids++), "noop").sessionId("s").arguments(ToolArguments.empty())
        .clock(clock).ticker(ticker).eventBus(bus).build();
    call.transition(ToolCallState.PENDING, ToolCallState.RUNNING, Reason.NO_PERMISSION_NEEDED);
    return call.complete("ok").snapshot();
  }

  /** One call through the scheduler: create, validate, authorize, run, complete, batch result. */
  @Benchmark
  public Object scheduledCall() {
    return scheduler.schedule("s", List.of(CallRequest.of("c" + (ids++), "noop", "{}"))).join();
  }

  /** A batch of 16 read-only calls through the scheduler (divide by 16 for per-call cost). */
  @Benchmark
  public Object scheduledBatchOf16() {
    List<CallRequest> reqs = new ArrayList<>(16);
    for (int i = 0; i < 16; i++) {
      reqs.add(CallRequest.of("b" + (ids++), "noop", "{}"));
    }
    return scheduler.schedule("s", reqs).join();
  }
}
