package dev.toolcall.springai;

import dev.toolcall.conversation.AssistantMessage;
import dev.toolcall.conversation.Message;
import dev.toolcall.conversation.ModelClient;
import dev.toolcall.conversation.ModelDelta;
import dev.toolcall.conversation.ModelException;
import dev.toolcall.conversation.ModelOptions;
import dev.toolcall.conversation.ModelRequest;
import dev.toolcall.conversation.ModelResponse;
import dev.toolcall.conversation.StopReason;
import dev.toolcall.conversation.TokenUsage;
import dev.toolcall.conversation.ToolCallRequest;
import dev.toolcall.conversation.ToolChoice;
import dev.toolcall.conversation.ToolResultMessage;
import dev.toolcall.conversation.UserMessage;
import dev.toolcall.tool.ToolDefinition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;

/**
 * A Spring AI {@link ChatModel} as this library's {@link ModelClient}, with Spring AI's internal tool execution
 * turned off: the model is offered the tools, and the calls it asks for run under this library's lifecycle, driven
 * by an {@link dev.toolcall.conversation.Agent}.
 *
 * <h2>What maps</h2>
 * <ul>
 *   <li>Messages: instructions as a {@code SystemMessage} first; user, assistant (with tool calls) and tool messages
 *       (consecutive tool results become one {@code ToolResponseMessage}, each response under the call's id).</li>
 *   <li>Tools: each definition as a definition-only {@code ToolCallback} ({@link SpringAiTools#definition}); on
 *       Spring AI 1.1 {@code internalToolExecutionEnabled(false)} is set, and 2.0 models never run tools
 *       themselves.</li>
 *   <li>Options: temperature, maximum tokens, and the provider options {@code model}/{@code modelName},
 *       {@code top_p}/{@code topP}, {@code top_k}/{@code topK}, {@code frequency_penalty},
 *       {@code presence_penalty} and {@code stop}/{@code stopSequences} (a list); a provider option of another
 *       name is not sent (set it on the provider's own options).</li>
 *   <li>Responses: the first generation's text, the tool calls of every generation in order (a missing id, name
 *       or arguments as empty), token usage (prompt and completion tokens) and the finish reason, kept lower case
 *       as the provider's word.</li>
 *   <li>Streaming ({@link #streamingClient}): text chunks as they come. Spring AI hands tool calls over whole (in
 *       the chunk that carries them), so each is announced at once with its arguments and completed, with a missing
 *       id or name as empty, as the blocking client hands them over: every call of a chunk is announced (blank ids
 *       and a reused id included: the turn mints ids for blank ones and answers a duplicate), and only a call an
 *       earlier chunk announced under the same non-blank id is not announced again. Token usage is the largest the
 *       chunks report.</li>
 *   <li>Cancellation (an aborted turn cancels the request, see {@link ModelClient}): a streaming request's
 *       subscription is disposed, which cancels the provider's request, and chunks that still arrive are dropped; a
 *       blocking model on an executor is interrupted; one on the calling thread has answered before anyone could
 *       cancel it.</li>
 * </ul>
 *
 * <h2>What does not map</h2>
 * Spring AI's portable options have no tool choice: {@code none} offers no tools, a named tool offers only that
 * tool, and {@code required} sends nothing, so the provider's default (usually {@code auto}) applies; set it on the
 * provider's own options to force it. Partial tool calls while streaming (Spring AI aggregates them). Thinking text,
 * media and any generation but the first's text.
 *
 * <h2>Failures</h2>
 * A request never throws into the agent: what Spring AI or the provider throws, in a blocking call or a stream's
 * error signal, becomes a {@link ModelException} through {@link #error}: the turn retries a transient kind with
 * backoff and fails on the others (see {@link ModelException}); its message is shown to the user, not to the model.
 * A blocking response without a generation is {@code MALFORMED_RESPONSE}. Nothing is logged here.
 *
 * <p>Stateless and thread-safe; a client is as thread-safe as its model (Spring AI's provider models are).
 */
public final class SpringAiModels {

  private SpringAiModels() {}

  /**
   * {@code model} as a client that calls it on the calling thread (the agent's, in {@code send}).
   *
   * @throws NullPointerException if {@code model} is null
   */
  public static ModelClient client(ChatModel model) {
    Objects.requireNonNull(model, "model");
    return ModelClient.blocking(request -> complete(model, request));
  }

