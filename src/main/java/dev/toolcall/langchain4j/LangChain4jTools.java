package dev.toolcall.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.tool.ToolException;
import dev.toolcall.tool.ToolResult;
import dev.toolcall.tool.TransientToolException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * LangChain4j tools as this library's {@link Tool}s, and tool definitions as LangChain4j {@link ToolSpecification}s.
 * A LangChain4j tool then runs under the lifecycle: its arguments are validated against its schema, it asks for
 * permission (LangChain4j has no such flag: a tool requires approval unless the {@code customize} callback says
 * otherwise), it runs on the scheduler's executor with a timeout, cancellation and retries, and every change is an
 * event. Stateless and thread-safe; the tools it makes are thread-safe if the LangChain4j executors are.
 *
 * <p>Failures: a {@link ToolArgumentsException} (the model's arguments did not fit the method) and a
 * {@link ToolExecutionException} end the call FAILED with their message for the model; a {@link RetriableException}
 * is a {@link TransientToolException} (retried per the definition's retry policy); anything else the executor throws
 * ends the call FAILED through the scheduler's usual error text. A null result is an empty text.
 */
public final class LangChain4jTools {

  private LangChain4jTools() {}

  /** A {@code ToolSpecification} and its executor as a tool that requires approval. */
  public static Tool tool(ToolSpecification specification, ToolExecutor executor) {
    return tool(specification, executor, b -> {});
  }

  /**
   * A {@code ToolSpecification} and its executor as a tool; {@code customize} sets what LangChain4j does not say
   * (approval, read-only, timeouts, retries). The executor's memory id is the call's session id.
   */
  public static Tool tool(ToolSpecification specification, ToolExecutor executor,
      Consumer<ToolDefinition.Builder> customize) {
    Objects.requireNonNull(specification, "specification");
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(customize, "customize");
    ToolDefinition.Builder b = ToolDefinition.builder(specification.name())
        .description(specification.description() == null ? "" : specification.description())
        .parameters(LangChain4jSchemas.toJsonSchema(specification.parameters()));
    customize.accept(b);
    return Tool.of(b.build(), inv -> {
      ToolExecutionRequest request = ToolExecutionRequest.builder().id(inv.callId()).name(inv.toolName())
          .arguments(inv.arguments().raw()).build();
      String out;
      try {
        out = executor.execute(request, inv.sessionId());
      } catch (ToolArgumentsException e) {
        throw ToolException.invalidArguments("The arguments do not fit the tool: " + message(e), e);
      } catch (ToolExecutionException e) {
        throw new ToolException(message(e), e);
      } catch (RetriableException e) {
        throw new TransientToolException(message(e), e);
      }
      return ToolResult.of(out == null ? "" : out);
    });
  }

  /**
   * The {@code @Tool} methods of {@code bean} (LangChain4j's {@link dev.langchain4j.agent.tool.Tool} annotation),
   * each run by LangChain4j's {@link DefaultToolExecutor}, as tools that require approval.
   *
   * @throws IllegalArgumentException if {@code bean} has no {@code @Tool} method
   */
  public static List<Tool> tools(Object bean) {
    return tools(bean, (name, b) -> {});
  }

  /** Like {@link #tools(Object)}; {@code customize} gets each tool's name and its definition's builder. */
  public static List<Tool> tools(Object bean, java.util.function.BiConsumer<String, ToolDefinition.Builder> customize) {
    Objects.requireNonNull(bean, "bean");
    Objects.requireNonNull(customize, "customize");
    List<Tool> out = new ArrayList<>();
    for (Method m : bean.getClass().getDeclaredMethods()) {
      if (m.isAnnotationPresent(dev.langchain4j.agent.tool.Tool.class)) {
        ToolSpecification spec = ToolSpecifications.toolSpecificationFrom(m);
        out.add(tool(spec, new DefaultToolExecutor(bean, m), b -> customize.accept(spec.name(), b)));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("bean " + bean.getClass().getName() + " has no method annotated with "
          + "dev.langchain4j.agent.tool.Tool");
    }
    out.sort(java.util.Comparator.comparing(Tool::name));
    return List.copyOf(out);
  }

  /** A definition as a LangChain4j {@code ToolSpecification} (what a LangChain4j model is offered). */
  public static ToolSpecification specification(ToolDefinition definition) {
    Objects.requireNonNull(definition, "definition");
    JsonObjectSchema parameters = LangChain4jSchemas.fromJsonSchema(definition.parameters());
    ToolSpecification.Builder b = ToolSpecification.builder().name(definition.name());
    if (!parameters.properties().isEmpty() || !parameters.definitions().isEmpty()
        || parameters.description() != null || parameters.additionalProperties() != null) {
      b.parameters(parameters); // LangChain4j's own form of a tool without parameters is none at all
    }
    if (!definition.description().isEmpty()) {
      b.description(definition.description());
    }
    return b.build();
  }

  private static String message(Throwable e) {
    Throwable t = e.getMessage() == null && e.getCause() != null ? e.getCause() : e;
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
