package dev.toolcall.springai;

import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolException;
import dev.toolcall.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import dev.toolcall.ToolArguments;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.execution.ToolExecutionException;

/**
 * Spring AI {@link ToolCallback}s as this library's {@link Tool}s, and definitions back as Spring AI tool definitions.
 * A callback then runs under the lifecycle: its input is validated against its schema, it asks for permission
 * (Spring AI has no such flag: it requires approval unless {@code customize} says otherwise), and it runs on the
 * scheduler's executor with a timeout, cancellation and retries. Its {@code returnDirect} metadata carries over.
 * Stateless and thread-safe.
 *
 * <p>Empty or missing arguments reach the callback as {@code {}}, as Spring AI passes them. A
 * {@code MethodToolCallback} (an {@code @Tool} method) is run from the arguments this library parsed and validated,
 * bound to the method's parameters with Spring AI's own converters and its result converted by the callback's own
 * converter, so the JSON text is not parsed a second time; the method gets what {@code callback.call} would pass it.
 * Any other callback, and a method callback of a Spring AI version laid out otherwise (2.0), is called with the text. Under a
 * {@link SpringAiToolCallingManager} a call runs the callback its request offered, with the request's
 * {@code ToolContext} as Spring builds it (the options' tool context and the conversation history); otherwise it runs
 * {@code callback} with no context.
 *
 * <p>What maps: the name, the description (empty when missing), the input schema (a tool without one takes any
 * object) and {@code returnDirect}. What does not: the rest of the tool's metadata, and approval, read-only, timeouts
 * and retries, which Spring AI does not say (set them with {@code customize}); a callback run outside the manager (by
 * an {@link dev.toolcall.conversation.Agent}) gets no {@code ToolContext}, so a method that needs one fails there.
 *
 * <p>Failures: an input schema that is not a JSON object, or not a valid JSON Schema, throws
 * {@link IllegalArgumentException} when the tool is made or registered. A {@link ToolExecutionException} ends the call FAILED ({@code tool_error}) with its cause's
 * message for the model; anything else the callback throws ends it FAILED through the scheduler's usual error text;
 * none is retried unless it is a {@link dev.toolcall.TransientToolException}. A null result is
 * an empty text. Nothing is logged here.
 */
public final class SpringAiTools {

  private SpringAiTools() {}

  /**
   * {@code callback} as a tool that requires approval.
   *
   * @throws NullPointerException if {@code callback} is null
   * @throws IllegalArgumentException if its input schema is not a JSON object
   */
  public static Tool tool(ToolCallback callback) {
    return tool(callback, b -> {});
  }

  /**
   * {@code callback} as a tool; {@code customize} sets what Spring AI does not say (approval, timeouts, retries).
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the input schema is not a JSON object, or {@code customize} set an
   *     invalid value
   */
  public static Tool tool(ToolCallback callback, java.util.function.Consumer<ToolDefinition.Builder> customize) {
    Objects.requireNonNull(callback, "callback");
    Objects.requireNonNull(customize, "customize");
    return tool(callback, customize, false);
  }

  /**
   * The tool of {@code callback}; a call a {@link SpringAiToolCallingManager} scheduled runs the callback its request
   * offered instead (with the request's {@code ToolContext}). With {@code requestOnly}, a call no request bound is
   * answered as not offered: such a tool was added to the runtime for a request, not by the application.
   */
  static Tool tool(ToolCallback callback, java.util.function.Consumer<ToolDefinition.Builder> customize,
      boolean requestOnly) {
    org.springframework.ai.tool.definition.ToolDefinition d = callback.getToolDefinition();
    ToolDefinition.Builder b = ToolDefinition.builder(d.name())
        .description(d.description() == null ? "" : d.description())
        .returnDirect(callback.getToolMetadata().returnDirect());
    if (d.inputSchema() != null && !d.inputSchema().isBlank()) {
      b.parameters(d.inputSchema());
    }
    customize.accept(b);
    MethodBinding own = MethodBinding.of(callback);
    return Tool.of(b.build(), inv -> {
      RequestCalls.Bound bound = RequestCalls.find(inv.callId());
      if (bound == null && requestOnly) {
        throw new ToolException("The tool " + d.name() + " is not offered in this request, so it was not run.");
      }
      ToolCallback runs = bound == null ? callback : bound.callback();
      ToolContext context = bound == null ? null : bound.context();
      MethodBinding binding = runs == callback ? own : MethodBinding.of(runs);
      String out;
      try {
        if (binding != null && inv.arguments() instanceof ToolArguments.Json json) {
          out = binding.call(json.asJson(), context); // the validated tree: no second parse of the text
        } else {
          String raw = inv.arguments().raw();
          String args = raw == null || raw.isBlank() ? "{}" : raw; // as Spring passes empty arguments
          out = bound == null ? callback.call(args) : runs.call(args, context);
        }
      } catch (ToolExecutionException e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        throw new ToolException(c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage(), e);
      }
      return ToolResult.of(out == null ? "" : out);
    });
  }

  /**
   * Every callback as a tool, in the order given; {@code customize} gets each tool's name and its definition's
   * builder.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException as {@link #tool(ToolCallback, java.util.function.Consumer)}
   */
  public static List<Tool> tools(List<? extends ToolCallback> callbacks,
      BiConsumer<String, ToolDefinition.Builder> customize) {
    Objects.requireNonNull(callbacks, "callbacks");
    Objects.requireNonNull(customize, "customize");
    List<Tool> out = new ArrayList<>(callbacks.size());
    for (ToolCallback c : callbacks) {
      out.add(tool(c, b -> customize.accept(c.getToolDefinition().name(), b)));
    }
    return List.copyOf(out);
  }

  /**
   * A definition as Spring AI's: name, description, and the parameters as the input schema. The output schema,
   * approval and the other settings have no place there and are not carried.
   */
  public static org.springframework.ai.tool.definition.ToolDefinition definition(ToolDefinition definition) {
    Objects.requireNonNull(definition, "definition");
    return org.springframework.ai.tool.definition.ToolDefinition.builder().name(definition.name())
        .description(definition.description()).inputSchema(definition.parameters().toString()).build();
  }
}
