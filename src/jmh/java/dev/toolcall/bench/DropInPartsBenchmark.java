package dev.toolcall.bench;

import dev.toolcall.execution.CallRequest;
import dev.toolcall.runtime.ToolCallRuntime;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.method.MethodToolCallback;
import org.springframework.ai.tool.support.ToolDefinitions;

/**
 * The parts of the Spring AI drop-in manager's path ({@code SpringAiToolCallingManager}), each alone: Spring's
 * callback, the runtime running the same callback as a tool, the returned messages, the tool context, a call id and
 * the options' reads. A breakdown of {@code WholePathBenchmark}'s drop-in row (docs/performance.md), not a comparison.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class DropInPartsBenchmark {
  @Param({"A", "B"})
  public String workload;

  private String args;
  private String name;
  private MethodToolCallback callback;
  private ToolCallRuntime runtime;
  private ToolCallingChatOptions options;
  private ToolContext context;
  private List<Message> instructions;
  private AssistantMessage assistant;
  private long ids;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    boolean numeric = workload.equals("A");
    args = numeric ? WholePathBenchmark.ARGS_A : WholePathBenchmark.ARGS_B;
    Method m = numeric ? WholePathBenchmark.Files.class.getMethod("add", int.class, int.class, String.class)
        : WholePathBenchmark.Files.class.getMethod("writeFile", String.class, String.class, boolean.class);
    name = m.getName();
    callback = MethodToolCallback.builder().toolDefinition(ToolDefinitions.from(m)).toolMethod(m)
        .toolObject(new WholePathBenchmark.Files()).build();
    dev.toolcall.permission.PermissionPolicy policy = dev.toolcall.permission.PermissionPolicy.builder()
        .deny("shell(rm -rf:*)").deny("shell(sudo:*)").deny("shell(curl:*)").ask("shell(git push:*)")
        .allow("shell(npm test:*)").allow("shell(mvn:*)").allow("read_file").allow("list_*")
        .ask("deploy").deny("mcp__*").build();
    runtime = ToolCallRuntime.builder()
        .tools(dev.toolcall.springai.SpringAiTools.tool(callback, b -> b.requiresApproval(false)))
        .permissions(p -> p.policy(policy)).scheduler(s -> s.executor(Runnable::run)).build();
    options = ToolCallingChatOptions.builder().toolCallbacks(callback).internalToolExecutionEnabled(false)
        .toolContext("conversationId", "session-1").build();
    instructions = List.of(new UserMessage("write the app"));
    assistant = AssistantMessage.builder().content("")
        .toolCalls(List.of(new AssistantMessage.ToolCall("call_1", "function", name, args))).build();
    Map<String, Object> map = new HashMap<>(options.getToolContext());
    map.put(ToolContext.TOOL_CALL_HISTORY, List.of(instructions.get(0), assistant));
    context = new ToolContext(map);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runtime.close();
  }

  /** Spring's callback with the tool context, as both managers call it. */
  @Benchmark
  public String callbackWithContext() {
    return callback.call(args, context);
  }

  /** Our runtime running the callback's tool (no manager: the callback runs without a context). */
  @Benchmark
  public String runtimeAndCallback() {
    return runtime.schedule("session-1", List.of(CallRequest.labelled("spring-0f3c2a4e-8d7b-4b9a-9c1e-5a6b7c8d9e0f-"
        + (ids++), "call_1", name, args))).join().get(0).messageForModel();
  }

  /** The options' reads the drop-in makes: tool context, callbacks, tool names. */
  @Benchmark
  public Object optionsReads() {
    Object a = options.getToolContext();
    Object b = options.getToolCallbacks();
    Object c = options.getToolNames();
    return a.hashCode() + b.hashCode() + c.hashCode();
  }

  /** The tool context as the drop-in built it before: a HashMap copy and the history. */
  @Benchmark
  public ToolContext contextCopy() {
    Map<String, Object> map = new HashMap<>(options.getToolContext());
    java.util.ArrayList<Message> h = new java.util.ArrayList<>(instructions);
    h.add(assistant);
    map.put(ToolContext.TOOL_CALL_HISTORY, h);
    return new ToolContext(map);
  }

  /** The returned result both managers build: the tool response message, the history and the result. */
  @Benchmark
  public ToolExecutionResult answer() {
    java.util.ArrayList<ToolResponseMessage.ToolResponse> responses = new java.util.ArrayList<>(1);
    responses.add(new ToolResponseMessage.ToolResponse("call_1", name, "3"));
    java.util.ArrayList<Message> h = new java.util.ArrayList<>(instructions.size() + 2);
    h.addAll(instructions);
    h.add(assistant);
    h.add(ToolResponseMessage.builder().responses(responses).build());
    return ToolExecutionResult.builder().conversationHistory(h).returnDirect(false).build();
  }

  /** A call id as the drop-in mints it. */
  @Benchmark
  public String callId() {
    return "spring-0f3c2a4e-8d7b-4b9a-9c1e-5a6b7c8d9e0f-" + (ids++);
  }
}
