package dev.toolcall.springai;

import dev.toolcall.runtime.Instrumentation;
import dev.toolcall.runtime.ToolCallRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.springframework.ai.chat.client.ChatClientCustomizer;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Spring Boot auto-configuration of the lifecycle for Spring AI: with {@code toolcall.spring-ai.enabled=true} (and
 * Spring AI on the class path) the application's {@code ToolCallingManager} is a {@link SpringAiToolCallingManager},
 * over a {@link ToolCallRuntime} bean built from the application's {@code ToolCallback} and
 * {@code ToolCallbackProvider} beans and closed with the context, and the {@code ChatClient.Builder} that Spring AI's
 * auto-configuration provides offers those tool beans in every request and carries the chat memory's conversation id
 * to the calls ({@link SpringAiConversationAdvisor}). So an application that builds its client from Boot's builder
 * ({@code builder.build()}) has its tools run under the lifecycle with nothing more. Without the property nothing
 * changes: Spring AI's own manager stays. Registered in
 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}; runs before Spring AI's
 * {@code ToolCallingAutoConfiguration}, whose manager backs off when one is defined. Works on Spring Boot 3.5 (Spring
 * AI 1.1.x) and 4 (Spring AI 2.0.x).
 *
 * <p>Each part backs off when the application defines its own: a {@code ToolCallRuntime} bean of the application is
 * used as it is (its tools, permissions, timeouts and instrumentation) and closed by its own definition; a
 * {@code ToolCallingManager} of the application replaces the manager; a bean named {@value #CUSTOMIZER}, or
 * {@code toolcall.spring-ai.chat-client.enabled=false}, leaves Boot's {@code ChatClient.Builder} alone. A
 * {@code ChatClient} the application builds itself ({@code ChatClient.builder(model)}) is never touched: give it
 * {@code .defaultAdvisors(SpringAiConversationAdvisor.create()).defaultTools(provider)} (Spring AI 2) or
 * {@code .defaultToolCallbacks(provider)} (1.1). A request that offers a tool of the same name as a default one is
 * refused by Spring AI ("Multiple tools with the same name"); other tools a request offers ({@code .tools(...)}) are
 * offered beside the defaults and run under the lifecycle too.
 *
 * <p>The builder's customizer is a {@code ChatClientCustomizer} on Spring AI 1.1 and a
 * {@code ChatClientBuilderCustomizer} on 2.0 (where the former is deprecated for removal). When Micrometer's
 * {@code ObservationRegistry} is on the class path and a bean, the runtime it builds is observed
 * ({@code dev.toolcall.micrometer.ToolCallObservations}, docs/observability.md).
 *
 * <p>Properties: {@link ToolCallProperties} (IDE metadata in the jar). The same settings apply to the tools a request
 * offers that the runtime lacks. Approvals are answered through {@code runtime.permissions()} (see
 * docs/integrations.md).
 *
 * <p>What it does not configure: permission rules, policies, grant stores and a shared store; an application that
 * needs them defines its own {@code ToolCallRuntime} bean. Failures surface when the context starts: a property that
 * is not a duration, or a tool bean whose schema is invalid or whose name repeats another, fails the bean's creation
 * (Spring's binding error, or {@link IllegalArgumentException} from the runtime's builder), and so the context. The
 * beans it defines are thread-safe.
 */
@AutoConfiguration(beforeName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration")
@ConditionalOnClass({ToolCallingManager.class, ToolCallback.class})
@ConditionalOnProperty(prefix = "toolcall.spring-ai", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(ToolCallProperties.class)
public class ToolCallAutoConfiguration {

  /** The name of the bean that customizes Boot's {@code ChatClient.Builder}; define one of this name to replace it. */
  public static final String CUSTOMIZER = "toolCallChatClientCustomizer";

  /** Created by Spring. */
  public ToolCallAutoConfiguration() {}

  /**
   * The runtime: the application's tool beans as tools, with the properties' timeouts and approval settings, and the
   * application's {@link Instrumentation} beans (the Micrometer one among them); closed with the context.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ToolCallRuntime toolCallRuntime(ObjectProvider<ToolCallback> callbacks,
      ObjectProvider<ToolCallbackProvider> providers, ObjectProvider<Instrumentation> instrumentations,
      ToolCallProperties properties) {
    Settings s = Settings.of(properties);
    List<ToolCallback> all = new ArrayList<>();
    callbacks.orderedStream().forEach(all::add);
    providers.orderedStream().forEach(p -> all.addAll(List.of(p.getToolCallbacks())));
    ToolCallRuntime.Builder b = ToolCallRuntime.builder().tools(SpringAiTools.tools(all, s.customize()));
    if (s.permissionTimeout() != null) {
      b.permissions(p -> p.defaultTimeout(s.permissionTimeout()));
    }
    instrumentations.orderedStream().forEach(b::instrumentation);
    return b.build();
  }

  /**
   * The manager over the runtime; it does not close the runtime (the runtime's bean does, or the application's
   * definition of it).
   */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean(ToolCallingManager.class)
  public SpringAiToolCallingManager toolCallingManager(ToolCallRuntime toolCallRuntime,
      ToolCallProperties properties) {
    Settings s = Settings.of(properties);
    SpringAiToolCallingManager.Builder b = SpringAiToolCallingManager.builder(toolCallRuntime)
        .customize(s.customize());
    if (s.maxWait() != null) {
      b.maxWait(s.maxWait());
    }
    return b.build();
  }

  /** Spring AI 1.1: Boot's {@code ChatClient.Builder} customized through a {@code ChatClientCustomizer}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.ai.chat.client.ChatClient")
  @ConditionalOnMissingClass(ChatClientCustomizerRegistrar.TYPE)
  @ConditionalOnProperty(prefix = "toolcall.spring-ai.chat-client", name = "enabled", havingValue = "true",
      matchIfMissing = true)
  static class ChatClientCustomizerConfiguration {

    @Bean(CUSTOMIZER)
    @ConditionalOnMissingBean(name = CUSTOMIZER)
    ChatClientCustomizer toolCallChatClientCustomizer(ObjectProvider<ToolCallback> callbacks,
        ObjectProvider<ToolCallbackProvider> providers) {
      ChatClientDefaults defaults = new ChatClientDefaults(callbacks, providers);
      return defaults::accept;
    }
  }

  /** Spring AI 2.0: Boot's {@code ChatClient.Builder} customized through a {@code ChatClientBuilderCustomizer}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = ChatClientCustomizerRegistrar.TYPE)
  @ConditionalOnProperty(prefix = "toolcall.spring-ai.chat-client", name = "enabled", havingValue = "true",
      matchIfMissing = true)
  @Import(ChatClientCustomizerRegistrar.class)
  static class ChatClientBuilderCustomizerConfiguration {}

  /** The properties, as the beans use them. */
  record Settings(Duration toolTimeout, Duration permissionTimeout, Duration maxWait, Set<String> readOnly,
      Set<String> autoApproved) {

    static Settings of(ToolCallProperties p) {
      return new Settings(p.getToolTimeout(), p.getPermissionTimeout(), p.getSpringAi().getMaxWait(),
          Set.copyOf(p.getReadOnlyTools()), Set.copyOf(p.getAutoApprovedTools()));
    }

    /** The settings of one tool, by name. */
    BiConsumer<String, dev.toolcall.tool.ToolDefinition.Builder> customize() {
      return (name, b) -> {
        boolean ro = readOnly.contains(name);
        b.readOnly(ro).requiresApproval(!ro && !autoApproved.contains(name));
        if (toolTimeout != null) {
          b.timeout(toolTimeout);
        }
      };
    }
  }
}