  /**
   * {@code model} as a client that calls it on {@code executor}, so an aborted turn can interrupt the waiting
   * request.
   *
   * @throws NullPointerException if {@code model} or {@code executor} is null
   */
  public static ModelClient client(ChatModel model, Executor executor) {
    Objects.requireNonNull(model, "model");
    return ModelClient.blocking(request -> complete(model, request), executor);
  }

  /**
   * {@code model} as a streaming client ({@code ChatModel.stream}): text reaches the agent as it comes, tool calls
   * whole; the stream's signals arrive on whatever thread the provider's client uses.
   *
   * @throws NullPointerException if {@code model} is null
   */
  public static ModelClient streamingClient(ChatModel model) {
    Objects.requireNonNull(model, "model");
    return ModelClient.streaming((request, sink) -> {
      CompletableFuture<Void> done = new CompletableFuture<>();
      Set<String> announced = new HashSet<>(); // the non-blank ids of the calls earlier chunks announced
      boolean[] anyCall = {false};
      long[] usage = new long[2];
      String[] finish = {""};
      try {
        reactor.core.Disposable subscription = model.stream(prompt(request)).subscribe(r -> {
          if (done.isDone()) {
            return; // cancelled: nothing more reaches the agent
          }
          Generation g = r.getResult();
          if (g != null && g.getOutput() != null) {
            String text = g.getOutput().getText();
            if (text != null && !text.isEmpty()) {
              sink.accept(new ModelDelta.Text(text));
            }
            announce(g.getOutput().getToolCalls(), announced, sink);
            anyCall[0] |= !g.getOutput().getToolCalls().isEmpty();
            if (g.getMetadata() != null && g.getMetadata().getFinishReason() != null) {
              finish[0] = g.getMetadata().getFinishReason();
            }
          }
          TokenUsage u = usage(r);
          usage[0] = Math.max(usage[0], u.inputTokens());
          usage[1] = Math.max(usage[1], u.outputTokens());
        }, e -> done.completeExceptionally(error(e)), () -> {
          if (done.isDone()) {
            return;
          }
          StopReason stop = anyCall[0] ? StopReason.TOOL_CALLS : stopReason(finish[0]);
          sink.accept(new ModelDelta.ResponseCompleted(stop, new TokenUsage(usage[0], usage[1]),
              finish[0].toLowerCase(Locale.ROOT)));
          done.complete(null);
        });
        done.whenComplete((v, e) -> { // an aborted turn cancels the stage: the subscription (and the request) ends
          if (e instanceof java.util.concurrent.CancellationException) {
            subscription.dispose();
          }
        });
      } catch (RuntimeException e) {
        done.completeExceptionally(error(e));
      }
      return done;
    });
  }

  /**
   * Announces a chunk's tool calls, each whole, as the blocking client hands them over: a missing id or name as
   * empty (the turn mints an id for a blank one and answers a call that names no tool), every call of the chunk,
   * even two under one id (the turn answers the second as a duplicate). Only a call an earlier chunk announced under
   * the same non-blank id is left out: a later chunk repeated it. {@code announced} holds those ids.
   */
  private static void announce(List<org.springframework.ai.chat.messages.AssistantMessage.ToolCall> calls,
      Set<String> announced, java.util.function.Consumer<? super ModelDelta> sink) {
    List<String> ids = new ArrayList<>(calls.size());
    for (org.springframework.ai.chat.messages.AssistantMessage.ToolCall c : calls) {
      String id = c.id() == null ? "" : c.id();
      if (!id.isBlank() && announced.contains(id)) {
        continue;
      }
      ids.add(id);
      sink.accept(new ModelDelta.ToolCallStarted(id, c.name() == null ? "" : c.name()));
      if (c.arguments() != null && !c.arguments().isEmpty()) {
        sink.accept(new ModelDelta.ToolCallArguments(id, c.arguments()));
      }
      sink.accept(new ModelDelta.ToolCallCompleted(id));
    }
    for (String id : ids) {
      if (!id.isBlank()) {
        announced.add(id);
      }
    }
  }

