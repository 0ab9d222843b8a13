package dev.toolcall.micrometer;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The observations of tool calls and approval waits, as Micrometer's test registry records them (names, contextual
 * names, keys, parents, start and stop), and the meters Micrometer's meter handler makes of them.
 */
class ToolCallObservationsTest {

  private final AtomicReference<Observation> currentInTool = new AtomicReference<>();
  private final Set<Observation.Context> started = ConcurrentHashMap.newKeySet();
  private final Set<Observation.Context> stopped = ConcurrentHashMap.newKeySet();

  /** A test registry that also remembers which observations started and which stopped. */
  private TestObservationRegistry registry() {
    TestObservationRegistry registry = TestObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public void onStart(Observation.Context context) {
        started.add(context);
      }

      @Override
      public void onStop(Observation.Context context) {
        stopped.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    return registry;
  }

  private void assertEveryObservationStopped(int n) {
    org.assertj.core.api.Assertions.assertThat(started).hasSize(n);
    org.assertj.core.api.Assertions.assertThat(stopped).containsExactlyInAnyOrderElementsOf(started);
  }

  private ToolCallRuntime runtime(ObservationRegistry registry) {
    Tool deploy = Tool.of(ToolDefinition.builder("deploy").description("Deploys the shop").build(), inv -> {
      currentInTool.set(registry.getCurrentObservation());
      return ToolResult.of("deployed");
    });
    Tool read = Tool.of(ToolDefinition.builder("read").readOnly(true).requiresApproval(false).build(), inv -> {
      throw new ToolException("disk on fire");
    });
    return ToolCallRuntime.builder().tools(deploy, read).instrumentation(ToolCallObservations.create(registry))
        .build();
  }

  private static PermissionRequest next(ToolCallRuntime runtime) throws Exception {
    return runtime.permissions().nextRequest().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void anApprovedCallIsObservedWithItsWaitAndTheToolRunsInItsObservation() throws Exception {
    TestObservationRegistry registry = registry();
    try (ToolCallRuntime runtime = runtime(registry)) {
      var batch = runtime.schedule("chat-1", List.of(CallRequest.of("call_1", "deploy", "{}")));
      PermissionRequest r = next(runtime);
      assertThat(runtime.permissions().decide(r.requestId(), Decision.approveOnce(r)).won()).isTrue();
      batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    assertThat(registry).hasNumberOfObservationsEqualTo(2)
        .hasObservationWithNameEqualTo(ToolCallObservations.TOOL_CALL).that()
        .hasContextualNameEqualTo("execute_tool deploy")
        .hasLowCardinalityKeyValue("gen_ai.operation.name", "execute_tool")
        .hasLowCardinalityKeyValue("gen_ai.tool.name", "deploy")
        .hasLowCardinalityKeyValue("gen_ai.tool.type", "function")
        .hasLowCardinalityKeyValue("toolcall.state", "completed")
        .hasLowCardinalityKeyValue("toolcall.outcome", "completed")
        .hasLowCardinalityKeyValue("error.type", "none")
        .hasHighCardinalityKeyValue("gen_ai.tool.call.id", "call_1")
        .hasHighCardinalityKeyValue("toolcall.session.id", "chat-1")
        .hasHighCardinalityKeyValue("gen_ai.tool.description", "Deploys the shop")
        .hasBeenStarted().hasBeenStopped();
    assertThat(registry).hasObservationWithNameEqualTo(ToolCallObservations.PERMISSION_WAIT).that()
        .hasContextualNameEqualTo("permission_wait deploy")
        .hasLowCardinalityKeyValue("gen_ai.tool.name", "deploy")
        .hasLowCardinalityKeyValue("toolcall.permission.outcome", "approved")
        .hasLowCardinalityKeyValue("toolcall.permission.decided_by", "user")
        .hasHighCardinalityKeyValueWithKey("toolcall.permission.request.id")
        .hasBeenStarted().hasBeenStopped()
        .hasParentObservationContextMatching(c -> c.getName().equals(ToolCallObservations.TOOL_CALL));
    Observation inTool = currentInTool.get();
    assertThat(inTool).as("the tool's body runs in its call's observation").isNotNull();
    org.assertj.core.api.Assertions.assertThat(inTool.getContext().getName()).isEqualTo(ToolCallObservations.TOOL_CALL);
    org.assertj.core.api.Assertions.assertThat(inTool.getContext()).isInstanceOf(ToolCallObservationContext.class);
  }

  @Test
  void deniedFailedAndMadeUpCallsSayWhatHappened() throws Exception {
    TestObservationRegistry registry = registry();
    try (ToolCallRuntime runtime = runtime(registry)) {
      var batch = runtime.schedule("chat-2", List.of(CallRequest.of("c1", "deploy", "{}"),
          CallRequest.of("c2", "read", "{}"), CallRequest.of("c3", "launch_missiles", "{}")));
      PermissionRequest r = next(runtime);
      runtime.permissions().decide(r.requestId(), Decision.deny(r, "not today"));
      batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    assertThat(registry).hasNumberOfObservationsWithNameEqualTo(ToolCallObservations.TOOL_CALL, 3)
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("gen_ai.tool.name", "deploy")
            .hasLowCardinalityKeyValue("toolcall.outcome", "denied")
            .hasLowCardinalityKeyValue("toolcall.state", "permission_denied"))
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("gen_ai.tool.name", "read")
            .hasLowCardinalityKeyValue("toolcall.outcome", "failed")
            .hasLowCardinalityKeyValue("error.type", "tool_error").hasError())
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("gen_ai.tool.name", "_OTHER")
            .hasContextualNameEqualTo("execute_tool _OTHER")
            .hasLowCardinalityKeyValue("error.type", "unknown_tool"))
        .hasAnObservation(o -> o.hasNameEqualTo(ToolCallObservations.PERMISSION_WAIT)
            .hasLowCardinalityKeyValue("toolcall.permission.outcome", "denied")
            .hasLowCardinalityKeyValue("toolcall.permission.decided_by", "user"));
    assertEveryObservationStopped(4);
  }

  /** Closing the runtime stops what is still open: a call waiting for a person is cancelled, its wait too. */
  @Test
  void closingTheRuntimeStopsEveryObservation() throws Exception {
    TestObservationRegistry registry = registry();
    try (ToolCallRuntime runtime = runtime(registry)) {
      runtime.schedule("chat-3", List.of(CallRequest.of("c1", "deploy", "{}")));
      next(runtime);
    }
    assertThat(registry).hasNumberOfObservationsEqualTo(2)
        .hasAnObservation(o -> o.hasNameEqualTo(ToolCallObservations.TOOL_CALL)
            .hasLowCardinalityKeyValue("toolcall.outcome", "cancelled"))
        .hasAnObservation(o -> o.hasNameEqualTo(ToolCallObservations.PERMISSION_WAIT)
            .hasLowCardinalityKeyValue("toolcall.permission.outcome", "cancelled"));
    assertEveryObservationStopped(2);
  }

  /** The meters Micrometer's meter handler makes: the names and tags docs/observability.md lists. */
  @Test
  void theMeterHandlerMakesTimersNamedAfterTheObservations() throws Exception {
    MeterRegistry meters = new SimpleMeterRegistry();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
    try (ToolCallRuntime runtime = runtime(registry)) {
      var batch = runtime.schedule("chat-4", List.of(CallRequest.of("c1", "deploy", "{}")));
      PermissionRequest r = next(runtime);
      runtime.permissions().decide(r.requestId(), Decision.approveOnce(r));
      batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    Timer call = meters.get("gen_ai.execute_tool").tags("gen_ai.operation.name", "execute_tool",
        "gen_ai.tool.name", "deploy", "gen_ai.tool.type", "function", "toolcall.state", "completed",
        "toolcall.outcome", "completed", "error.type", "none", "error", "none").timer();
    org.assertj.core.api.Assertions.assertThat(call.count()).isEqualTo(1);
    Timer wait = meters.get("toolcall.permission.wait").tags("gen_ai.tool.name", "deploy",
        "toolcall.permission.outcome", "approved", "toolcall.permission.decided_by", "user").timer();
    org.assertj.core.api.Assertions.assertThat(wait.count()).isEqualTo(1);
    org.assertj.core.api.Assertions.assertThat(meters.get("gen_ai.execute_tool.active").longTaskTimer()
        .activeTasks()).isZero();
    org.assertj.core.api.Assertions.assertThat(meters.getMeters().stream().map(m -> m.getId().getTag("gen_ai.tool.call.id")))
        .as("high-cardinality keys are not tags").containsOnlyNulls();
  }
}
