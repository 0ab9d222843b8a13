package dev.toolcall.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.DenialSource;
import dev.toolcall.FailureKind;
import dev.toolcall.Outcome;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.ToolCallState;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionHook;
import dev.toolcall.permission.PermissionPolicy;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.testing.Logs;
import dev.toolcall.tool.ParsedArguments;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import dev.toolcall.tool.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The hooks a runtime asked for, through a real runtime: typed arguments inside a tool, a check before the
 * permission policy that allows, asks, denies or rewrites (rewritten arguments validated again), and an after-hook
 * that sees failures.
 */
class HooksTest {

  /** The arguments of {@code write_file}, read by {@link ToolArguments#as}. */
  record WriteArgs(String path, String content, boolean append) {}

  private static final String WRITE_SCHEMA = """
      {"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},
       "append":{"type":"boolean"}},"required":["path","content"]}""";

  private final List<String> written = new CopyOnWriteArrayList<>();
  private final Tool write = Tool.of(ToolDefinition.builder("write_file").description("writes a file")
      .parameters(WRITE_SCHEMA).build(), inv -> {
        WriteArgs a = inv.arguments().as(WriteArgs.class);
        written.add(a.path() + (a.append() ? " += " : " = ") + a.content());
        return ToolResult.of("wrote " + a.path());
      });
  private final Tool read = Tool.of(ToolDefinition.builder("read_file").description("reads").readOnly(true)
      .requiresApproval(false).build(), inv -> ToolResult.of("text"));

  private ToolCallRuntime runtime(Consumer<PermissionService.Builder> permissions,
      Consumer<ToolScheduler.Builder> scheduler, Tool... tools) {
    return ToolCallRuntime.builder().tools(tools).permissions(permissions).scheduler(scheduler).build();
  }

  private static CallResult run(ToolCallRuntime rt, String tool, String args) {
    return rt.schedule("s", List.of(CallRequest.of("c1", tool, args))).join().get(0);
  }

  // --- typed arguments --------------------------------------------------------------------------------------------

  @Test
  void typedArgumentsReadARecordInsideTheTool() {
    try (ToolCallRuntime rt = runtime(p -> p.approvalMode(ApprovalMode.ALLOW_ALL), s -> {}, write)) {
      CallResult r = run(rt, "write_file", "{\"path\":\"a.txt\",\"content\":\"hi\",\"append\":true}");
      assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
      assertThat(written).containsExactly("a.txt += hi");
    }
  }

