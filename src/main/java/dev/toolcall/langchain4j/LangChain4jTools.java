package dev.toolcall.langchain4j;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolMemoryId;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.invocation.LangChain4jManaged;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import dev.toolcall.TransientToolException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * LangChain4j tools as this library's {@link Tool}s, and tool definitions as LangChain4j {@link ToolSpecification}s.
 * A LangChain4j tool then runs under the lifecycle: its arguments are validated against its schema, it asks for
 * permission (LangChain4j has no such flag: a tool requires approval unless the {@code customize} callback says
 * otherwise), it runs on the scheduler's executor with a timeout, cancellation and retries, and every change is an
 * event. Stateless and thread-safe; the tools it makes are thread-safe if the LangChain4j executors are.
 *
 * <p>Failures: a {@link ToolArgumentsException} (the model's arguments did not fit the method) ends the call FAILED
 * {@code invalid_arguments}; anything else the executor or the {@code @Tool} method throws ends it FAILED
 * {@code tool_error} with the exception's message for the model (as {@code AiServices} answers a throwing tool with an
 * error), unless it is transient: a {@link TransientToolException} or LangChain4j's {@link RetriableException}
 * anywhere in the cause chain, or an exception the {@code transientFailure} predicate accepts, is retried per the
 * definition's retry policy. A null result is an empty text. Nothing is logged here: the scheduler records the
 * failure on the call, and the model reads its message.
 *
 * <p>What does not map: LangChain4j's {@code returnDirect} and {@code ReturnBehavior.IMMEDIATE} (a result always goes
 * back to the model); its {@code InvocationContext} and {@code InvocationParameters} (the runtime, not an AI service,
 * runs the tool: a parameter annotated with LangChain4j's {@link ToolMemoryId} receives the call's session id, the
 * rest is not there); and approval, read-only, timeouts and retries, which LangChain4j does not say (set them in
 * {@code customize}).
 *
 * <p>Parameter names: the model fills a {@code @Tool} method's parameters by name, so each one it is offered needs a
 * name at run time: compile with javac's {@code -parameters} flag (Maven: {@code <parameters>true</parameters>} in
 * {@code maven-compiler-plugin}'s configuration), or name it with {@code @P(name = "...")}. Without either, Java calls
 * it {@code arg0}, {@code arg1}, ...: {@link #tools(Object)} then refuses the method at once, naming the parameters
 * and both remedies, instead of offering the model names it could not know. The AI service's {@code @MemoryId} on a
 * tool parameter is refused the same way (LangChain4j would offer it to the model as an argument; the tool-side
 * annotation is {@code @ToolMemoryId}).
 */
public final class LangChain4jTools {

  private LangChain4jTools() {}

  /**
   * A {@code ToolSpecification} and its executor as a tool that requires approval.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the specification's name or parameters are not valid for a tool
   */
  public static Tool tool(ToolSpecification specification, ToolExecutor executor) {
    return tool(specification, executor, b -> {});
  }

  /**
   * A {@code ToolSpecification} and its executor as a tool; {@code customize} sets what LangChain4j does not say
   * (approval, read-only, timeouts, retries). The executor's memory id is the call's session id, and the request it
   * gets carries the library's call id.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the specification's name or parameters are not valid for a tool, or
   *     {@code customize} set an invalid value
   */
  public static Tool tool(ToolSpecification specification, ToolExecutor executor,
      Consumer<ToolDefinition.Builder> customize) {
    return tool(specification, executor, customize, e -> false);
  }

  /**
   * Like {@link #tool(ToolSpecification, ToolExecutor, Consumer)}; an exception that {@code transientFailure} accepts
   * (tested on each exception of the cause chain) is a transient failure, retried per the definition's retry policy.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException as {@link #tool(ToolSpecification, ToolExecutor, Consumer)}
   */
  public static Tool tool(ToolSpecification specification, ToolExecutor executor,
      Consumer<ToolDefinition.Builder> customize, Predicate<? super Throwable> transientFailure) {
    Objects.requireNonNull(specification, "specification");
    Objects.requireNonNull(transientFailure, "transientFailure");
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
      } catch (RuntimeException e) {
        throw failure(e, transientFailure);
      }
      return ToolResult.of(out == null ? "" : out);
    });
  }

  /**
   * The {@code @Tool} methods of {@code bean} (LangChain4j's {@link dev.langchain4j.agent.tool.Tool} annotation),
   * each run by LangChain4j's {@link DefaultToolExecutor}, as tools that require approval, sorted by name. Only
   * the bean's own class is searched (its declared methods, not those it inherits). A parameter annotated with
   * {@link ToolMemoryId} receives the call's session id and is not offered to the model.
   *
   * @throws IllegalArgumentException if {@code bean} has no {@code @Tool} method, or one has a parameter the model
   *     would be offered without a name (a class compiled without {@code -parameters} and no {@code @P(name = ...)}),
   *     or a parameter annotated with the AI service's {@code @MemoryId}
   */
  public static List<Tool> tools(Object bean) {
    return tools(bean, (name, b) -> {});
  }

  /**
   * Like {@link #tools(Object)}; {@code customize} gets each tool's name and its definition's builder.
   *
   * @throws IllegalArgumentException as {@link #tools(Object)}
   */
  public static List<Tool> tools(Object bean, BiConsumer<String, ToolDefinition.Builder> customize) {
    return tools(bean, customize, e -> false);
  }

  /**
   * Like {@link #tools(Object, BiConsumer)}; an exception that {@code transientFailure} accepts (tested on each
   * exception of the cause chain, for example {@code e -> e instanceof java.io.IOException}) is a transient failure,
   * retried per the tool's retry policy (set it in {@code customize}). A {@link TransientToolException} and
   * LangChain4j's {@link RetriableException} are transient without it.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException as {@link #tools(Object)}, or if a tool's definition is invalid
   */
  public static List<Tool> tools(Object bean, BiConsumer<String, ToolDefinition.Builder> customize,
      Predicate<? super Throwable> transientFailure) {
    Objects.requireNonNull(bean, "bean");
    Objects.requireNonNull(customize, "customize");
    Objects.requireNonNull(transientFailure, "transientFailure");
    List<Tool> out = new ArrayList<>();
    for (Method m : bean.getClass().getDeclaredMethods()) {
      if (m.isAnnotationPresent(dev.langchain4j.agent.tool.Tool.class)) {
        checkParameters(m);
        ToolSpecification spec = ToolSpecifications.toolSpecificationFrom(m);
        // the (bean, method) constructor answers a throwing method's message as its result; AiServices does not
        ToolExecutor executor = DefaultToolExecutor.builder().object(bean).originalMethod(m).methodToInvoke(m)
            .wrapToolArgumentsExceptions(true).propagateToolExecutionExceptions(true).build();
        out.add(tool(spec, executor, b -> customize.accept(spec.name(), b), transientFailure));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("bean " + bean.getClass().getName() + " has no method annotated with "
          + "dev.langchain4j.agent.tool.Tool");
    }
    out.sort(java.util.Comparator.comparing(Tool::name));
    return List.copyOf(out);
  }

  /**
   * Refuses a {@code @Tool} method whose parameters the model could not fill by name: one the model is offered (not
   * LangChain4j's {@code @ToolMemoryId}, {@code InvocationParameters}, {@code InvocationContext} or other managed
   * parameters, as LangChain4j's {@code ToolSpecifications} skips them) that has no name at run time and no
   * {@code @P(name = ...)}, which LangChain4j would offer as {@code arg0} (it only logs a warning); and one carrying the
   * AI service's {@code @MemoryId}, which LangChain4j offers to the model as an ordinary parameter.
   */
  private static void checkParameters(Method m) {
    String where = m.getDeclaringClass().getName() + "." + m.getName();
    List<String> unnamed = new ArrayList<>();
    for (Parameter p : m.getParameters()) {
      if (p.isAnnotationPresent(MemoryId.class)) {
        throw new IllegalArgumentException("parameter '" + p.getName() + "' of tool method " + where + " is annotated "
            + "@MemoryId (dev.langchain4j.service.MemoryId), which is for AI service methods; LangChain4j would offer "
            + "it to the model as an argument to fill. A @Tool method receives the call's session through "
            + "@ToolMemoryId (dev.langchain4j.agent.tool.ToolMemoryId)");
      }
      if (!p.isNamePresent() && offeredToTheModel(p)) {
        P named = p.getAnnotation(P.class);
        if (named == null || named.name().isBlank()) {
          unnamed.add(p.getName());
        }
      }
    }
    if (!unnamed.isEmpty()) {
      throw new IllegalArgumentException("tool method " + where + " has parameters without names at run time "
          + unnamed + ": the model would be offered them under those names, and calls naming the real parameters "
          + "would be refused. Compile the class with javac's -parameters flag (Maven: <parameters>true</parameters> "
          + "in maven-compiler-plugin's configuration, or the property maven.compiler.parameters=true; Gradle: "
          + "options.compilerArgs.add(\"-parameters\")), or name each parameter with LangChain4j's "
          + "@P(name = \"...\")");
    }
  }

  /** Whether LangChain4j's {@code ToolSpecifications} makes {@code p} a property of the tool's parameters. */
  private static boolean offeredToTheModel(Parameter p) {
    Class<?> type = p.getType();
    return !p.isAnnotationPresent(ToolMemoryId.class) && !InvocationParameters.class.isAssignableFrom(type)
        && !LangChain4jManaged.class.isAssignableFrom(type) && type != InvocationContext.class;
  }

  /**
   * A definition as a LangChain4j {@code ToolSpecification} (what a LangChain4j model is offered): name, description
   * and parameters ({@link LangChain4jSchemas#fromJsonSchema}); a tool without parameters has none, as LangChain4j
   * makes it. Approval, timeouts, the output schema and the other settings have no place there.
   *
   * @throws NullPointerException if {@code definition} is null
   */
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

  /** What a tool's exception {@code e} ends its call with: transient (retried by the policy) or a tool error. */
  static ToolException failure(RuntimeException e, Predicate<? super Throwable> transientFailure) {
    Throwable root = e instanceof ToolExecutionException && e.getCause() != null ? e.getCause() : e;
    int depth = 0;
    for (Throwable t = e; t != null && depth < 32; t = t.getCause(), depth++) {
      if (t instanceof ToolArgumentsException) {
        return ToolException.invalidArguments("The arguments do not fit the tool: " + message(t), t);
      }
      if (t instanceof TransientToolException || t instanceof RetriableException || transientFailure.test(t)) {
        return new TransientToolException(message(root), e);
      }
      if (t instanceof ToolException te) {
        return te;
      }
    }
    return new ToolException(message(root), e);
  }

  private static String message(Throwable e) {
    Throwable t = e.getMessage() == null && e.getCause() != null ? e.getCause() : e;
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
