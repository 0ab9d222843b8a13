package dev.toolcall.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.memory.ChatMemoryService;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.execution.Batch;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.tool.ToolDefinition;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

/**
 * A runtime's tools as a LangChain4j {@link ToolProvider}, so an application keeps its {@code AiServices} and every
 * tool call the service makes runs under the lifecycle: argument validation, permissions (with the timeout
 * auto-deny), timeouts, retries, cancellation, events and telemetry.
 *
 * <pre>{@code
 * Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
 *     .toolProvider(LangChain4jToolProvider.create(runtime))
 *     .build();
 * }</pre>
 *
 * <p>Each tool call LangChain4j hands to a tool's executor is scheduled on the runtime as a batch of one, and the
 * executor returns when the call has ended: with its result, or with {@code isError} and the text for the model when
 * it was denied, failed or cancelled (LangChain4j then sends the model that text as an error result). The thread
 * that runs the executor (the service's caller, or the executor of {@code executeToolsConcurrently}) waits, also
 * while a person decides; the tool's permission timeout bounds that wait. Interrupting that thread cancels the call.
 *
 * <p>Sessions: a call runs in the session named by the invocation's {@code @MemoryId}, so "approve for the session"
 * grants, pending requests and events belong to that user's conversation. An invocation without a memory id
 * (LangChain4j's {@code "default"}) runs in a fresh session of its own, {@code langchain4j-} and its invocation id:
 * invocations never share one by default.
 *
 * <p>Call ids: LangChain4j answers the model under the provider's id (or position) itself, so the library's id of a
 * call is always one it mints ({@link CallRequest#mintCallId()}), and the provider's id (empty when it sent none, as
 * Gemini does) is the call's label ({@link dev.toolcall.ToolCallIdentity#label()}), which events, views and spans
 * show. Calls with the same provider id from two users, two responses or one response never meet.
 *
 * <p>What does not map: {@code AiServices} hands over one call at a time, so a response's calls are not one batch
 * (no read-only calls in parallel by the scheduler, no cancelling them together); they run in the order and with
 * the concurrency {@code AiServices} chooses. A tool name the model made up is answered by {@code AiServices}'
 * {@code hallucinatedToolNameStrategy} before the runtime sees it (no call, no event). There is no interrupted
 * turn to resume later, and no {@code invoke_agent} span.
 *
 * <p>Failures: what the call does wrong (invalid arguments, a denial, the permission timeout, a throwing or timed
 * out tool, a cancel) is its result, {@code isError} with the text for the model, never an exception into
 * {@code AiServices}. Nothing is logged here.
 *
 * <p>Thread-safe and stateless; {@link #provideTools} offers the runtime's tools as they are at that moment.
 */
public final class LangChain4jToolProvider implements ToolProvider {

  /** The prefix of a session made for an invocation without a memory id. */
  public static final String FRESH_SESSION_PREFIX = "langchain4j-";

  private final ToolCallRuntime runtime;

  private LangChain4jToolProvider(ToolCallRuntime runtime) {
    this.runtime = runtime;
  }

  /**
   * A provider of {@code runtime}'s tools (the application closes the runtime; a call after that is cancelled at
   * once, and the model reads that the runtime was closed).
   *
   * @throws NullPointerException if {@code runtime} is null
   */
  public static LangChain4jToolProvider create(ToolCallRuntime runtime) {
    return new LangChain4jToolProvider(Objects.requireNonNull(runtime, "runtime"));
  }

  /** The runtime whose tools this provides. */
  public ToolCallRuntime runtime() {
    return runtime;
  }

  /**
   * The runtime's tools as the model is offered them (their model names, {@link LangChain4jTools#specification}),
   * each with an executor that runs its calls on the runtime. Tools added to the runtime later are offered the next
   * time LangChain4j asks; {@code request} is not read.
   */
  @Override
  public ToolProviderResult provideTools(ToolProviderRequest request) {
    ToolProviderResult.Builder b = ToolProviderResult.builder();
    for (ToolDefinition d : runtime.registry().modelDefinitions()) {
      b.add(LangChain4jTools.specification(d), new Executor());
    }
    return b.build();
  }

  /**
   * The session of an invocation: its memory id, or a fresh one of its own when it has none (LangChain4j's
   * {@code "default"} is its stand-in for none).
   */
  static String session(Object memoryId, UUID invocationId) {
    if (memoryId != null && !ChatMemoryService.DEFAULT.equals(memoryId) && !memoryId.toString().isBlank()) {
      return memoryId.toString();
    }
    return FRESH_SESSION_PREFIX + (invocationId == null ? UUID.randomUUID() : invocationId);
  }

  /** Runs one call LangChain4j hands over on the runtime and waits for it to end. */
  private final class Executor implements ToolExecutor {

    /** Runs the call in the invocation's session (see the class doc) and returns when it has ended. */
    @Override
    public ToolExecutionResult executeWithContext(ToolExecutionRequest request, InvocationContext context) {
      return run(request, session(context == null ? null : context.chatMemoryId(),
          context == null ? null : context.invocationId()));
    }

    /** As {@link #executeWithContext}, for callers without a context; only the result text comes back. */
    @Override
    public String execute(ToolExecutionRequest request, Object memoryId) {
      return run(request, session(memoryId, null)).resultText();
    }

    private ToolExecutionResult run(ToolExecutionRequest request, String session) {
      String name = request.name() == null || request.name().isBlank() ? "(no tool name)" : request.name();
      String args = request.arguments() == null || request.arguments().isBlank() ? "{}" : request.arguments();
      Batch batch = runtime.schedule(session, List.of(CallRequest.labelled(CallRequest.mintCallId(),
          request.id() == null ? "" : request.id(), name, args)));
      CallResult r;
      try {
        r = batch.whenDone().toCompletableFuture().get().get(0);
      } catch (InterruptedException e) {
        batch.cancelAll("the AI service's thread was interrupted");
        Thread.currentThread().interrupt();
        r = batch.join().get(0);
      } catch (ExecutionException e) { // never: a batch's results never complete exceptionally
        throw new IllegalStateException("the tool call's batch failed", e.getCause());
      }
      return ToolExecutionResult.builder().isError(r.isError()).resultText(r.messageForModel()).build();
    }
  }
}
