package dev.toolcall.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;

/**
 * What the auto-configuration gives Boot's {@code ChatClient.Builder}: the {@link SpringAiConversationAdvisor} and the
 * application's {@code ToolCallback} and {@code ToolCallbackProvider} beans as the builder's default tools, so a
 * {@code ChatClient} built from it offers them to the model in every request (the tools a request adds come on top).
 * Providers are handed over as providers, so Spring AI asks them for their callbacks per request. On Spring AI 2 it
 * calls {@code defaultTools(Object...)}, which takes callbacks and providers there; on 1.1, where
 * {@code defaultTools} reads only {@code @Tool} objects, {@code defaultToolCallbacks}. Stateless; the beans are looked
 * up on each customization.
 */
final class ChatClientDefaults implements Consumer<ChatClient.Builder> {

  private final ObjectProvider<ToolCallback> callbacks;
  private final ObjectProvider<ToolCallbackProvider> providers;

  ChatClientDefaults(ObjectProvider<ToolCallback> callbacks, ObjectProvider<ToolCallbackProvider> providers) {
    this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
    this.providers = Objects.requireNonNull(providers, "providers");
  }

  @Override
  public void accept(ChatClient.Builder builder) {
    builder.defaultAdvisors(SpringAiConversationAdvisor.create());
    List<ToolCallback> cs = callbacks.orderedStream().toList();
    List<ToolCallbackProvider> ps = providers.orderedStream().toList();
    if (SpringAiCompat.isSpringAi2()) {
      List<Object> all = new ArrayList<>(cs);
      all.addAll(ps);
      if (!all.isEmpty()) {
        builder.defaultTools(all.toArray());
      }
      return;
    }
    if (!cs.isEmpty()) {
      builder.defaultToolCallbacks(cs);
    }
    if (!ps.isEmpty()) {
      builder.defaultToolCallbacks(ps.toArray(ToolCallbackProvider[]::new));
    }
  }
}
