package dev.toolcall.springai;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * The few places where Spring AI 1.1.x and 2.0.x differ for this package, found once at class initialization, so that
 * one jar (compiled against 1.1.x) runs on both. Everything else the adapters call has the same binary signature in
 * both lines. On 2.0, {@code ToolCallingChatOptions} lost {@code getToolNames()}, {@code setToolContext},
 * {@code copy()} and its builder's {@code internalToolExecutionEnabled} (the tool loop moved into the
 * {@code ToolCallingAdvisor}: a model never runs tools itself), and gained {@code mutate()}. Stateless.
 */
final class SpringAiCompat {

  /** {@code ToolCallingChatOptions.mutate()}: present from Spring AI 2.0 on. */
  private static final Method MUTATE = find(ToolCallingChatOptions.class, "mutate");
  /** {@code ToolCallingChatOptions.getToolNames()}: Spring AI 1.x only. */
  private static final Method GET_TOOL_NAMES = find(ToolCallingChatOptions.class, "getToolNames");
  /** {@code ToolCallingChatOptions.Builder.internalToolExecutionEnabled(Boolean)}: Spring AI 1.x only. */
  private static final Method INTERNAL_EXECUTION = find(ToolCallingChatOptions.Builder.class,
      "internalToolExecutionEnabled", Boolean.class);

  private SpringAiCompat() {}

  /** Whether the Spring AI on the class path is the 2.x line (options are immutable, built with {@code mutate()}). */
  static boolean isSpringAi2() {
    return MUTATE != null;
  }

  /** The tool names the options ask for (Spring AI 1.x); empty on 2.x, which names tools only by callbacks. */
  @SuppressWarnings("unchecked")
  static Set<String> toolNames(ToolCallingChatOptions options) {
    if (GET_TOOL_NAMES == null) {
      return Set.of();
    }
    Set<String> names = (Set<String>) invoke(GET_TOOL_NAMES, options);
    return names == null ? Set.of() : names;
  }

  /** Turns the model's own tool loop off (Spring AI 1.x); nothing to do on 2.x, where models never run tools. */
  static void disableInternalToolExecution(ToolCallingChatOptions.Builder builder) {
    if (INTERNAL_EXECUTION != null) {
      invoke(INTERNAL_EXECUTION, builder, Boolean.FALSE);
    }
  }

  /** A copy of {@code options} whose tool context also holds {@code key -> value}; {@code options} is unchanged. */
  static ToolCallingChatOptions withToolContext(ToolCallingChatOptions options, String key, Object value) {
    Map<String, Object> context = new HashMap<>(options.getToolContext() == null ? Map.of()
        : options.getToolContext());
    context.put(key, value);
    if (MUTATE != null) {
      ToolCallingChatOptions.Builder b = (ToolCallingChatOptions.Builder) invoke(MUTATE, options);
      return b.toolContext(context).build();
    }
    // Spring AI 1.x: these two methods exist there (this line never runs on 2.x, so they are never linked there)
    ToolCallingChatOptions copy = options.copy();
    copy.setToolContext(context);
    return copy;
  }

  private static Method find(Class<?> type, String name, Class<?>... parameters) {
    try {
      return type.getMethod(name, parameters);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  private static Object invoke(Method m, Object target, Object... args) {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(m + " failed", c);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(m + " is not accessible", e);
    }
  }
}
