package dev.toolcall.springai;

import dev.toolcall.ToolCallRuntime;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
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
 *       the runtime has. The calls run the runtime's tools, not the callbacks: give the callbacks to the runtime
 *       with {@link SpringAiTools#tools} when you build it. A call of a tool the runtime lacks is answered to the
 *       model as an unknown tool, never an exception.</li>
 *   <li>{@link #executeToolCalls}: the tool calls of the response's first generation with tool calls are scheduled
 *       as one batch in the session of the request's conversation: the tool context's {@code conversationId}, else
 *       the chat memory's conversation id ({@link SpringAiConversationAdvisor} copies it into the tool context),
 *       else a fresh session of this batch alone ({@code spring-ai-} and a random UUID), so requests that name no
 *       conversation never share calls, results or "approve for the session" grants; the
 *       manager waits for every call to end (at most {@code maxWait}) and returns the prompt's messages, the
 *       assistant message and one {@code ToolResponseMessage} holding a response per call, in order: a denied,
 *       failed or cancelled call's response is the text for the model. {@code returnDirect} is true when every
 *       call's tool is return-direct and completed.</li>
 * </ul>
 * Thread-safe: several requests may execute tools at once. Runs on Spring AI 1.1.x and 2.0.x (on 2.0 the
 * {@code ChatClient}'s {@code ToolCallingAdvisor} calls it; see docs/integrations.md).
 */
public final class SpringAiToolCallingManager implements ToolCallingManager {

  /** The tool-context key whose value names the session (conversation) of the calls. */
  public static final String CONVERSATION_ID = "conversationId";

  /** The prefix of the fresh session a batch gets when its prompt names no conversation. */
  static final String FRESH_SESSION_PREFIX = "spring-ai-";

  private final ToolCallRuntime runtime;
  private final long maxWaitNanos;

  private SpringAiToolCallingManager(ToolCallRuntime runtime, java.time.Duration maxWait) {
    this.runtime = Objects.requireNonNull(runtime, "runtime");
    this.maxWaitNanos = maxWait.toNanos();
  }

  /** A manager over {@code runtime}, waiting at most 10 minutes for a batch (approvals may take a while). */
  public static SpringAiToolCallingManager create(ToolCallRuntime runtime) {
    return create(runtime, java.time.Duration.ofMinutes(10));
  }

  /**
   * A manager over {@code runtime} that waits at most {@code maxWait} for a batch; calls still open then are
   * cancelled and answered as such.
   */
  public static SpringAiToolCallingManager create(ToolCallRuntime runtime, java.time.Duration maxWait) {
    Objects.requireNonNull(maxWait, "maxWait");
    if (maxWait.isNegative() || maxWait.isZero()) {
      throw new IllegalArgumentException("maxWait must be positive, was " + maxWait);
    }
    return new SpringAiToolCallingManager(runtime, maxWait);
  }

  /** The runtime the tools run in. */
  public ToolCallRuntime runtime() {
    return runtime;
  }

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
    String session = session(prompt);
    List<CallRequest> requests = new ArrayList<>();
    List<AssistantMessage.ToolCall> asked = assistant.getToolCalls();
    for (int i = 0; i < asked.size(); i++) {
      AssistantMessage.ToolCall c = asked.get(i);
      // a blank id or name is the model's error: it is scheduled under a stand-in and answered, never thrown
      String id = c.id() == null || c.id().isBlank() ? "spring-ai-call-" + (i + 1) : c.id();
      String name = c.name() == null || c.name().isBlank() ? "(no tool name)" : c.name();
      requests.add(CallRequest.of(id, name, c.arguments() == null ? "" : c.arguments()));
    }
    var batch = runtime.schedule(session, requests);
    List<CallResult> results;
    try {
      results = batch.whenDone().toCompletableFuture().get(maxWaitNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      batch.cancelAll("no answer within the tool calling manager's wait");
      results = batch.join();
    } catch (InterruptedException e) {
      batch.cancelAll("the request was interrupted");
      Thread.currentThread().interrupt();
      results = batch.join();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the tool batch failed", e.getCause());
    }
    List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>(results.size());
    boolean returnDirect = !results.isEmpty();
    for (int i = 0; i < results.size(); i++) {
      CallResult r = results.get(i);
      AssistantMessage.ToolCall c = asked.get(i);
      responses.add(new ToolResponseMessage.ToolResponse(c.id() == null ? "" : c.id(),
          c.name() == null ? "" : c.name(), r.messageForModel()));
      boolean direct = !r.isError() && runtime.registry().find(r.toolName())
          .map(t -> t.definition().returnDirect()).orElse(false);
      returnDirect &= direct;
    }
    List<Message> history = new ArrayList<>(prompt.getInstructions());
    history.add(assistant);
    history.add(ToolResponseMessage.builder().responses(responses).build());
    return ToolExecutionResult.builder().conversationHistory(history).returnDirect(returnDirect).build();
  }

  /**
   * The session of a batch: the conversation the prompt's tool context names ({@code conversationId}, else the chat
   * memory's id that {@link SpringAiConversationAdvisor} copied there), else a fresh session of this batch alone.
   */
  static String session(Prompt prompt) {
    if (prompt.getOptions() instanceof ToolCallingChatOptions o && o.getToolContext() != null) {
      for (String key : new String[] {CONVERSATION_ID, ChatMemory.CONVERSATION_ID}) {
        Object id = o.getToolContext().get(key);
        if (id != null && !id.toString().isBlank()) {
          return id.toString();
        }
      }
    }
    return FRESH_SESSION_PREFIX + UUID.randomUUID();
  }
}
