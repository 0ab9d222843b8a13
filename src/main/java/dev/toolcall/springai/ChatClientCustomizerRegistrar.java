package dev.toolcall.springai;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers {@link ChatClientDefaults} as a bean of Spring AI 2's {@code ChatClientBuilderCustomizer} (the type that
 * replaces the {@code ChatClientCustomizer} deprecated for removal there). This jar is compiled against Spring AI 1.1,
 * which lacks that interface, so the bean is a JDK proxy of it, registered with its type known before it is created
 * (so Spring AI's {@code ObjectProvider<ChatClientBuilderCustomizer>} finds it). Imported only when the interface is
 * on the class path; does nothing when a bean of the same name is already defined (the application's own).
 */
final class ChatClientCustomizerRegistrar implements ImportBeanDefinitionRegistrar, BeanFactoryAware {

  static final String TYPE = "org.springframework.ai.chat.client.ChatClientBuilderCustomizer";

  private BeanFactory beanFactory;

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    if (registry.containsBeanDefinition(ToolCallAutoConfiguration.CUSTOMIZER)) {
      return;
    }
    Class<Object> type;
    try {
      type = (Class<Object>) Class.forName(TYPE, false, ChatClient.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return; // Spring AI 1.1: ChatClientCustomizer is used instead
    }
    BeanFactory factory = beanFactory;
    RootBeanDefinition def = new RootBeanDefinition(type, () -> proxy(type, new ChatClientDefaults(
        factory.getBeanProvider(ToolCallback.class), factory.getBeanProvider(ToolCallbackProvider.class))));
    registry.registerBeanDefinition(ToolCallAutoConfiguration.CUSTOMIZER, def);
  }

  /** A {@code ChatClientBuilderCustomizer} whose {@code customize(builder)} is {@code defaults}. */
  static Object proxy(Class<?> type, ChatClientDefaults defaults) {
    InvocationHandler h = (self, method, args) -> {
      switch (method.getName()) {
        case "customize":
          defaults.accept((ChatClient.Builder) args[0]);
          return null;
        case "equals":
          return self == args[0];
        case "hashCode":
          return System.identityHashCode(self);
        case "toString":
          return "toolcall ChatClientBuilderCustomizer (SpringAiConversationAdvisor and the application's tools)";
        default:
          throw new UnsupportedOperationException(method.toString());
      }
    };
    return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h);
  }
}
