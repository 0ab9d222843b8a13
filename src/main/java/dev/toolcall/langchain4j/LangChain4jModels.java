package dev.toolcall.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import dev.langchain4j.model.output.FinishReason;
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
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A LangChain4j {@link ChatModel} or {@link StreamingChatModel} as this library's {@link ModelClient}, so an
 * {@link dev.toolcall.conversation.Agent} drives it and the tool calls it asks for run under the lifecycle
 * (validation, permissions, timeouts, retries, events) instead of LangChain4j's own tool loop. Stateless and
 * thread-safe; a client is as thread-safe as its model (LangChain4j's provider models are). A streaming client's
 * deltas reach the agent on the thread LangChain4j's callbacks run on.
 *
 * <h2>What maps</h2>
 * <ul>
 *   <li>Messages: instructions become a {@code SystemMessage} first; {@code UserMessage}, {@code AiMessage} with its
 *       {@code ToolExecutionRequest}s, and {@code ToolExecutionResultMessage} (its error flag too) both ways.</li>
 *   <li>Tools: each {@link ToolDefinition} becomes a {@code ToolSpecification} ({@link LangChain4jTools#specification}).
 *   </li>
 *   <li>Options: tool choice {@code auto}, {@code required}, {@code none} (a named tool becomes {@code required} with
 *       only that tool offered), temperature, maximum output tokens; provider options {@code model}/{@code modelName},
 *       {@code top_p}/{@code topP}, {@code top_k}/{@code topK}, {@code frequency_penalty}, {@code presence_penalty}
 *       and {@code stop} (a list of strings). Other provider options are not sent: LangChain4j's portable
 *       parameters have no place for them (set them on the model's own builder).</li>
 *   <li>Responses: text, tool calls in order, token usage, and the finish reason ({@code STOP}, {@code LENGTH},
 *       {@code TOOL_EXECUTION}, {@code CONTENT_FILTER}, {@code OTHER}, also kept as the provider's word).</li>
 *   <li>Streaming: partial text as it comes; each partial tool call is announced when its first fragment arrives and
 *       its argument fragments follow, so the call shows (and is created PENDING) while the model still writes it;
 *       LangChain4j's complete tool call closes it. Text only the complete response carries (no partial text) is the
 *       answer. A callback that cannot be read ends the request {@code MALFORMED_RESPONSE}, never leaves it open.</li>
 *   <li>Call ids: the provider's id; a missing (Gemini) or blank one becomes {@code lc4j_} and 16 random hex digits,
 *       and the messages sent back carry no id on the call and its result, so the provider matches them by
 *       position. An id an earlier response used ({@code call_0} in every response) runs under an id the agent
 *       mints, labelled with the provider's, and goes back as the provider sent it.</li>
 *   <li>Cancellation (an aborted turn cancels the request, see {@link ModelClient}): a streaming request is stopped
 *       through LangChain4j's {@code StreamingHandle.cancel()} (at the first partial callback, which carries the
 *       handle, when the cancel came earlier); a blocking model on an executor is interrupted; one on the calling
 *       thread has answered before anyone could cancel it.</li>
 *   <li>Errors, by LangChain4j's exception types (or HTTP status): rate limit (429) {@code RATE_LIMITED},
 *       authentication (401, 403) {@code AUTHENTICATION}, timeout {@code TIMEOUT}, invalid request and model not
 *       found (other 4xx) {@code INVALID_REQUEST}, server error (5xx) {@code SERVER_ERROR}, an {@code IOException}
 *       cause {@code NETWORK}, other retriable ones {@code SERVER_ERROR}, anything else {@code OTHER}.</li>
 * </ul>
 *
 * <h2>What does not map</h2>
 * Thinking text and images in responses (the seam has no place for them); provider options other than those above
 * ({@code ChatRequestParameters} has no open map); keywords on the root object of a tool's parameters other than
 * {@code properties}, {@code required}, {@code additionalProperties}, {@code description} and {@code $defs}
 * ({@link LangChain4jSchemas}); a system message among the messages ({@link #fromLangChain4j} refuses it: it is the
 * agent's instructions).
 *
 * <h2>Failures</h2>
 * A request never throws into the agent: what the model throws, or reports to the streaming handler's
 * {@code onError}, becomes a {@link ModelException} through {@link #error}; the turn retries a transient kind with
 * backoff and fails on the others (see {@link ModelException}), and its message is shown to the user, not the
 * model. A blocking response without a message is {@code MALFORMED_RESPONSE}, and so is a streamed callback the
 * adapter cannot read (LangChain4j would log and drop that exception, and the turn would wait for ever). A provider
 * option of the wrong type ({@code "top_p": "high"}) fails the request as {@code OTHER}. Nothing is logged here.
 */
public final class LangChain4jModels {

  private LangChain4jModels() {}

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
   * request; an executor that rejects the task fails the request as {@code OTHER}.
   *
   * @throws NullPointerException if {@code model} or {@code executor} is null
   */
  public static ModelClient client(ChatModel model, Executor executor) {
    Objects.requireNonNull(model, "model");
    return ModelClient.blocking(request -> complete(model, request), executor);
  }

  /**
   * {@code model} as a streaming client: text and tool calls reach the agent while the model produces them, on the
   * thread of LangChain4j's callbacks; the request completes at {@code onCompleteResponse}.
   *
   * @throws NullPointerException if {@code model} is null
   */
  public static ModelClient client(StreamingChatModel model) {
    Objects.requireNonNull(model, "model");
    return ModelClient.streaming((request, sink) -> stream(model, request, sink));
  }

  private static ModelResponse complete(ChatModel model, ModelRequest request) throws ModelException {
    ChatResponse r;
    try {
      r = model.chat(chatRequest(request));
    } catch (RuntimeException e) {
      throw error(e);
    }
    if (r == null || r.aiMessage() == null) {
      throw ModelException.of(ModelException.Kind.MALFORMED_RESPONSE, "the model returned no message");
    }
    return response(r);
  }

  private static CompletionStage<Void> stream(StreamingChatModel model, ModelRequest request,
      Consumer<? super ModelDelta> sink) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    // the calls announced so far, in order: the provider's id (maybe null) and ours; a call of the complete response
    // is the first unclaimed one with the same provider id (so calls without ids match by position)
    List<String[]> streamed = new ArrayList<>();
    Map<Integer, String[]> byIndex = new HashMap<>(); // partial call index -> {provider id, our id}
    boolean[] texted = {false};
    // LangChain4j hands the stream's handle to the partial callbacks only: a cancel before the first one stops the
    // stream when that one arrives
    AtomicReference<StreamingHandle> handle = new AtomicReference<>();
    Runnable stopIfCancelled = () -> {
      StreamingHandle h = handle.get();
      if (done.isCancelled() && h != null && !h.isCancelled()) {
        h.cancel();
      }
    };
    done.whenComplete((v, e) -> {
      if (e instanceof CancellationException) {
        stopIfCancelled.run();
      }
    });
    StreamingChatResponseHandler handler = new StreamingChatResponseHandler() {
      private void handle(StreamingHandle h) {
        if (h != null && handle.compareAndSet(null, h)) {
          stopIfCancelled.run();
        }
      }

      /** Runs a callback; what it throws ends the request (LangChain4j would log and drop it, and the turn hang). */
      private void guarded(Runnable callback) {
        if (done.isDone()) {
          return;
        }
        try {
          callback.run();
        } catch (RuntimeException e) {
          done.completeExceptionally(ModelException.of(ModelException.Kind.MALFORMED_RESPONSE,
              "the streamed response could not be read: " + e, e));
        }
      }

      private String[] announce(String providerId, String name, String arguments) {
        String[] ids = {providerId, ourId(providerId)};
        streamed.add(ids);
        sink.accept(new ModelDelta.ToolCallStarted(ids[1], name == null ? "" : name));
        if (arguments != null && !arguments.isEmpty()) {
          sink.accept(new ModelDelta.ToolCallArguments(ids[1], arguments));
        }
        return ids;
      }

      @Override
      public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
        handle(context == null ? null : context.streamingHandle());
        onPartialResponse(partial.text());
      }

      @Override
      public void onPartialToolCall(PartialToolCall call, PartialToolCallContext context) {
        handle(context == null ? null : context.streamingHandle());
        onPartialToolCall(call);
      }

      @Override
      public void onPartialThinking(PartialThinking thinking, PartialThinkingContext context) {
        handle(context == null ? null : context.streamingHandle()); // thinking text is not carried
      }

      @Override
      public void onPartialResponse(String text) {
        guarded(() -> {
          if (text != null && !text.isEmpty()) {
            texted[0] = true;
            sink.accept(new ModelDelta.Text(text));
          }
        });
      }

      @Override
      public void onPartialToolCall(PartialToolCall call) {
        guarded(() -> {
          String[] ids = byIndex.get(call.index());
          if (ids == null && call.name() != null) {
            byIndex.put(call.index(), announce(call.id(), call.name(), call.partialArguments()));
          } else if (ids != null && call.partialArguments() != null && !call.partialArguments().isEmpty()) {
            sink.accept(new ModelDelta.ToolCallArguments(ids[1], call.partialArguments()));
          }
        });
      }

      @Override
      public void onCompleteToolCall(CompleteToolCall call) {
        guarded(() -> {
          ToolExecutionRequest t = call.toolExecutionRequest();
          String[] ids = byIndex.get(call.index());
          if (ids == null) { // a provider that streams no partial calls: the whole call at once
            ids = announce(t.id(), t.name(), t.arguments());
            byIndex.put(call.index(), ids);
          }
          sink.accept(new ModelDelta.ToolCallCompleted(ids[1]));
        });
      }

      @Override
      public void onCompleteResponse(ChatResponse r) {
        guarded(() -> {
          AiMessage ai = r.aiMessage();
          if (!texted[0] && ai != null && ai.text() != null && !ai.text().isEmpty()) {
            sink.accept(new ModelDelta.Text(ai.text())); // a provider that streamed none of its text
          }
          if (ai != null && ai.hasToolExecutionRequests()) {
            Set<String[]> claimed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (ToolExecutionRequest t : ai.toolExecutionRequests()) {
              String[] match = null;
              for (String[] ids : streamed) {
                if (!claimed.contains(ids) && Objects.equals(ids[0], t.id())) {
                  match = ids;
                  break;
                }
              }
              if (match == null) { // never streamed: announce it whole
                match = announce(t.id(), t.name(), t.arguments());
                sink.accept(new ModelDelta.ToolCallCompleted(match[1]));
              }
              claimed.add(match);
            }
          }
          sink.accept(new ModelDelta.ResponseCompleted(stopReason(r), usage(r), finishWord(r)));
          done.complete(null);
        });
      }

      @Override
      public void onError(Throwable error) {
        done.completeExceptionally(error instanceof RuntimeException re ? error(re) : ModelException.from(error));
      }
    };
    try {
      model.chat(chatRequest(request), handler);
    } catch (RuntimeException e) {
      done.completeExceptionally(error(e));
    }
    return done;
  }

  // --- call ids ---------------------------------------------------------------------------------------------------

  /** An id this adapter minted for a call the provider sent without one. */
  private static final java.util.regex.Pattern MINTED = java.util.regex.Pattern.compile("lc4j_[0-9a-f]{16}");

  /**
   * The call id the agent gets for a call the provider named {@code providerId}: that id, unless it is missing
   * (Gemini) or blank; then one of the adapter's own ({@link #mint}), so calls of one response stay apart while they
   * stream, and the messages sent back carry no id ({@link #providerId}). An id an earlier response used
   * ({@code call_0} in every response) is the agent's to handle: it runs the call under an id it mints, labelled with
   * the provider's.
   */
  static String ourId(String providerId) {
    return providerId == null || providerId.isBlank() ? mint() : providerId;
  }

  /** A fresh id for a call the provider sent without one. */
  private static String mint() {
    return String.format("lc4j_%016x", java.util.concurrent.ThreadLocalRandom.current().nextLong());
  }

  /**
   * The id to send the provider for the call the agent knows as {@code ourId} (its label): null for an id this
   * adapter minted or a blank one, as LangChain4j's providers that send no ids (Gemini) match results by position.
   */
  static String providerId(String ourId) {
    return ourId.isBlank() || MINTED.matcher(ourId).matches() ? null : ourId;
  }

  // --- requests ---------------------------------------------------------------------------------------------------

  static ChatRequest chatRequest(ModelRequest request) {
    List<ChatMessage> messages = new ArrayList<>(request.messages().size() + 1);
    if (!request.instructions().isEmpty()) {
      messages.add(SystemMessage.from(request.instructions()));
    }
    for (Message m : request.messages()) {
      messages.add(toLangChain4j(m));
    }
    ModelOptions o = request.options();
    List<ToolSpecification> tools = new ArrayList<>();
    for (ToolDefinition d : request.tools()) {
      if (!(o.toolChoice() instanceof ToolChoice.Named n) || n.toolName().equals(d.name())) {
        tools.add(LangChain4jTools.specification(d));
      }
    }
    var p = ChatRequestParameters.builder();
    if (!tools.isEmpty()) {
      p.toolSpecifications(tools);
      p.toolChoice(toolChoice(o.toolChoice()));
    }
    o.temperature().ifPresent(p::temperature);
    o.maxTokens().ifPresent(p::maxOutputTokens);
    Map<String, Object> provider = o.provider();
    provider.forEach((k, v) -> {
      switch (k) {
        case "model", "modelName", "model_name" -> p.modelName(String.valueOf(v));
        case "top_p", "topP" -> p.topP(((Number) v).doubleValue());
        case "top_k", "topK" -> p.topK(((Number) v).intValue());
        case "frequency_penalty", "frequencyPenalty" -> p.frequencyPenalty(((Number) v).doubleValue());
        case "presence_penalty", "presencePenalty" -> p.presencePenalty(((Number) v).doubleValue());
        case "stop", "stopSequences" -> {
          List<String> stops = new ArrayList<>();
          ((List<?>) v).forEach(x -> stops.add(String.valueOf(x)));
          p.stopSequences(stops);
        }
        default -> { } // no portable place: set it on the model's own builder
      }
    });
    return ChatRequest.builder().messages(messages).parameters(p.build()).build();
  }

  private static dev.langchain4j.model.chat.request.ToolChoice toolChoice(ToolChoice c) {
    if (c instanceof ToolChoice.None) {
      return dev.langchain4j.model.chat.request.ToolChoice.NONE;
    }
    if (c instanceof ToolChoice.Required || c instanceof ToolChoice.Named) {
      return dev.langchain4j.model.chat.request.ToolChoice.REQUIRED;
    }
    return dev.langchain4j.model.chat.request.ToolChoice.AUTO;
  }

  /**
   * One of our messages as LangChain4j's: a {@code UserMessage}, an {@code AiMessage} with its calls, or a
   * {@code ToolExecutionResultMessage} with its error flag. A call id this adapter minted, or a blank one, is sent
   * as none (see above).
   *
   * @throws NullPointerException if {@code m} is null
   */
  public static ChatMessage toLangChain4j(Message m) {
    Objects.requireNonNull(m, "message");
    if (m instanceof UserMessage u) {
      return dev.langchain4j.data.message.UserMessage.from(u.text());
    }
    if (m instanceof AssistantMessage a) {
      List<ToolExecutionRequest> calls = new ArrayList<>(a.toolCalls().size());
      for (ToolCallRequest c : a.toolCalls()) {
        calls.add(ToolExecutionRequest.builder().id(providerId(c.id())).name(c.name()).arguments(c.rawArguments())
            .build());
      }
      if (calls.isEmpty()) {
        return AiMessage.from(a.text());
      }
      return a.text().isEmpty() ? AiMessage.from(calls) : AiMessage.from(a.text(), calls);
    }
    ToolResultMessage r = (ToolResultMessage) m;
    return ToolExecutionResultMessage.builder().id(providerId(r.callId())).toolName(r.toolName()).text(r.content())
        .isError(r.isError()).build();
  }

  /**
   * A LangChain4j message as ours; a missing id, name, text or arguments becomes empty, and a call without an id
   * gets one this adapter mints.
   *
   * @throws NullPointerException if {@code m} is null
   * @throws IllegalArgumentException for a system message (it has no place in the messages: it is the
   *     instructions) or another type with no counterpart
   */
  public static Message fromLangChain4j(ChatMessage m) {
    Objects.requireNonNull(m, "message");
    if (m instanceof dev.langchain4j.data.message.UserMessage u) {
      return new UserMessage(u.singleText());
    }
    if (m instanceof AiMessage a) {
      List<ToolCallRequest> calls = new ArrayList<>();
      if (a.hasToolExecutionRequests()) {
        for (ToolExecutionRequest t : a.toolExecutionRequests()) {
          calls.add(new ToolCallRequest(ourId(t.id()), t.name() == null ? "" : t.name(),
              t.arguments() == null ? "" : t.arguments()));
        }
      }
      return new AssistantMessage(a.text() == null ? "" : a.text(), calls);
    }
    if (m instanceof ToolExecutionResultMessage r) {
      return new ToolResultMessage(r.id() == null ? "" : r.id(), r.toolName() == null ? "" : r.toolName(),
          r.text() == null ? "" : r.text(), Boolean.TRUE.equals(r.isError())); // no id: matched by position
    }
    throw new IllegalArgumentException("a " + m.type() + " message has no place among the messages; pass a system"
        + " message as the agent's instructions");
  }

  // --- responses --------------------------------------------------------------------------------------------------

  static ModelResponse response(ChatResponse r) {
    AiMessage ai = r.aiMessage();
    List<ToolCallRequest> calls = new ArrayList<>();
    if (ai.hasToolExecutionRequests()) {
      for (ToolExecutionRequest t : ai.toolExecutionRequests()) {
        calls.add(new ToolCallRequest(ourId(t.id()), t.name() == null ? "" : t.name(),
            t.arguments() == null ? "" : t.arguments()));
      }
    }
    StopReason stop = calls.isEmpty() ? stopReason(r) : StopReason.TOOL_CALLS;
    return new ModelResponse(ai.text() == null ? "" : ai.text(), calls, stop, usage(r), finishWord(r));
  }

  private static StopReason stopReason(ChatResponse r) {
    FinishReason f = r.finishReason();
    if (r.aiMessage() != null && r.aiMessage().hasToolExecutionRequests()) {
      return StopReason.TOOL_CALLS;
    }
    if (f == null) {
      return StopReason.END_TURN;
    }
    switch (f) {
      case STOP:
        return StopReason.END_TURN;
      case LENGTH:
        return StopReason.MAX_TOKENS;
      case TOOL_EXECUTION:
        return StopReason.TOOL_CALLS;
      case CONTENT_FILTER:
        return StopReason.CONTENT_FILTER;
      default:
        return StopReason.OTHER;
    }
  }

  private static String finishWord(ChatResponse r) {
    return r.finishReason() == null ? "" : r.finishReason().name().toLowerCase(java.util.Locale.ROOT);
  }

  private static TokenUsage usage(ChatResponse r) {
    dev.langchain4j.model.output.TokenUsage u = r.tokenUsage();
    if (u == null) {
      return TokenUsage.NONE;
    }
    return new TokenUsage(u.inputTokenCount() == null ? 0 : u.inputTokenCount(),
        u.outputTokenCount() == null ? 0 : u.outputTokenCount());
  }

  /**
   * A LangChain4j failure as a {@link ModelException} of the kind that says what to do about it, by LangChain4j's
   * exception types, then an {@code HttpException}'s status, then the cause (see the table above). The message is
   * the exception's (its class name when it has none), and the exception is the cause.
   */
  public static ModelException error(RuntimeException e) {
    String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    ModelException.Kind kind;
    if (e instanceof RateLimitException) {
      kind = ModelException.Kind.RATE_LIMITED;
    } else if (e instanceof AuthenticationException) {
      kind = ModelException.Kind.AUTHENTICATION;
    } else if (e instanceof TimeoutException) {
      kind = ModelException.Kind.TIMEOUT;
    } else if (e instanceof InvalidRequestException || e instanceof ModelNotFoundException) {
      kind = ModelException.Kind.INVALID_REQUEST;
    } else if (e instanceof InternalServerException) {
      kind = ModelException.Kind.SERVER_ERROR;
    } else if (e instanceof HttpException h) {
      int s = h.statusCode();
      kind = s == 429 ? ModelException.Kind.RATE_LIMITED : s == 401 || s == 403 ? ModelException.Kind.AUTHENTICATION
          : s >= 500 ? ModelException.Kind.SERVER_ERROR : s >= 400 ? ModelException.Kind.INVALID_REQUEST
          : ModelException.Kind.OTHER;
    } else if (e.getCause() instanceof IOException) {
      kind = ModelException.Kind.NETWORK;
    } else if (e instanceof RetriableException) {
      kind = ModelException.Kind.SERVER_ERROR;
    } else {
      kind = ModelException.Kind.OTHER;
    }
    return ModelException.of(kind, msg, e);
  }
}
