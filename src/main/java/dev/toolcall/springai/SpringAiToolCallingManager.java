package dev.toolcall.springai;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A drop-in Spring AI {@link ToolCallingManager} backed by a {@link ToolCallRuntime}: define it as the one
 * {@code ToolCallingManager} bean and every {@code ChatClient} / {@code ChatModel} call that executes tools gets
 * this library's lifecycle (validation, permissions with timeout auto-deny, timeouts, retries, cancellation,
 * ordered events) with no other change to its code.
 *
 * <ul>
 *   <li>{@link #resolveToolDefinitions}: the options' {@code ToolCallback}s, plus the tools the options name that
 *       the runtime has.</li>
 *   <li>{@link #executeToolCalls}: the tool calls of the response's first generation with tool calls are scheduled
 *       as one batch in the session of the request's conversation: the tool context's {@code conversationId}, else
 *       the chat memory's conversation id ({@link SpringAiConversationAdvisor} copies it into the tool context),
 *       else a fresh session of this batch alone ({@code spring-ai-}, a random UUID drawn once per process and a
 *       counter), so requests that name no
 *       conversation never share calls, results or "approve for the session" grants.</li>
 *   <li><b>What runs:</b> the {@code ToolCallback}s the request offers ({@code ChatClient.prompt().tools(obj)},
 *       {@code toolCallbacks(..)}, the options' callbacks), each with the {@code ToolContext} Spring's own manager
 *       passes (the options' tool context and the conversation history), under the runtime's permissions, policy,
 *       timeouts and events. A tool the runtime has from {@link SpringAiTools} keeps its settings and runs the
 *       request's callback; a tool the runtime lacks is added to it on first use with the settings
 *       {@link Builder#customize} gives its name (approval by default) and runs only callbacks requests offer. A
 *       tool the application built otherwise runs as built. A call of a tool the request does not offer is never
 *       run: it ends FAILED as an unknown tool, with the offered tools named for the model, never an exception.
 *       Empty or missing arguments reach the tool as {@code {}}, as Spring passes them.</li>
 *   <li><b>Ids:</b> each call gets an id of its own inside the library ({@code spring-}, a random UUID drawn
 *       once per process and a counter), whatever the provider sent: blank ids (Ollama, Gemini), ids numbered per response ({@code call_0} every time) and
 *       a true duplicate within one response all run, once each. Each response goes back under the provider's id,
 *       blank included, in the order of the calls, so every tool call gets exactly one result right after it. The
 *       provider's id is the call's label ({@code ToolCallIdentity.label()}): events, views and spans show both.</li>
 *   <li>The manager waits for every call to end (at most {@code maxWait}) and returns the prompt's messages, the
 *       assistant message and one {@code ToolResponseMessage} holding a response per call, in order: a denied,
 *       failed or cancelled call's response is the text for the model. {@code returnDirect} is true when every
 *       call's tool is return-direct and completed. The calling thread waits meanwhile, also for a person's
 *       approval (see docs/integrations.md for a web front end).</li>
 * </ul>
 *
 * <h2>What does not map</h2>
 * Partial tool calls (Spring AI hands them over whole); the generations after the first one with tool calls; a
 * turn that ends <i>interrupted</i> while a person decides, to be resumed by a later request (the thread waits
 * instead). Approval, read-only, timeouts and retries are not in a {@code ToolCallback}: they come from the runtime's
 * tools or from {@link Builder#customize}. A session across requests needs a conversation id: without one, an
 * "approve for the session" lasts one batch.
 *
 * <h2>Failures</h2>
 * Whatever the model asked for is answered, never thrown: an unknown or not offered tool, invalid arguments, a
 * denial (a person's, a policy's, the permission timeout's), a tool that throws or times out, and a call cancelled
 * because {@code maxWait} passed or the waiting thread was interrupted (the interrupt is then kept set) each give
 * that call's response the text the model reads. A tool a request offers whose schema the runtime refuses is not
 * added: a WARN names it, and its calls are answered as an unknown tool. {@link #executeToolCalls} throws only for
 * a programming error: a null argument, or a response without a tool call.
 *
 * <p>Thread-safe: several requests may execute tools at once, each batch in its own session. {@link #close()}
 * closes the runtime (a Spring context closes an {@code AutoCloseable} bean). Runs on Spring AI 1.1.x and 2.0.x (on
 * 2.0 the {@code ChatClient}'s {@code ToolCallingAdvisor} calls it; see docs/integrations.md).
 */
public final class SpringAiToolCallingManager implements ToolCallingManager, AutoCloseable {

  /** The tool-context key whose value names the session (conversation) of the calls. */
  public static final String CONVERSATION_ID = "conversationId";

  /** The tool-context keys that name a batch's session, in the order they are looked up. */
  private static final String[] SESSION_KEYS = {CONVERSATION_ID, ChatMemory.CONVERSATION_ID};

  /** The prefix of the fresh session a batch gets when its prompt names no conversation. */
  static final String FRESH_SESSION_PREFIX = "spring-ai-";

  /** The prefix of the id each call gets inside the library (the provider's id is only answered under). */
  static final String CALL_ID_PREFIX = "spring-";

  /**
   * The ids of this process's calls: the prefix, a random UUID drawn once per process, and a counter. As unique as
   * a random UUID per call (another process, or this one after a restart, draws another UUID), without a secure
   * random draw and its text per call.
   */
  private static final String CALL_ID_BASE = CALL_ID_PREFIX + UUID.randomUUID() + "-";

  private static final java.util.concurrent.atomic.AtomicLong CALL_IDS = new java.util.concurrent.atomic.AtomicLong();

  /** The fresh sessions of this process, made as the call ids are: as unique as a random UUID per batch. */
  private static final String FRESH_SESSION_BASE = FRESH_SESSION_PREFIX + UUID.randomUUID() + "-";

  private static final java.util.concurrent.atomic.AtomicLong FRESH_SESSIONS =
      new java.util.concurrent.atomic.AtomicLong();

  private final ToolCallRuntime runtime;
  private final long maxWaitNanos;
  private final BiConsumer<String, dev.toolcall.tool.ToolDefinition.Builder> customize;

  private SpringAiToolCallingManager(Builder b) {
    this.runtime = b.runtime;
    this.maxWaitNanos = b.maxWait.toNanos();
    this.customize = b.customize;
  }

  /**
   * A manager over {@code runtime}, waiting at most 10 minutes for a batch (approvals may take a while); tools a
   * request offers that the runtime lacks require approval.
   *
   * @throws NullPointerException if {@code runtime} is null
   */
  public static SpringAiToolCallingManager create(ToolCallRuntime runtime) {
    return builder(runtime).build();
  }

  /**
   * A manager over {@code runtime} that waits at most {@code maxWait} for a batch; calls still open then are
   * cancelled and answered as such.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code maxWait} is not positive
   */
  public static SpringAiToolCallingManager create(ToolCallRuntime runtime, Duration maxWait) {
    return builder(runtime).maxWait(maxWait).build();
  }

  /**
   * A builder of a manager over {@code runtime}.
   *
   * @throws NullPointerException if {@code runtime} is null
   */
  public static Builder builder(ToolCallRuntime runtime) {
    return new Builder(Objects.requireNonNull(runtime, "runtime"));
  }

  /** The runtime the tools run in: its permissions, events, policy and scheduler. */
  public ToolCallRuntime runtime() {
    return runtime;
  }

  /**
   * Closes the runtime (see {@link ToolCallRuntime#close()}): calls in flight end, pending requests are released.
   * A Spring context closes a {@code @Bean} that is {@code AutoCloseable} when it closes, so a manager defined as a
   * bean takes its runtime down with the application. Idempotent.
   */
  @Override
  public void close() {
    runtime.close();
  }

  /**
   * The tools a model is offered for these options: the definitions of the options' {@code ToolCallback}s (the first
   * of a name wins), then, on Spring AI 1.1, the tools the options name ({@code toolNames}) that the runtime has, as
   * the runtime defines them. A name the runtime lacks is left out, without an error.
   *
   * @throws NullPointerException if {@code options} is null
   */
  @Override
  public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions options) {
    Objects.requireNonNull(options, "options");
    Map<String, ToolDefinition> out = new LinkedHashMap<>();
    if (options.getToolCallbacks() != null) {
      for (ToolCallback c : options.getToolCallbacks()) {
        out.putIfAbsent(c.getToolDefinition().name(), c.getToolDefinition());
      }
    }
    for (String name : SpringAiCompat.toolNames(options)) { // Spring AI 1.x only: 2.x names tools by callbacks
      runtime.registry().find(name).ifPresent(t -> out.putIfAbsent(name, SpringAiTools.definition(t.definition())));
    }
    return List.copyOf(out.values());
  }

  /**
   * Runs the tool calls of the first generation of {@code chatResponse} that has any, as one batch on the runtime in
   * the prompt's session, waits for every call to end (at most {@code maxWait}), and returns the history Spring AI
   * goes on with: the prompt's messages, that assistant message and one {@code ToolResponseMessage} with a response
   * per call in the order asked, each under the provider's id. Calls of tools the request does not offer are
   * answered without running. Blocks the calling thread, also while a person decides.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalStateException if no generation of {@code chatResponse} has a tool call
   */
  @Override
  public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(chatResponse, "chatResponse");
    AssistantMessage assistant = null;
    for (Generation g : chatResponse.getResults()) {
      if (g.getOutput() != null && g.getOutput().hasToolCalls()) {
        assistant = g.getOutput();
        break;
      }
    }
    if (assistant == null) {
      throw new IllegalStateException("the chat response has no tool call to execute");
    }
    // Spring's options copy their collections on every get: each is read once per batch
    ToolCallingChatOptions options = prompt.getOptions() instanceof ToolCallingChatOptions o ? o : null;
    Map<String, Object> toolContext = options == null ? null : options.getToolContext();
    String session = session(toolContext);
    Map<String, ToolCallback> offered = offered(options);
    java.util.Set<String> named = null; // Spring AI 1.x: tools named, resolved by the runtime; read when needed
    ToolContext context = null; // made for the first callback that may read it: a bound method without one does not
    List<AssistantMessage.ToolCall> asked = assistant.getToolCalls();
    CallResult[] refused = null; // the answers of calls no request offers, by position: made for the first one
    CallRequest[] requests = new CallRequest[asked.size()];
    int count = 0;
    try {
      for (int i = 0; i < asked.size(); i++) {
        AssistantMessage.ToolCall c = asked.get(i);
        // the library's own id per call: providers send blank ids, and number ids per response (call_0 every time);
        // the provider's id is the call's label, and its response goes back under it. A blank name is answered.
        String id = CALL_ID_BASE + CALL_IDS.incrementAndGet();
        String label = c.id() == null ? "" : c.id();
        String name = c.name() == null || c.name().isBlank() ? "(no tool name)" : c.name();
        String args = c.arguments() == null || c.arguments().isBlank() ? "{}" : c.arguments(); // as Spring does
        ToolCallback callback = offered.get(name);
        if (callback == null && named == null) {
          named = options != null ? SpringAiCompat.toolNames(options) : java.util.Set.of();
        }
        if (callback == null && !named.contains(name)) { // not offered by this request: never run, answered
          refused = refused != null ? refused : new CallResult[asked.size()];
          refused[i] = new CallResult(runtime.scheduler().refuse(session, null, id, name, args,
              dev.toolcall.FailureKind.UNKNOWN_TOOL, notOffered(name, offered.keySet(), named)).snapshot());
          continue;
        }
        CallRequest request = CallRequest.labelled(id, label, name, args);
        if (callback != null) {
          ensureTool(name, callback);
          MethodBinding binding = MethodBinding.of(callback);
          if (context == null && (binding == null || binding.passesContext())) {
            context = toolContext(options, toolContext, prompt, assistant);
          }
          RequestCalls.bind(id, callback, binding == null || binding.passesContext() ? context : null);
        }
        requests[count++] = request; // from here on unbound in the end (a call no callback offers: a miss)
      }
      // one request, the common batch: a list of one, which the scheduler does not copy
      List<CallResult> ran = count == 0 ? List.of() : run(session, count == 1 ? List.of(requests[0])
          : List.of(java.util.Arrays.copyOf(requests, count)));
      return answer(prompt, assistant, asked, offered, ran, refused);
    } finally {
      for (int k = 0; k < count; k++) {
        RequestCalls.unbind(requests[k].callId());
      }
    }
  }

  /** The model's message for a call of a tool its request did not offer. */
  private static String notOffered(String name, java.util.Set<String> offered, java.util.Set<String> named) {
    java.util.Set<String> all = new java.util.TreeSet<>(offered);
    all.addAll(named);
    return "Unknown tool '" + name + "': it is not offered in this request, so it was not run. "
        + (all.isEmpty() ? "No tools are offered." : "The tools offered are: " + String.join(", ", all) + ".");
  }

  private List<CallResult> run(String session, List<CallRequest> requests) {
    var batch = runtime.schedule(session, requests);
    try {
      return batch.whenDone().toCompletableFuture().get(maxWaitNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      batch.cancelAll("no answer within the tool calling manager's wait");
      return batch.join();
    } catch (InterruptedException e) {
      batch.cancelAll("the request was interrupted");
      Thread.currentThread().interrupt();
      return batch.join();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the tool batch failed", e.getCause());
    }
  }

  /**
   * The history Spring goes on with; {@code ran} holds the results of the calls scheduled, in order, and
   * {@code refused} (null when there is none) the answers of the others by position.
   */
  private ToolExecutionResult answer(Prompt prompt, AssistantMessage assistant, List<AssistantMessage.ToolCall> asked,
      Map<String, ToolCallback> offered, List<CallResult> ran, CallResult[] refused) {
    List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>(asked.size());
    boolean returnDirect = !asked.isEmpty();
    for (int i = 0, k = 0; i < asked.size(); i++) {
      CallResult r = refused != null && refused[i] != null ? refused[i] : ran.get(k++);
      AssistantMessage.ToolCall c = asked.get(i);
      responses.add(new ToolResponseMessage.ToolResponse(c.id() == null ? "" : c.id(),
          c.name() == null ? "" : c.name(), r.messageForModel()));
      ToolCallback callback = offered.get(r.toolName());
      boolean direct = !r.isError() && (callback != null ? callback.getToolMetadata().returnDirect()
          : runtime.registry().find(r.toolName()).map(t -> t.definition().returnDirect()).orElse(false));
      returnDirect &= direct;
    }
    List<Message> history = history(prompt, assistant, 1);
    history.add(ToolResponseMessage.builder().responses(responses).build());
    return ToolExecutionResult.builder().conversationHistory(history).returnDirect(returnDirect).build();
  }

  /**
   * Makes sure the runtime has a tool named {@code name} that runs the request's callback: a tool made by
   * {@link SpringAiTools} does; a name the runtime lacks is added, with {@code customize}'s settings, and runs only
   * the callbacks requests offer. A tool of that name the application built otherwise is left as it is (it runs).
   */
  private void ensureTool(String name, ToolCallback callback) {
    if (runtime.registry().find(name).isPresent()) {
      return;
    }
    dev.toolcall.tool.Tool tool = SpringAiTools.tool(callback, b -> customize.accept(name, b), true);
    try {
      runtime.updateTools(r -> r.find(name).isPresent() ? r : r.with(tool));
    } catch (IllegalArgumentException e) { // an invalid schema: the call is answered as unknown, never thrown
      org.slf4j.LoggerFactory.getLogger(SpringAiToolCallingManager.class)
          .warn("tool {} offered by a request cannot be added: {}", name, e.getMessage());
    }
  }

  /** The callbacks the prompt's options offer, by name (the first of a name wins, as Spring resolves them). */
  private static Map<String, ToolCallback> offered(ToolCallingChatOptions options) {
    List<ToolCallback> callbacks = options == null ? null : options.getToolCallbacks();
    if (callbacks == null || callbacks.isEmpty()) {
      return Map.of();
    }
    if (callbacks.size() == 1) { // the common request: one tool, no map to build
      ToolCallback only = callbacks.get(0);
      return Map.of(only.getToolDefinition().name(), only);
    }
    Map<String, ToolCallback> out = new LinkedHashMap<>();
    for (ToolCallback c : callbacks) {
      out.putIfAbsent(c.getToolDefinition().name(), c);
    }
    return out;
  }

  /**
   * The {@code ToolContext} Spring's own manager passes: the options' tool context and the history so far. The
   * options' map is Spring's copy, read-only, so it is read through a view rather than copied again.
   */
  private static ToolContext toolContext(ToolCallingChatOptions options, Map<String, Object> toolContext,
      Prompt prompt, AssistantMessage assistant) {
    if (options == null) {
      return new ToolContext(Map.of());
    }
    return new ToolContext(new ToolContextMap(toolContext == null ? Map.of() : toolContext,
        history(prompt, assistant, 0)));
  }

  /** The prompt's messages and the assistant message, in a list with room for {@code more} (a mutable list). */
  private static List<Message> history(Prompt prompt, AssistantMessage assistant, int more) {
    List<Message> instructions = prompt.getInstructions();
    List<Message> out = new ArrayList<>(instructions.size() + 1 + more);
    for (Message m : instructions) {
      out.add(m);
    }
    out.add(assistant);
    return out;
  }

  /**
   * The session of a batch: the conversation the prompt's tool context names ({@code conversationId}, else the chat
   * memory's id that {@link SpringAiConversationAdvisor} copied there), else a fresh session of this batch alone.
   */
  static String session(Map<String, Object> toolContext) {
    if (toolContext != null) {
      for (String key : SESSION_KEYS) {
        Object id = toolContext.get(key);
        if (id != null && !id.toString().isBlank()) {
          return id.toString();
        }
      }
    }
    return FRESH_SESSION_BASE + FRESH_SESSIONS.incrementAndGet();
  }

  /**
   * Builds a {@link SpringAiToolCallingManager}. Not thread-safe; the manager it builds is immutable and thread-safe.
   */
  public static final class Builder {
    private final ToolCallRuntime runtime;
    private Duration maxWait = Duration.ofMinutes(10);
    private BiConsumer<String, dev.toolcall.tool.ToolDefinition.Builder> customize = (name, b) -> {};

    private Builder(ToolCallRuntime runtime) {
      this.runtime = runtime;
    }

    /**
     * The longest a batch is waited for (default 10 minutes); calls still open then are cancelled and answered.
     *
     * @throws IllegalArgumentException if {@code maxWait} is not positive
     */
    public Builder maxWait(Duration maxWait) {
      Objects.requireNonNull(maxWait, "maxWait");
      if (maxWait.isNegative() || maxWait.isZero()) {
        throw new IllegalArgumentException("maxWait must be positive, was " + maxWait);
      }
      this.maxWait = maxWait;
      return this;
    }

    /**
     * The settings Spring AI does not say (approval, read-only, timeouts, retries) of each tool a request offers that
     * the runtime lacks, by tool name; the default leaves every such tool requiring approval.
     */
    public Builder customize(BiConsumer<String, dev.toolcall.tool.ToolDefinition.Builder> customize) {
      this.customize = Objects.requireNonNull(customize, "customize");
      return this;
    }

    /**
     * The manager; the runtime is shared, not copied, and {@link SpringAiToolCallingManager#close()} closes it.
     */
    public SpringAiToolCallingManager build() {
      return new SpringAiToolCallingManager(this);
    }
  }
}
