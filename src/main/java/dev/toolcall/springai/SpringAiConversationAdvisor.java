package dev.toolcall.springai;

import java.util.Objects;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.core.Ordered;
import reactor.core.publisher.Flux;

/**
 * A {@code ChatClient} advisor that hands the chat memory's conversation id to the {@link SpringAiToolCallingManager},
 * so a request's tool calls run in the session of its conversation. Spring AI keeps that id in the request's advisor
 * context ({@code .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, id))}), which never reaches a
 * {@code ToolCallingManager}; this advisor copies it into the prompt options' tool context under
 * {@link ChatMemory#CONVERSATION_ID} (a {@code conversationId} the tool context already holds wins; see
 * {@link SpringAiToolCallingManager}). A request without the parameter passes through unchanged, and its tool calls
 * get a fresh session of their own.
 *
 * <pre>{@code
 * ChatClient chat = ChatClient.builder(chatModel)
 *     .defaultAdvisors(SpringAiConversationAdvisor.create(), MessageChatMemoryAdvisor.builder(memory).build())
 *     .build();
 * chat.prompt().user(text).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, userChatId)).call().content();
 * }</pre>
 *
 * <p>Its order ({@code Ordered.HIGHEST_PRECEDENCE + 100}) puts it before Spring AI 2's {@code ToolCallingAdvisor}
 * and before the models. Works on Spring AI 1.1.x and 2.0.x (on {@code spring-ai-client-chat}). Stateless and
 * thread-safe.
 *
 * <p>What it does not do: it reads no other advisor parameter, and a prompt whose options are not
 * {@code ToolCallingChatOptions} (so the manager would not run its tools) passes through unchanged. It throws
 * nothing of its own and logs nothing; what the rest of the chain throws goes to the caller as it is.
 */
public final class SpringAiConversationAdvisor implements CallAdvisor, StreamAdvisor {

  /** The advisor's order: early, before any tool loop. */
  public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

  private SpringAiConversationAdvisor() {}

  /** The advisor; one instance serves any number of clients. */
  public static SpringAiConversationAdvisor create() {
    return new SpringAiConversationAdvisor();
  }

  /** {@code "toolcall conversation"}. */
  @Override
  public String getName() {
    return "toolcall conversation";
  }

  /** {@link #ORDER}. */
  @Override
  public int getOrder() {
    return ORDER;
  }

  /**
   * Passes {@code request} on, with the chat memory's conversation id copied into its options' tool context when it
   * has both; the response comes back unchanged.
   *
   * @throws NullPointerException if an argument is null
   */
  @Override
  public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
    Objects.requireNonNull(chain, "chain");
    return chain.nextCall(withConversation(Objects.requireNonNull(request, "request")));
  }

  /**
   * As {@link #adviseCall}, for a streamed request.
   *
   * @throws NullPointerException if an argument is null
   */
  @Override
  public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
    Objects.requireNonNull(chain, "chain");
    return chain.nextStream(withConversation(Objects.requireNonNull(request, "request")));
  }

  /** {@code request} with the chat memory's conversation id in its options' tool context, if it has both. */
  static ChatClientRequest withConversation(ChatClientRequest request) {
    Object id = request.context().get(ChatMemory.CONVERSATION_ID);
    if (id == null || id.toString().isBlank() || request.prompt() == null
        || !(request.prompt().getOptions() instanceof ToolCallingChatOptions options)) {
      return request;
    }
    ToolCallingChatOptions with = SpringAiCompat.withToolContext(options, ChatMemory.CONVERSATION_ID, id.toString());
    return request.mutate().prompt(request.prompt().mutate().chatOptions(with).build()).build();
  }
}
