package dev.toolcall.springai;

import dev.toolcall.runtime.ToolCallRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Spring Boot auto-configuration of the drop-in manager: with {@code toolcall.spring-ai.enabled=true} (and Spring AI
 * on the class path) the application's {@code ToolCallingManager} is a {@link SpringAiToolCallingManager}, over a
 * {@link ToolCallRuntime} bean built from the application's {@code ToolCallback} and {@code ToolCallbackProvider}
 * beans and closed with the context. Without the property nothing changes: Spring AI's own manager stays. Registered
 * in {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}; runs before Spring
 * AI's {@code ToolCallingAutoConfiguration}, whose manager backs off when one is defined. Works on Spring Boot 3.5
 * (Spring AI 1.1.x) and 4 (Spring AI 2.0.x).
 *
 * <p>Each bean backs off when the application defines its own: a {@code ToolCallRuntime} bean of the application is
 * used as it is (its tools, permissions and timeouts) and closed by its own definition; a {@code ToolCallingManager}
 * of the application replaces the manager.
 *
 * <p>Properties (all optional; durations as Spring Boot reads them, {@code 30s}, {@code 2m}):
 * <ul>
 *   <li>{@code toolcall.spring-ai.enabled}: {@code true} to install the manager (default {@code false});</li>
 *   <li>{@code toolcall.tool-timeout}: a tool's default timeout;</li>
 *   <li>{@code toolcall.permission-timeout}: how long a permission request waits before it is denied;</li>
 *   <li>{@code toolcall.read-only-tools}: names of tools that only read: they need no approval and may run in
 *       parallel;</li>
 *   <li>{@code toolcall.auto-approved-tools}: names of tools that need no approval (every other tool does);</li>
 *   <li>{@code toolcall.spring-ai.max-wait}: the longest a request waits for its tool calls (default 10 minutes).</li>
 * </ul>
 * The same settings apply to the tools a request offers that the runtime lacks. Approvals are answered through
 * {@code runtime.permissions()} (see docs/integrations.md).
 *
 * <p>What it does not configure: permission rules, policies, grant stores, instrumentation and a shared store; an
 * application that needs them defines its own {@code ToolCallRuntime} bean. Failures surface when the context
 * starts: a property that is not a duration, or a tool bean whose schema is invalid or whose name repeats another,
 * fails the bean's creation (Spring's binding error, or {@link IllegalArgumentException} from the runtime's builder),
 * and so the context. The beans it defines are thread-safe.
 */
@AutoConfiguration(beforeName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration")
@ConditionalOnClass({ToolCallingManager.class, ToolCallback.class})
@ConditionalOnProperty(prefix = "toolcall.spring-ai", name = "enabled", havingValue = "true")
public class ToolCallAutoConfiguration {

  /** The properties' prefix. */
  static final String PREFIX = "toolcall";

  /** Created by Spring. */
  public ToolCallAutoConfiguration() {}

  /**
   * The runtime: the application's tool beans as tools, with the properties' timeouts and approval settings; closed
   * with the context.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ToolCallRuntime toolCallRuntime(ObjectProvider<ToolCallback> callbacks,
      ObjectProvider<ToolCallbackProvider> providers, Environment environment) {
    Settings s = Settings.of(environment);
    List<ToolCallback> all = new ArrayList<>();
    callbacks.orderedStream().forEach(all::add);
    providers.orderedStream().forEach(p -> all.addAll(List.of(p.getToolCallbacks())));
    ToolCallRuntime.Builder b = ToolCallRuntime.builder().tools(SpringAiTools.tools(all, s.customize()));
    if (s.permissionTimeout() != null) {
      b.permissions(p -> p.defaultTimeout(s.permissionTimeout()));
    }
    return b.build();
  }

  /**
   * The manager over the runtime; it does not close the runtime (the runtime's bean does, or the application's
   * definition of it).
   */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean(ToolCallingManager.class)
  public SpringAiToolCallingManager toolCallingManager(ToolCallRuntime toolCallRuntime, Environment environment) {
    Settings s = Settings.of(environment);
    SpringAiToolCallingManager.Builder b = SpringAiToolCallingManager.builder(toolCallRuntime)
        .customize(s.customize());
    if (s.maxWait() != null) {
      b.maxWait(s.maxWait());
    }
    return b.build();
  }

  /** The properties, bound with Spring Boot's binder. */
  record Settings(Duration toolTimeout, Duration permissionTimeout, Duration maxWait, Set<String> readOnly,
      Set<String> autoApproved) {

    static Settings of(Environment environment) {
      Binder binder = Binder.get(environment);
      return new Settings(
          binder.bind(PREFIX + ".tool-timeout", Duration.class).orElse(null),
          binder.bind(PREFIX + ".permission-timeout", Duration.class).orElse(null),
          binder.bind(PREFIX + ".spring-ai.max-wait", Duration.class).orElse(null),
          Set.copyOf(binder.bind(PREFIX + ".read-only-tools", Bindable.listOf(String.class)).orElse(List.of())),
          Set.copyOf(binder.bind(PREFIX + ".auto-approved-tools", Bindable.listOf(String.class)).orElse(List.of())));
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