  private static ModelResponse complete(ChatModel model, ModelRequest request) throws ModelException {
    ChatResponse r;
    try {
      r = model.call(prompt(request));
    } catch (RuntimeException e) {
      throw error(e);
    }
    if (r == null || r.getResult() == null || r.getResult().getOutput() == null) {
      throw ModelException.of(ModelException.Kind.MALFORMED_RESPONSE, "the model returned no generation");
    }
    return response(r);
  }

  /**
   * The Spring AI prompt of {@code request}: messages, tools as definition-only callbacks, options, as described
   * above. Public for applications that call the model themselves.
   *
   * @throws ClassCastException if a known provider option has a value of the wrong type (a string for
   *     {@code top_p}, say)
   */
  public static Prompt prompt(ModelRequest request) {
    Objects.requireNonNull(request, "request");
    List<org.springframework.ai.chat.messages.Message> messages = new ArrayList<>();
    if (!request.instructions().isEmpty()) {
      messages.add(new SystemMessage(request.instructions()));
    }
    List<ToolResponseMessage.ToolResponse> pending = new ArrayList<>();
    for (Message m : request.messages()) {
      if (m instanceof ToolResultMessage r) {
        pending.add(new ToolResponseMessage.ToolResponse(r.callId(), r.toolName(), r.content()));
        continue;
      }
      flush(messages, pending);
      messages.add(toSpring(m));
    }
    flush(messages, pending);
    ModelOptions o = request.options();
    List<ToolCallback> tools = new ArrayList<>();
    if (!(o.toolChoice() instanceof ToolChoice.None)) {
      for (ToolDefinition d : request.tools()) {
        if (!(o.toolChoice() instanceof ToolChoice.Named n) || n.toolName().equals(d.name())) {
          tools.add(new DefinitionOnly(SpringAiTools.definition(d)));
        }
      }
    }
    ToolCallingChatOptions.Builder b = ToolCallingChatOptions.builder().toolCallbacks(tools);
    SpringAiCompat.disableInternalToolExecution(b); // 1.x; on 2.x a model never runs tools itself
    o.temperature().ifPresent(b::temperature);
    o.maxTokens().ifPresent(b::maxTokens);
    o.provider().forEach((k, v) -> {
      switch (k) {
        case "model", "modelName" -> b.model(String.valueOf(v));
        case "top_p", "topP" -> b.topP(((Number) v).doubleValue());
        case "top_k", "topK" -> b.topK(((Number) v).intValue());
        case "frequency_penalty", "frequencyPenalty" -> b.frequencyPenalty(((Number) v).doubleValue());
        case "presence_penalty", "presencePenalty" -> b.presencePenalty(((Number) v).doubleValue());
        case "stop", "stopSequences" -> {
          List<String> stops = new ArrayList<>();
          ((List<?>) v).forEach(x -> stops.add(String.valueOf(x)));
          b.stopSequences(stops);
        }
        default -> { } // no portable place: set it on the provider's own options
      }
    });
    return new Prompt(messages, b.build());
  }

  private static void flush(List<org.springframework.ai.chat.messages.Message> out,
      List<ToolResponseMessage.ToolResponse> pending) {
    if (!pending.isEmpty()) {
      out.add(ToolResponseMessage.builder().responses(List.copyOf(pending)).build());
      pending.clear();
    }
  }

  private static org.springframework.ai.chat.messages.Message toSpring(Message m) {
    if (m instanceof UserMessage u) {
      return new org.springframework.ai.chat.messages.UserMessage(u.text());
    }
    AssistantMessage a = (AssistantMessage) m;
    List<org.springframework.ai.chat.messages.AssistantMessage.ToolCall> calls = new ArrayList<>();
    for (ToolCallRequest c : a.toolCalls()) {
      calls.add(new org.springframework.ai.chat.messages.AssistantMessage.ToolCall(c.id(), "function", c.name(),
          c.rawArguments()));
    }
    return org.springframework.ai.chat.messages.AssistantMessage.builder().content(a.text()).toolCalls(calls).build();
  }