  @Test
  void argumentsThatDoNotFitTheRecordFailTheCallWithAMessageForTheModel() throws Exception {
    assertThatThrownBy(() -> ToolArguments.ofJson(new ObjectMapper().readTree("{\"path\":\"a\",\"content\":\"b\","
        + "\"mode\":\"x\"}")).as(WriteArgs.class)).isInstanceOf(ToolException.class)
        .hasMessageContaining("'mode'").hasMessageContaining("Known properties");
    assertThatThrownBy(() -> ToolArguments.ofJson(new ObjectMapper().readTree("{\"path\":\"a\",\"content\":\"b\","
        + "\"append\":[1]}")).as(WriteArgs.class)).isInstanceOf(ToolException.class)
        .hasMessageContaining("at append").hasMessageContaining("true or false");
    assertThat(ToolArguments.ofText("ls -la").as(String.class)).isEqualTo("ls -la");

    // the schema does not forbid extra properties, the record does: the model reads why
    try (ToolCallRuntime rt = runtime(p -> p.approvalMode(ApprovalMode.ALLOW_ALL), s -> {}, write)) {
      CallResult r = run(rt, "write_file", "{\"path\":\"a.txt\",\"content\":\"hi\",\"force\":true}");
      assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
        assertThat(f.kind()).isEqualTo(FailureKind.INVALID_ARGUMENTS);
        assertThat(f.message()).contains("'force'");
      });
      assertThat(written).isEmpty();
    }
  }

  @Test
  void aTypeJacksonCannotBuildIsAProgrammingError() {
    class NoCreator {
      private NoCreator(int x) {}
    }
    assertThatThrownBy(() -> ToolArguments.empty().as(NoCreator.class)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(NoCreator.class.getName());
  }

  // --- the check before the permission policy ---------------------------------------------------------------------

  @Test
  void aHookThatAllowsSkipsTheQuestion() {
    PermissionHook allowTmp = (call, def) -> call.arguments().raw().contains("/tmp/")
        ? PermissionHook.Verdict.allow("writes under /tmp") : PermissionHook.Verdict.CONTINUE;
    try (ToolCallRuntime rt = runtime(p -> p.hook(allowTmp), s -> {}, write)) {
      CallResult r = run(rt, "write_file", "{\"path\":\"/tmp/a\",\"content\":\"x\"}");
      assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
      assertThat(r.snapshot().versions()).extracting(ToolCallSnapshot::state).doesNotContain(
          ToolCallState.PERMISSION_PENDING).contains(ToolCallState.PERMISSION_APPROVED);
      assertThat(r.snapshot().versions().get(1).change().toString()).contains("writes under /tmp");
    }
  }

  @Test
  void aHookThatAsksOverridesAnAllowingModeAndARule() throws Exception {
    PermissionHook ask = (call, def) -> PermissionHook.Verdict.ask();
    try (ToolCallRuntime rt = runtime(p -> p.hook(ask).approvalMode(ApprovalMode.ALLOW_ALL)
        .policy(PermissionPolicy.builder().allow("read_file").build()), s -> {}, read)) {
      Batch b = rt.schedule("s", List.of(CallRequest.of("c1", "read_file", "{}")));
      PermissionRequest req = rt.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      assertThat(req.toolName()).isEqualTo("read_file");
      rt.permissions().decide(req.requestId(), Decision.approveOnce(req));
      assertThat(b.join().get(0).outcome()).isInstanceOf(Outcome.Completed.class);
    }
  }

  @Test
  void aHookThatDeniesEndsTheCallDeniedWithItsReasonAndTheToolNeverRuns() {
    AtomicInteger later = new AtomicInteger();
    PermissionHook deny = (call, def) -> PermissionHook.Verdict.deny("Writing outside the workspace is not allowed.");
    PermissionHook counting = (call, def) -> {
      later.incrementAndGet();
      return PermissionHook.Verdict.allow("never reached");
    };
    try (ToolCallRuntime rt = runtime(p -> p.hook(deny).hook(counting), s -> {}, write)) {
      CallResult r = run(rt, "write_file", "{\"path\":\"/etc/x\",\"content\":\"x\"}");
      assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Denied.class, d -> {
        assertThat(d.source()).isEqualTo(DenialSource.POLICY);
        assertThat(d.reason()).isEqualTo("Writing outside the workspace is not allowed.");
      });
      assertThat(later).hasValue(0);
      assertThat(written).isEmpty();
    }
  }

  @Test
  void aDenyRuleStillDeniesAfterAHookAllowed() {
    PermissionHook allow = (call, def) -> PermissionHook.Verdict.allow("hook says yes");
    try (ToolCallRuntime rt = runtime(p -> p.hook(allow).policy(PermissionPolicy.builder().deny("write_file")
        .build()), s -> {}, write)) {
      assertThat(run(rt, "write_file", "{\"path\":\"a\",\"content\":\"x\"}").outcome())
          .isInstanceOf(Outcome.Denied.class);
      assertThat(written).isEmpty();
    }
  }

  @Test
  void rewrittenArgumentsAreWhatThePolicyAndThePersonSeeAndWhatRuns() throws Exception {
    PermissionHook sandbox = (call, def) -> {
      String raw = call.arguments().raw();
      return raw.contains("/work/") ? PermissionHook.Verdict.CONTINUE
          : PermissionHook.Verdict.rewrite(((ParsedArguments.Ok) ParsedArguments.parse(
              raw.replace("\"path\":\"", "\"path\":\"/work/"))).arguments());
    };
    try (ToolCallRuntime rt = runtime(p -> p.hook(sandbox), s -> {}, write)) {
      Batch b = rt.schedule("s", List.of(CallRequest.of("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"x\"}")));
      PermissionRequest req = rt.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
      assertThat(req.arguments().raw()).contains("/work/a.txt");
      rt.permissions().decide(req.requestId(), Decision.approveOnce(req));
      CallResult r = b.join().get(0);
      assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
      assertThat(written).containsExactly("/work/a.txt = x");
      assertThat(r.snapshot().argumentsVersion()).isPositive();
    }
  }

  @Test
  void rewrittenArgumentsThatBreakTheSchemaFailTheCallWithoutRunningTheTool() {
    PermissionHook breaks = (call, def) -> PermissionHook.Verdict.rewrite(ToolArguments.ofText("not an object"));
    try (ToolCallRuntime rt = runtime(p -> p.hook(breaks).approvalMode(ApprovalMode.ALLOW_ALL), s -> {}, write)) {
      CallResult r = run(rt, "write_file", "{\"path\":\"a\",\"content\":\"x\"}");
      assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
          f -> assertThat(f.message()).contains("not valid"));
      assertThat(written).isEmpty();
    }
  }

  @Test
  void aHookThatThrowsDeniesTheCall() {
    PermissionHook broken = (call, def) -> {
      throw new IllegalStateException("boom");
    };
    try (ToolCallRuntime rt = runtime(p -> p.hook(broken).approvalMode(ApprovalMode.ALLOW_ALL), s -> {}, read)) {
      assertThat(run(rt, "read_file", "{}").outcome()).isInstanceOf(Outcome.Denied.class);
    }
    assertThat(Logs.of(PermissionService.class)).singleElement()
        .satisfies(e -> assertThat(e.toString()).contains("boom"));
  }

  // --- the after-hook sees failures -------------------------------------------------------------------------------

  @Test
  void afterFailureSeesTheFinalFailureOnceAndMayRewriteTheMessage() {
    AtomicInteger attempts = new AtomicInteger();
    List<String> seen = new CopyOnWriteArrayList<>();
    Tool flaky = Tool.of(ToolDefinition.builder("fetch").description("fetches").readOnly(true)
        .requiresApproval(false).retryPolicy(RetryPolicy.exponential(3, Duration.ofMillis(1)))
        .build(), inv -> {
          attempts.incrementAndGet();
          throw new TransientToolException("HTTP 503 from https://secret-host.internal/api?token=abc");
        });
    ToolInterceptor redact = new ToolInterceptor() {
      @Override
      public String afterFailure(ToolCallSnapshot call, FailureKind kind, String message) {
        seen.add(kind + ": " + message);
        return message.replaceAll("https?://\\S+", "<url>");
      }
    };
    try (ToolCallRuntime rt = runtime(p -> {}, s -> s.interceptor(redact), flaky)) {
      CallResult r = run(rt, "fetch", "{}");
      assertThat(attempts).hasValue(3);
      assertThat(seen).singleElement().satisfies(m -> assertThat(m).startsWith("TOOL_ERROR: HTTP 503"));
      assertThat(r.outcome()).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
        assertThat(f.message()).contains("<url>").doesNotContain("token");
        assertThat(f.kind()).isEqualTo(FailureKind.TOOL_ERROR);
      });
    }
  }

  @Test
  void afterFailureThatThrowsLeavesTheMessage() {
    Tool broken = Tool.of(ToolDefinition.builder("b").description("fails").readOnly(true).requiresApproval(false)
        .build(), inv -> {
          throw new ToolException("disk full");
        });
    ToolInterceptor throwing = new ToolInterceptor() {
      @Override
      public String afterFailure(ToolCallSnapshot call, FailureKind kind, String message) {
        throw new IllegalStateException("bug in hook");
      }
    };
    try (ToolCallRuntime rt = runtime(p -> {}, s -> s.interceptor(throwing), broken)) {
      assertThat(run(rt, "b", "{}").outcome()).isInstanceOfSatisfying(Outcome.Failed.class,
          f -> assertThat(f.message()).isEqualTo("disk full"));
    }
    assertThat(Logs.of(ToolScheduler.class)).singleElement()
        .satisfies(e -> assertThat(e.toString()).contains("bug in hook"));
  }
}
