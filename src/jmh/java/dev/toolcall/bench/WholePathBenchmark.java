package dev.toolcall.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.event.EventListener;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.permission.PermissionPolicy;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.lang.reflect.Method;
import java.util.List;
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
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.method.MethodToolCallback;
import org.springframework.ai.tool.support.ToolDefinitions;

/**
 * The whole path of one tool call, side by side with what a Java user would otherwise use. Every path takes the
 * same model-produced JSON text, runs the tool body on the caller's thread and produces the text sent back to the
 * model. Two workloads ({@code workload} parameter), both measured in one run:
 *
 * <ul>
 *   <li>{@code A}: numeric, arguments {@code {"a":1,"b":2,"note":"x"}}, a tool returning {@code a + b};
 *   <li>{@code B}: three string and boolean properties ({@code path}, {@code content}, {@code overwrite}), a tool
 *       that writes nothing and describes what it would write.
 * </ul>
 *
 * <p>The paths:
 *
 * <ul>
 *   <li>{@code direct}: Jackson parses the JSON and the tool body is called with its fields (the floor).
 *   <li>{@code toolcallRuntime}: one call through {@link ToolCallRuntime#schedule}: the registry lookup, JSON parsing
 *       with its limits, JSON-Schema validation of the three properties, a policy of 10 rules (none matching, so
 *       every rule is tried), the PENDING / RUNNING / COMPLETED changes of the call, each published to one inline
 *       subscriber, the batch, and the result in request order.
 *   <li>{@code langchain4jDefaultToolExecutor}: an {@code @Tool} method run from a {@code ToolExecutionRequest} by
 *       LangChain4j's {@code DefaultToolExecutor}: JSON parsing and reflective binding of the arguments; no schema
 *       validation, no policy, no events, no state.
 *   <li>{@code springAiMethodToolCallback}: Spring AI's {@code MethodToolCallback.call(json)}: JSON parsing and
 *       reflective binding; no schema validation, no policy, no events.
 *   <li>{@code springAiToolCallingManager}: Spring AI's {@code DefaultToolCallingManager.executeToolCalls} on a
 *       prompt and an assistant message with the tool call, the closest in scope to ours: it resolves the callback,
 *       runs it inside a Micrometer observation (no-op registry) and builds the conversation history with the tool
 *       response message; no schema validation, no policy. Its prompt names a conversation in its tool context
 *       (what a {@code ChatClient} with chat memory sends, and what this library needs for sessions); Spring's
 *       manager then copies the history into a {@code ToolContext} per call.
 *   <li>{@code springAiToolCallingManagerDefaultPrompt}: the same on Spring's default prompt, without a tool context
 *       (what a {@code ChatClient} without chat memory sends).
 *   <li>{@code toolcallRuntimeSpringAiManager} and {@code toolcallRuntimeSpringAiManagerDefaultPrompt}: this
 *       library's drop-in {@code ToolCallingManager} on the same two prompts.
 * </ul>
 *
 * <p>The MCP Java SDK (io.modelcontextprotocol.sdk:mcp) has no in-process transport: a tool call reaches a server's
 * handler only through a transport session (stdio or HTTP) with JSON-RPC framing, so its handler path is not
 * measured here (its handler itself is a lambda, which is {@code direct}).
 *
 * <pre>
 * mvn -P jmh package
 * java -jar target/benchmarks.jar WholePath -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc \
 *     -prof dev.toolcall.execution.CpuTimeProfiler -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class WholePathBenchmark {

  static final String ARGS_A = "{\"a\":1,\"b\":2,\"note\":\"x\"}";
  static final String SCHEMA_A = "{\"type\":\"object\",\"properties\":{"
      + "\"a\":{\"type\":\"integer\",\"description\":\"the first term\"},"
      + "\"b\":{\"type\":\"integer\",\"description\":\"the second term\"},"
      + "\"note\":{\"type\":\"string\",\"description\":\"a note\"}},"
      + "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}";
  static final String ARGS_B = "{\"path\":\"src/main/java/App.java\",\"content\":\"class App {}\",\"overwrite\":false}";
  static final String SCHEMA_B = "{\"type\":\"object\",\"properties\":{"
      + "\"path\":{\"type\":\"string\",\"description\":\"the file to write\"},"
      + "\"content\":{\"type\":\"string\",\"description\":\"what to write\"},"
      + "\"overwrite\":{\"type\":\"boolean\",\"description\":\"replace an existing file\"}},"
      + "\"required\":[\"path\",\"content\"],\"additionalProperties\":false}";

  /** The tool body every path runs. */
  static String writeFile(String path, String content, boolean overwrite) {
    return "wrote " + content.length() + " chars to " + path + (overwrite ? " (replaced)" : "");
  }

  /** The tool body of workload A. */
  static int add(int a, int b, String note) {
    return a + b;
  }

  /** The same tools for LangChain4j and Spring AI, as annotated methods. */
  public static final class Files {
    @Tool("Adds two numbers")
    @org.springframework.ai.tool.annotation.Tool(description = "Adds two numbers")
    public int add(@P("the first term") int a, @P("the second term") int b, @P(value = "a note", required = false)
        String note) {
      return WholePathBenchmark.add(a, b, note);
    }


    @Tool("Writes a file")
    @org.springframework.ai.tool.annotation.Tool(description = "Writes a file")
    public String writeFile(@P("the file to write") String path, @P("what to write") String content,
        @P("replace an existing file") boolean overwrite) {
      return WholePathBenchmark.writeFile(path, content, overwrite);
    }
  }

  /** {@code A}: numeric arguments, a tool returning {@code a + b}; {@code B}: three string and boolean properties. */
  @Param({"A", "B"})
  public String workload;

  private final ObjectMapper mapper = new ObjectMapper();
  private boolean numeric;
  private String args;
  private String toolName;
  private String lc4jName;
  private ToolCallRuntime runtime;
  private ToolCallRuntime storedRuntime;
  private ToolCallRuntime lc4jRuntime;
  private long ids;
  private DefaultToolExecutor lc4j;
  private ToolExecutionRequest lc4jRequest;
  private MethodToolCallback springCallback;
  private DefaultToolCallingManager springManager;
  private ToolCallRuntime springRuntime;
  private dev.toolcall.springai.SpringAiToolCallingManager ourSpringManager;
  private Prompt springPrompt;
  private Prompt springDefaultPrompt;
  private ChatResponse springResponse;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    numeric = workload.equals("A");
    args = numeric ? ARGS_A : ARGS_B;
    toolName = numeric ? "add" : "write_file";
    dev.toolcall.tool.Tool tool = numeric
        ? dev.toolcall.tool.Tool.of(ToolDefinition.builder("add").description("Adds two numbers")
            .parameters(mapper.readTree(SCHEMA_A)).requiresApproval(false).build(), inv -> {
              JsonNode a = inv.arguments().asJson();
              return ToolResult.of(String.valueOf(add(a.get("a").asInt(), a.get("b").asInt(),
                  a.path("note").asText(null))));
            })
        : dev.toolcall.tool.Tool.of(ToolDefinition.builder("write_file").description("Writes a file")
            .parameters(mapper.readTree(SCHEMA_B)).requiresApproval(false).build(), inv -> {
              JsonNode a = inv.arguments().asJson();
              return ToolResult.of(writeFile(a.get("path").asText(), a.get("content").asText(),
                  a.path("overwrite").asBoolean(false)));
            });
    PermissionPolicy policy = PermissionPolicy.builder()
        .deny("shell(rm -rf:*)").deny("shell(sudo:*)").deny("shell(curl:*)").ask("shell(git push:*)")
        .allow("shell(npm test:*)").allow("shell(mvn:*)").allow("read_file").allow("list_*")
        .ask("deploy").deny("mcp__*").build();
    runtime = ToolCallRuntime.builder().tools(tool).permissions(p -> p.policy(policy))
        .scheduler(s -> s.executor(Runnable::run)).build();
    storedRuntime = ToolCallRuntime.builder().tools(tool).permissions(p -> p.policy(policy))
        .scheduler(s -> s.executor(Runnable::run)).callStore(new MapStore()).build();
    runtime.events().subscribe(new EventListener() {
      long seen;

      @Override
      public void onEvent(dev.toolcall.event.Event e) {
        seen++;
      }
    });

    Method m = numeric ? Files.class.getMethod("add", int.class, int.class, String.class)
        : Files.class.getMethod("writeFile", String.class, String.class, boolean.class);
    lc4jName = m.getName();
    Files files = new Files();
    lc4j = new DefaultToolExecutor(files, m);
    // the same LangChain4j tool through this library's adapter and runtime
    lc4jRuntime = ToolCallRuntime.builder()
        .tools(dev.toolcall.langchain4j.LangChain4jTools.tool(
            dev.langchain4j.agent.tool.ToolSpecifications.toolSpecificationFrom(m), lc4j,
            b -> b.requiresApproval(false)))
        .permissions(p -> p.policy(policy)).scheduler(s -> s.executor(Runnable::run)).build();
    lc4jRequest = ToolExecutionRequest.builder().id("call_1").name(m.getName()).arguments(args).build();

    springCallback = MethodToolCallback.builder().toolDefinition(ToolDefinitions.from(m)).toolMethod(m)
        .toolObject(files).build();
    springManager = DefaultToolCallingManager.builder().build();
    // the same Spring AI callback through this library's drop-in ToolCallingManager
    springRuntime = ToolCallRuntime.builder()
        .tools(dev.toolcall.springai.SpringAiTools.tool(springCallback, b -> b.requiresApproval(false)))
        .permissions(p -> p.policy(policy)).scheduler(s -> s.executor(Runnable::run)).build();
    ourSpringManager = dev.toolcall.springai.SpringAiToolCallingManager.create(springRuntime);
    // one prompt for both managers, naming its conversation as a ChatClient with chat memory does
    springPrompt = new Prompt(List.of(new UserMessage("write the app")),
        ToolCallingChatOptions.builder().toolCallbacks(springCallback).internalToolExecutionEnabled(false)
            .toolContext(dev.toolcall.springai.SpringAiToolCallingManager.CONVERSATION_ID, "session-1").build());
    // the prompt a ChatClient without chat memory sends: the callbacks, no tool context
    springDefaultPrompt = new Prompt(List.of(new UserMessage("write the app")),
        ToolCallingChatOptions.builder().toolCallbacks(springCallback).internalToolExecutionEnabled(false).build());
    AssistantMessage assistant = AssistantMessage.builder().content("")
        .toolCalls(List.of(new AssistantMessage.ToolCall("call_1", "function", m.getName(), args))).build();
    springResponse = new ChatResponse(List.of(new Generation(assistant)));

    // every path must give the same text for the model
    String expected = direct();
    check("toolcallRuntime", toolcallRuntime(), expected);
    check("toolcallRuntimeWithStore", toolcallRuntimeWithStore(), expected);
    check("toolcallRuntimeLangChain4jTool", toolcallRuntimeLangChain4jTool(), "\"" + expected + "\"", expected);
    check("langchain4j", langchain4jDefaultToolExecutor(), "\"" + expected + "\"", expected);
    check("springAiMethodToolCallback", springAiMethodToolCallback(), "\"" + expected + "\"", expected);
    ToolExecutionResult r = springAiToolCallingManager();
    ToolResponseMessage last = (ToolResponseMessage) r.conversationHistory().get(r.conversationHistory().size() - 1);
    check("springAiToolCallingManager", last.getResponses().get(0).responseData(), "\"" + expected + "\"",
        expected);
    checkManager("springAiToolCallingManagerDefaultPrompt", springAiToolCallingManagerDefaultPrompt(), expected);
    checkManager("toolcallRuntimeSpringAiManager", toolcallRuntimeSpringAiManager(), expected);
    checkManager("toolcallRuntimeSpringAiManagerDefaultPrompt", toolcallRuntimeSpringAiManagerDefaultPrompt(),
        expected);
  }

  private static void checkManager(String path, ToolExecutionResult r, String expected) {
    ToolResponseMessage last = (ToolResponseMessage) r.conversationHistory().get(r.conversationHistory().size() - 1);
    check(path, last.getResponses().get(0).responseData(), "\"" + expected + "\"", expected);
  }

  private static void check(String path, String got, String... allowed) {
    for (String a : allowed) {
      if (a.equals(got)) {
        return;
      }
    }
    throw new IllegalStateException(path + " returned " + got + ", expected " + allowed[0]);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runtime.close();
    storedRuntime.close();
    springRuntime.close();
    lc4jRuntime.close();
  }

  @Benchmark
  public String direct() throws Exception {
    JsonNode a = mapper.readTree(args);
    if (numeric) {
      return String.valueOf(add(a.get("a").asInt(), a.get("b").asInt(), a.path("note").asText(null)));
    }
    return writeFile(a.get("path").asText(), a.get("content").asText(), a.path("overwrite").asBoolean(false));
  }

  @Benchmark
  public String toolcallRuntime() {
    List<CallResult> results = runtime.schedule("session-1",
        List.of(CallRequest.of("call_" + (ids++), toolName, args))).join();
    return results.get(0).messageForModel();
  }

  /**
   * {@link #toolcallRuntime} with a {@link dev.toolcall.CallStore} in memory: what the store hook (a write lock per
   * change, the write before the install) costs, apart from any real store's own work.
   */
  @Benchmark
  public String toolcallRuntimeWithStore() {
    List<CallResult> results = storedRuntime.schedule("session-1",
        List.of(CallRequest.of("call_" + (ids++), toolName, args))).join();
    return results.get(0).messageForModel();
  }

  /** A compare-and-set map of versions that lets go of ended calls: the cheapest store there is. */
  static final class MapStore implements dev.toolcall.CallStore {
    private final java.util.concurrent.ConcurrentHashMap<String, Integer> versions =
        new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public boolean create(dev.toolcall.ToolCallSnapshot first) {
      return versions.putIfAbsent(first.callId(), first.version()) == null;
    }

    @Override
    public boolean compareAndSet(dev.toolcall.ToolCallSnapshot expected, dev.toolcall.ToolCallSnapshot next) {
      return next.isTerminal() ? versions.remove(next.callId(), expected.version())
          : versions.replace(next.callId(), expected.version(), next.version());
    }
  }

  /** A LangChain4j {@code @Tool} method through {@code LangChain4jTools} and this library's runtime. */
  @Benchmark
  public String toolcallRuntimeLangChain4jTool() {
    return lc4jRuntime.schedule("session-1", List.of(CallRequest.of("call_" + (ids++), lc4jName, args)))
        .join().get(0).messageForModel();
  }

  @Benchmark
  public String langchain4jDefaultToolExecutor() {
    return lc4j.execute(lc4jRequest, "memory-1");
  }

  @Benchmark
  public String springAiMethodToolCallback() {
    return springCallback.call(args);
  }

  /**
   * A Spring AI callback through this library's drop-in {@code ToolCallingManager} and runtime, on the same prompt and
   * response as {@link #springAiToolCallingManager}. The provider's call id repeats; the manager gives each call an
   * id of its own inside the library, so every call runs.
   */
  @Benchmark
  public ToolExecutionResult toolcallRuntimeSpringAiManager() {
    return ourSpringManager.executeToolCalls(springPrompt, springResponse);
  }

  @Benchmark
  public ToolExecutionResult springAiToolCallingManager() {
    return springManager.executeToolCalls(springPrompt, springResponse);
  }

  /**
   * {@link #toolcallRuntimeSpringAiManager} on Spring's default prompt: the callbacks and no tool context, what a
   * {@code ChatClient} without chat memory sends (each batch then runs in a session of its own).
   */
  @Benchmark
  public ToolExecutionResult toolcallRuntimeSpringAiManagerDefaultPrompt() {
    return ourSpringManager.executeToolCalls(springDefaultPrompt, springResponse);
  }

  /**
   * {@link #springAiToolCallingManager} on Spring's default prompt (no tool context): Spring's manager then passes an
   * empty {@code ToolContext} instead of copying the history into one.
   */
  @Benchmark
  public ToolExecutionResult springAiToolCallingManagerDefaultPrompt() {
    return springManager.executeToolCalls(springDefaultPrompt, springResponse);
  }
}
