package dev.toolcall.springai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code toolcall.*} properties that {@link ToolCallAutoConfiguration} reads, bound by Spring Boot (durations as
 * Boot reads them: {@code 30s}, {@code 2m}, {@code PT1M}). Spring Boot's configuration processor writes their
 * {@code META-INF/spring-configuration-metadata.json} into the jar from this class, so IDEs complete and document
 * them; the field comments below are those descriptions.
 *
 * <p>A plain mutable bean, as Boot binds one: bound once when the context starts and read by the auto-configuration
 * then; not meant to be changed afterwards, and not thread-safe for writes.
 */
@ConfigurationProperties(prefix = ToolCallProperties.PREFIX)
public class ToolCallProperties {

  /** The properties' prefix. */
  public static final String PREFIX = "toolcall";

  /**
   * Default timeout of one attempt of a tool the auto-configured runtime builds from the application's tool beans.
   * Unset: the runtime's default.
   */
  private Duration toolTimeout;

  /** How long a permission request waits for a person before it is denied as timed out. */
  private Duration permissionTimeout = Duration.ofMinutes(5);

  /** Names of tools that only read: they need no approval and may run in parallel. */
  private List<String> readOnlyTools = new ArrayList<>();

  /** Names of tools that need no approval; every other tool (not read-only) asks a person. */
  private List<String> autoApprovedTools = new ArrayList<>();

  /** The Spring AI integration. */
  private final SpringAi springAi = new SpringAi();

  /** Created by Spring Boot's binder. */
  public ToolCallProperties() {}

  /** {@code toolcall.tool-timeout}; null when unset. */
  public Duration getToolTimeout() {
    return toolTimeout;
  }

  /** Sets {@code toolcall.tool-timeout}. */
  public void setToolTimeout(Duration toolTimeout) {
    this.toolTimeout = toolTimeout;
  }

  /** {@code toolcall.permission-timeout}. */
  public Duration getPermissionTimeout() {
    return permissionTimeout;
  }

  /** Sets {@code toolcall.permission-timeout}. */
  public void setPermissionTimeout(Duration permissionTimeout) {
    this.permissionTimeout = permissionTimeout;
  }

  /** {@code toolcall.read-only-tools}. */
  public List<String> getReadOnlyTools() {
    return readOnlyTools;
  }

  /** Sets {@code toolcall.read-only-tools}. */
  public void setReadOnlyTools(List<String> readOnlyTools) {
    this.readOnlyTools = readOnlyTools;
  }

  /** {@code toolcall.auto-approved-tools}. */
  public List<String> getAutoApprovedTools() {
    return autoApprovedTools;
  }

  /** Sets {@code toolcall.auto-approved-tools}. */
  public void setAutoApprovedTools(List<String> autoApprovedTools) {
    this.autoApprovedTools = autoApprovedTools;
  }

  /** {@code toolcall.spring-ai.*}. */
  public SpringAi getSpringAi() {
    return springAi;
  }

  /** {@code toolcall.spring-ai.*}: the Spring AI integration. */
  public static class SpringAi {

    /**
     * Whether to install the library's ToolCallingManager (over a ToolCallRuntime bean built from the application's
     * ToolCallback and ToolCallbackProvider beans) and to give Boot's ChatClient.Builder the application's tools.
     */
    private boolean enabled;

    /** The longest a ChatClient request waits for its tool calls (approvals included) before they are cancelled. */
    private Duration maxWait = Duration.ofMinutes(10);

    /** The ChatClient.Builder that Spring AI's auto-configuration provides. */
    private final ChatClientSettings chatClient = new ChatClientSettings();

    /** Created by Spring Boot's binder. */
    public SpringAi() {}

    /** {@code toolcall.spring-ai.enabled}. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Sets {@code toolcall.spring-ai.enabled}. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** {@code toolcall.spring-ai.max-wait}. */
    public Duration getMaxWait() {
      return maxWait;
    }

    /** Sets {@code toolcall.spring-ai.max-wait}. */
    public void setMaxWait(Duration maxWait) {
      this.maxWait = maxWait;
    }

    /** {@code toolcall.spring-ai.chat-client.*}. */
    public ChatClientSettings getChatClient() {
      return chatClient;
    }
  }

  /** {@code toolcall.spring-ai.chat-client.*}: what Boot's ChatClient.Builder gets. */
  public static class ChatClientSettings {

    /**
     * Whether Boot's ChatClient.Builder offers the application's ToolCallback and ToolCallbackProvider beans to
     * every request and carries the chat memory's conversation id to the tool calls (SpringAiConversationAdvisor).
     * Off: the application configures its ChatClient itself.
     */
    private boolean enabled = true;

    /** Created by Spring Boot's binder. */
    public ChatClientSettings() {}

    /** {@code toolcall.spring-ai.chat-client.enabled}. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Sets {@code toolcall.spring-ai.chat-client.enabled}. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
