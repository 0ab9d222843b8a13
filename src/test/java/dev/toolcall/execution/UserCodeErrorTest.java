package dev.toolcall.execution;

import dev.toolcall.testing.Logs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.permission.Grant;
import dev.toolcall.permission.GrantStore;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * User code around a call (interceptors, grant stores) that throws an {@link Error} instead of an exception is
 * contained like an exception: the call ends in a terminal state and its batch completes. Before the fix such an
 * Error escaped the scheduler's {@code catch (RuntimeException)} and left the call PENDING or RUNNING for ever.
 */
class UserCodeErrorTest {
  final Tool echo = Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true)
      .requiresApproval(false).build(), inv -> ToolResult.of("echo"));
  final Tool shell = Tool.of(ToolDefinition.builder("shell").description("runs").build(),
      inv -> ToolResult.of("ran"));

  @Test
  void anInterceptorThatThrowsAnErrorBlocksTheCall() throws Exception {
    Logs.expect(ToolScheduler.class);
    ToolInterceptor broken = new ToolInterceptor() {
      @Override
      public Before before(ToolCallSnapshot call) {
        throw new AssertionError("interceptor bug");
      }
    };
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(echo)
        .scheduler(s -> s.interceptor(broken)).build()) {
      CallResult r = runtime.schedule("s", List.of(CallRequest.of("c1", "echo", "{}"))).whenDone()
          .toCompletableFuture().get(10, TimeUnit.SECONDS).get(0);
      assertThat(r.snapshot().state()).isEqualTo(ToolCallState.FAILED);
      assertThat(((Outcome.Failed) r.snapshot().outcome()).kind()).isEqualTo(FailureKind.BLOCKED);
    }
  }

  @Test
  void anAfterInterceptorThatThrowsAnErrorFailsTheCall() throws Exception {
    Logs.expect(ToolScheduler.class);
    ToolInterceptor broken = new ToolInterceptor() {
      @Override
      public ToolResult after(ToolCallSnapshot call, ToolResult result) {
        throw new NoClassDefFoundError("redactor");
      }
    };
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(echo)
        .scheduler(s -> s.interceptor(broken)).build()) {
      CallResult r = runtime.schedule("s", List.of(CallRequest.of("c1", "echo", "{}"))).whenDone()
          .toCompletableFuture().get(10, TimeUnit.SECONDS).get(0);
      assertThat(r.snapshot().state()).isEqualTo(ToolCallState.FAILED);
      assertThat(((Outcome.Failed) r.snapshot().outcome()).kind()).isEqualTo(FailureKind.TOOL_ERROR);
    }
  }

  @Test
  void aGrantStoreThatThrowsAnErrorMeansAskingInstead() throws Exception {
    Logs.expect(dev.toolcall.permission.PermissionService.class);
    GrantStore broken = new GrantStore() {
      @Override
      public void add(Grant grant) {
        throw new ExceptionInInitializerError("store");
      }

      @Override
      public boolean revoke(String grantId) {
        return false;
      }

      @Override
      public List<Grant> grants() {
        throw new ExceptionInInitializerError("store");
      }

      @Override
      public Optional<Grant> find(String toolName, ToolArguments arguments, Instant now) {
        throw new ExceptionInInitializerError("store");
      }
    };
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(shell)
        .permissions(p -> p.grantStore(broken)).build()) {
      Batch batch = runtime.schedule("s", List.of(CallRequest.of("c1", "shell", "{}")));
      assertThat(runtime.permissions().awaitNext(Duration.ofSeconds(10))).as("asked instead").isPresent();
      batch.cancelAll("done");
      assertThat(batch.whenDone().toCompletableFuture().get(10, TimeUnit.SECONDS).get(0).snapshot().state())
          .isEqualTo(ToolCallState.CANCELLED);
    }
  }

  /**
   * A tool's VirtualMachineError on the caller's thread ends the call FAILED and is not rethrown into the code that
   * scheduled it (before, the first attempt's Error surfaced there or was swallowed, depending on the path).
   */
  @Test
  void aToolsStackOverflowOnTheCallersThreadEndsTheCallAndIsNotRethrown() throws Exception {
    Logs.expect(ToolScheduler.class);
    Tool deep = Tool.of(ToolDefinition.builder("deep").description("recurses").readOnly(true)
        .requiresApproval(false).build(), inv -> {
          throw new StackOverflowError("deep");
        });
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(deep)
        .scheduler(s -> s.executor(Runnable::run)).build()) {
      for (int i = 0; i < 2; i++) { // the first attempt and a later call take the same path
        CallResult r = runtime.schedule("s", List.of(CallRequest.of("c" + i, "deep", "{}"))).join().get(0);
        assertThat(r.snapshot().state()).isEqualTo(ToolCallState.FAILED);
        assertThat(((Outcome.Failed) r.snapshot().outcome()).kind()).isEqualTo(FailureKind.INTERNAL_ERROR);
      }
    }
  }
}