  static ModelResponse response(ChatResponse r) {
    org.springframework.ai.chat.messages.AssistantMessage out = r.getResult().getOutput();
    List<ToolCallRequest> calls = new ArrayList<>();
    for (Generation g : r.getResults()) {
      for (org.springframework.ai.chat.messages.AssistantMessage.ToolCall c : g.getOutput().getToolCalls()) {
        calls.add(new ToolCallRequest(c.id() == null ? "" : c.id(), c.name() == null ? "" : c.name(),
            c.arguments() == null ? "" : c.arguments()));
      }
    }
    String finish = r.getResult().getMetadata() == null || r.getResult().getMetadata().getFinishReason() == null
        ? "" : r.getResult().getMetadata().getFinishReason();
    StopReason stop = calls.isEmpty() ? stopReason(finish) : StopReason.TOOL_CALLS;
    return new ModelResponse(out.getText() == null ? "" : out.getText(), calls, stop, usage(r),
        finish.toLowerCase(Locale.ROOT));
  }

  private static StopReason stopReason(String finish) {
    switch (finish.toUpperCase(Locale.ROOT)) {
      case "", "STOP", "END_TURN", "COMPLETED":
        return StopReason.END_TURN;
      case "LENGTH", "MAX_TOKENS":
        return StopReason.MAX_TOKENS;
      case "TOOL_CALLS", "TOOL_USE", "FUNCTION_CALL":
        return StopReason.TOOL_CALLS;
      case "CONTENT_FILTER", "SAFETY":
        return StopReason.CONTENT_FILTER;
      default:
        return StopReason.OTHER;
    }
  }

  private static TokenUsage usage(ChatResponse r) {
    Usage u = r.getMetadata() == null ? null : r.getMetadata().getUsage();
    if (u == null) {
      return TokenUsage.NONE;
    }
    long in = u.getPromptTokens() == null ? 0 : u.getPromptTokens();
    long out = u.getCompletionTokens() == null ? 0 : u.getCompletionTokens();
    return new TokenUsage(in, out);
  }

  /**
   * A Spring AI failure as a {@link ModelException} of the kind that says what to do about it, by the exception's
   * class name (Spring AI's provider modules throw their own types): a name with {@code ratelimit}, or a message with
   * {@code 429}, is {@code RATE_LIMITED}; {@code timeout} is {@code TIMEOUT}; {@code authentic} or
   * {@code unauthorized} is {@code AUTHENTICATION}; an {@code IOException}, or one as the cause, is
   * {@code NETWORK}; Spring's {@code NonTransientAiException} is {@code INVALID_REQUEST} and its
   * {@code TransientAiException} {@code SERVER_ERROR}; anything else {@code OTHER}. A {@link ModelException} is
   * returned as it is. The message is the exception's (its class name when it has none), and it is the cause.
   */
  public static ModelException error(Throwable e) {
    if (e instanceof ModelException m) {
      return m;
    }
    String type = e.getClass().getName().toLowerCase(Locale.ROOT);
    String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    ModelException.Kind kind;
    if (type.contains("ratelimit") || msg.contains("429")) {
      kind = ModelException.Kind.RATE_LIMITED;
    } else if (type.contains("timeout")) {
      kind = ModelException.Kind.TIMEOUT;
    } else if (type.contains("authentic") || type.contains("unauthorized")) {
      kind = ModelException.Kind.AUTHENTICATION;
    } else if (e.getCause() instanceof java.io.IOException || e instanceof java.io.IOException) {
      kind = ModelException.Kind.NETWORK;
    } else if (type.endsWith("nontransientaiexception")) {
      kind = ModelException.Kind.INVALID_REQUEST;
    } else if (type.endsWith("transientaiexception")) {
      kind = ModelException.Kind.SERVER_ERROR;
    } else {
      kind = ModelException.Kind.OTHER;
    }
    return ModelException.of(kind, msg, e);
  }

  /**
   * A tool the model is offered but Spring AI never runs (internal tool execution is off); if something calls it
   * anyway it throws {@link UnsupportedOperationException} saying so.
   */
  private record DefinitionOnly(org.springframework.ai.tool.definition.ToolDefinition definition)
      implements ToolCallback {
    @Override
    public org.springframework.ai.tool.definition.ToolDefinition getToolDefinition() {
      return definition;
    }

    @Override
    public String call(String toolInput) {
      throw new UnsupportedOperationException("tool " + definition.name() + " runs under the toolcall runtime, not"
          + " Spring AI: keep internal tool execution off for this prompt");
    }
  }
}
