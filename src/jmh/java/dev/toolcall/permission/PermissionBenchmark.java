package dev.toolcall.permission;

import dev.toolcall.ToolCall;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.event.EventBus;
import dev.toolcall.tool.ToolDefinition;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The permission cycle: a call asks (PENDING -&gt; PERMISSION_PENDING, request queued, deadline armed), a decision
 * approves it (PERMISSION_APPROVED, request dequeued, deadline disarmed). {@code openRequest} only opens requests
 * (each is approved afterwards, outside the measurement of interest) to show what one pending request allocates.
 *
 * <pre>
 * mvn -P jmh package &amp;&amp; java -jar target/benchmarks.jar PermissionBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class PermissionBenchmark {
  private PermissionService permissions;
  private EventBus bus;
  private ToolDefinition definition;
  private long ids;

  @Setup(Level.Trial)
  public void setUp() {
    bus = EventBus.create();
    permissions = PermissionService.builder().defaultTimeout(Duration.ofHours(1)).build();
    definition = ToolDefinition.builder("shell").build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    permissions.close();
  }

  /** Ask and approve once: the whole cycle, including the call's creation and its events. */
  @Benchmark
  public ToolCallSnapshot requestDecideApproved() {
    ToolCall call = ToolCall.builder("c" + (ids++), "shell").eventBus(bus).build();
    var stage = permissions.authorize(call, definition).toCompletableFuture();
    PermissionRequest req = PermissionRequest.of(call.snapshot()).orElseThrow();
    permissions.decide(req.requestId(), Decision.approveOnce(req));
    return stage.join();
  }
}
