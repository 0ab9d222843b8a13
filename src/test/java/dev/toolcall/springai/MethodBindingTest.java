package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.tool.ToolCallValidation;
import dev.toolcall.tool.ToolCallValidator;
import dev.toolcall.tool.ToolRegistry;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.execution.ToolCallResultConverter;
import org.springframework.ai.tool.method.MethodToolCallback;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import dev.toolcall.testing.Logs;

/**
 * {@link MethodBinding} against Spring AI's own {@code MethodToolCallback.call}: for each method and argument text,
 * both give the same text for the model, or both throw the same exception with a cause of the same class and
 * message. The methods cover what Spring binds: primitives and boxes, strings, enums, records, nested records,
 * generic lists, maps and lists of records, {@code Optional}, arrays, big numbers, a {@code ToolContext} parameter
 * (with a context, and without one, which Spring refuses), an {@code Object} parameter (Spring passes it the
 * context), missing and null arguments, void and record results, a custom result converter, and a method that
 * throws; the arguments come from the library's validation where the schema accepts them (the tree the drop-in
 * binds from), else from a plain parse.
 */
class MethodBindingTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  enum Size { SMALL, LARGE }

  record Point(int x, int y) {}

  record Box(String label, Point corner, List<String> tags, Size size) {}

  /** Upper-cases the result's JSON: a converter of its own. */
  public static final class Shouting implements ToolCallResultConverter {
    @Override
    public String convert(Object result, Type returnType) {
      return String.valueOf(result).toUpperCase(java.util.Locale.ROOT);
    }
  }

  public static final class Tools {
    @Tool(description = "primitives")
    public String primitives(int i, long l, double d, boolean b, float f, short s, byte y) {
      return i + "|" + l + "|" + d + "|" + b + "|" + f + "|" + s + "|" + y;
    }

    @Tool(description = "boxes")
    public String boxes(Integer i, Long l, Double d, Boolean b) {
      return i + "|" + l + "|" + d + "|" + b;
    }

    @Tool(description = "an enum and a string")
    public String sized(Size size, @ToolParam(required = false) String note) {
      return size + ":" + note;
    }

    @Tool(description = "a record")
    public Box box(Box box) {
      return box;
    }

    @Tool(description = "generics")
    public String generics(List<String> names, Map<String, Integer> counts, List<Point> points, Set<Size> sizes) {
      return names + "|" + counts + "|" + points + "|" + sizes;
    }

    @Tool(description = "optional")
    public String optional(@ToolParam(required = false) Optional<String> maybe, int n) {
      return maybe + "|" + n;
    }

    @Tool(description = "an array and big numbers")
    public String arrays(int[] values, BigDecimal amount, long big) {
      return Arrays.toString(values) + "|" + amount + "|" + big;
    }

    @Tool(description = "a tool context")
    public String context(String city, ToolContext context) {
      return city + "|" + context.getContext().get("tenant");
    }

    @Tool(description = "an object parameter")
    public String object(String city, @ToolParam(required = false) Object extra) {
      return city + "|" + (extra instanceof ToolContext c ? "context " + c.getContext().get("tenant") : extra);
    }

    @Tool(description = "returns nothing")
    public void nothing(String city) {
    }

    @Tool(description = "shouts", resultConverter = Shouting.class)
    public String shout(String text) {
      return text;
    }

    @Tool(description = "throws")
    public String fails(String why) {
      throw new IllegalStateException("failed: " + why);
    }
  }

  private static final Map<String, ToolCallback> CALLBACKS = new java.util.HashMap<>();

  static {
    for (ToolCallback c : MethodToolCallbackProvider.builder().toolObjects(new Tools()).build().getToolCallbacks()) {
      CALLBACKS.put(c.getToolDefinition().name(), c);
    }
  }

  static Stream<String[]> cases() {
    return Stream.of(
        new String[] {"primitives", "{\"i\":1,\"l\":2,\"d\":3.5,\"b\":true,\"f\":1.25,\"s\":7,\"y\":8}"},
        new String[] {"primitives", "{\"i\":2147483647,\"l\":9223372036854775807,\"d\":1e300,\"b\":false,\"f\":0,"
            + "\"s\":-1,\"y\":-128}"},
        new String[] {"primitives", "{\"i\":1.0,\"l\":20,\"d\":3,\"b\":true,\"f\":1,\"s\":1,\"y\":1}"},
        new String[] {"primitives", "{\"i\":1.5,\"l\":2,\"d\":3,\"b\":true,\"f\":1,\"s\":1,\"y\":1}"},
        new String[] {"primitives", "{\"i\":\"12\",\"l\":\"x\",\"d\":3,\"b\":true,\"f\":1,\"s\":1,\"y\":1}"},
        new String[] {"boxes", "{\"i\":5,\"l\":6,\"d\":-0.0,\"b\":false}"},
        new String[] {"boxes", "{\"i\":null,\"d\":2}"},
        new String[] {"boxes", "{}"},
        new String[] {"sized", "{\"size\":\"LARGE\",\"note\":\"é \\\" \\n\"}"},
        new String[] {"sized", "{\"size\":\"large\"}"},
        new String[] {"box", "{\"box\":{\"label\":\"b\",\"corner\":{\"x\":1,\"y\":2},\"tags\":[\"t\"],"
            + "\"size\":\"SMALL\",\"unknown\":1}}"},
        new String[] {"box", "{\"box\":{\"label\":\"b\",\"corner\":{\"x\":\"one\",\"y\":2}}}"},
        new String[] {"generics", "{\"names\":[\"a\",\"b\"],\"counts\":{\"x\":1,\"y\":2},\"points\":[{\"x\":1,\"y\":2}],"
            + "\"sizes\":[\"SMALL\",\"LARGE\",\"SMALL\"]}"},
        new String[] {"generics", "{\"names\":[],\"counts\":{},\"points\":[],\"sizes\":[]}"},
        new String[] {"generics", "{\"names\":[\"a\"],\"counts\":{\"x\":\"many\"},\"points\":[],\"sizes\":[]}"},
        new String[] {"optional", "{\"maybe\":\"yes\",\"n\":1}"},
        new String[] {"optional", "{\"n\":1}"},
        new String[] {"arrays", "{\"values\":[1,2,3],\"amount\":12.50,\"big\":123456789012}"},
        new String[] {"arrays", "{\"values\":[],\"amount\":1e2,\"big\":99999999999999999999}"},
        new String[] {"context", "{\"city\":\"Oslo\"}"},
        new String[] {"object", "{\"city\":\"Oslo\",\"extra\":{\"k\":[1,2]}}"},
        new String[] {"object", "{\"city\":\"Oslo\"}"},
        new String[] {"nothing", "{\"city\":\"Oslo\"}"},
        new String[] {"shout", "{\"text\":\"quiet\"}"},
        new String[] {"fails", "{\"why\":\"no reason\"}"});
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void bindsAsSpringsCallback(String tool, String json) throws Exception {
    Logs.expect(MethodToolCallback.class); // Spring warns of a value that does not convert
    ToolContext context = new ToolContext(Map.of("tenant", "acme", ToolContext.TOOL_CALL_HISTORY, List.of()));
    compare(tool, json, context);
    compare(tool, json, new ToolContext(Map.of()));
    compare(tool, json, null);
  }

  @Test
  void everyMethodCallbackOfThisVersionCanBeBound() {
    assertThat(MethodBinding.available()).isTrue();
    for (ToolCallback c : CALLBACKS.values()) {
      assertThat(MethodBinding.of(c)).as(c.getToolDefinition().name()).isNotNull();
    }
    ToolCallback other = org.springframework.ai.tool.function.FunctionToolCallback
        .builder("f", (String s) -> s).inputType(String.class).build();
    assertThat(MethodBinding.of(other)).isNull();
  }

  private static void compare(String tool, String json, ToolContext context) throws Exception {
    ToolCallback callback = CALLBACKS.get(tool);
    Object spring;
    try {
      spring = callback.call(json, context);
    } catch (RuntimeException e) {
      spring = e;
    }
    Object ours;
    try {
      ours = MethodBinding.of(callback).call(tree(callback, json), context);
    } catch (RuntimeException e) {
      ours = e;
    }
    String as = tool + " " + json + " with " + (context == null ? "no context" : context.getContext());
    if (spring instanceof RuntimeException se) {
      assertThat(ours).as(as).isInstanceOf(se.getClass());
      RuntimeException oe = (RuntimeException) ours;
      assertThat(oe.getMessage()).as(as).isEqualTo(se.getMessage());
      if (se.getCause() != null) {
        assertThat(oe.getCause()).as(as).isInstanceOf(se.getCause().getClass());
        assertThat(oe.getCause().getMessage()).as(as).isEqualTo(se.getCause().getMessage());
      }
    } else {
      assertThat(ours).as(as).isEqualTo(spring);
    }
  }

  /** The tree the drop-in binds from: the library's validated arguments, else (the schema refuses) a plain parse. */
  private static JsonNode tree(ToolCallback callback, String json) throws Exception {
    ToolCallValidator validator = ToolCallValidator.of(ToolRegistry.of(SpringAiTools.tool(callback)));
    ToolCallValidation v = validator.validate(callback.getToolDefinition().name(), json);
    return v instanceof ToolCallValidation.Valid ok ? ok.arguments().asJson() : JSON.readTree(json);
  }
}
