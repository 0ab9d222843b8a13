package dev.toolcall.springai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.execution.ToolCallResultConverter;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.method.MethodToolCallback;
import org.springframework.ai.util.json.JsonParser;

/**
 * Runs a Spring AI {@link MethodToolCallback} from the arguments this library already parsed and validated, instead
 * of {@code callback.call(json, context)}, which parses the JSON text a second time. It does what the callback does,
 * step by step, with Spring's own public pieces: the tree becomes the values Spring's {@code Map} parse gives (an
 * {@code Integer}, {@code Long} or {@code BigInteger} by size, a {@code Double}, a {@code String}, a
 * {@code Boolean}, a {@code LinkedHashMap}, an {@code ArrayList}, null), each parameter is bound by its name with
 * {@link JsonParser#toTypedObject} (a class) or {@link JsonParser#toJson} then {@link JsonParser#fromJson(String,
 * Type)} (a generic type), a {@link ToolContext} parameter gets the request's context (a method that takes one and is
 * given none fails as Spring's does), the method is invoked, and its result goes through the callback's own
 * {@link ToolCallResultConverter}. A failure is thrown as the callback throws it ({@link ToolExecutionException} with
 * the same cause).
 *
 * <p>The method, its object and its converter are private fields of the callback: they are read once per callback
 * class layout through a private lookup. When they cannot be read (another Spring AI version, whose callback is laid
 * out otherwise, such as 2.0's; a module system that does not open the package), {@link #of} returns null and the
 * callback runs itself. Stateless and thread-safe; the per-method parameter table is cached.
 */
final class MethodBinding {

  private static final VarHandle METHOD;
  private static final VarHandle OBJECT;
  private static final VarHandle CONVERTER;

  static {
    VarHandle m = null;
    VarHandle o = null;
    VarHandle c = null;
    try {
      // Spring AI 1.1's layout: 2.0 binds through a JsonHelper field of its own, which this does not copy
      boolean helper = false;
      for (var f : MethodToolCallback.class.getDeclaredFields()) {
        helper |= f.getName().equals("jsonHelper");
      }
      if (!helper) {
        MethodHandles.Lookup l = MethodHandles.privateLookupIn(MethodToolCallback.class, MethodHandles.lookup());
        m = l.findVarHandle(MethodToolCallback.class, "toolMethod", Method.class);
        o = l.findVarHandle(MethodToolCallback.class, "toolObject", Object.class);
        c = l.findVarHandle(MethodToolCallback.class, "toolCallResultConverter", ToolCallResultConverter.class);
      }
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      m = null;
      o = null;
      c = null;
    }
    METHOD = m;
    OBJECT = o;
    CONVERTER = c;
  }

  /** A method's parameters: the index of each that takes the tool context, else its name and its type. */
  private record Params(String[] names, Type[] types, boolean[] context, boolean takesContext, boolean passesContext,
      boolean accessible) {}

  private static final Map<Method, Params> PARAMS = new ConcurrentHashMap<>();

  private final ToolCallback callback;
  private final Method method;
  private final Object target;
  private final ToolCallResultConverter converter;
  private final Params params;

  private MethodBinding(ToolCallback callback, Method method, Object target, ToolCallResultConverter converter,
      Params params) {
    this.callback = callback;
    this.method = method;
    this.target = target;
    this.converter = converter;
    this.params = params;
  }

  /** Whether callbacks of this Spring AI version can be bound here at all. */
  static boolean available() {
    return METHOD != null;
  }

  /** The binding of {@code callback}, or null when it is not a {@link MethodToolCallback} that can be bound here. */
  static MethodBinding of(ToolCallback callback) {
    if (METHOD == null || !(callback instanceof MethodToolCallback)) {
      return null;
    }
    Method method = (Method) METHOD.get(callback);
    ToolCallResultConverter converter = (ToolCallResultConverter) CONVERTER.get(callback);
    if (method == null || converter == null) {
      return null;
    }
    Params params = PARAMS.get(method);
    if (params == null) {
      params = PARAMS.computeIfAbsent(method, MethodBinding::params);
    }
    return new MethodBinding(callback, method, OBJECT.get(callback), converter, params);
  }

  /**
   * Whether the method is passed the tool context: a parameter of type {@link ToolContext} (which then needs a
   * context that is not empty), or of a supertype of it, such as {@code Object}, as Spring binds it.
   */
  boolean passesContext() {
    return params.passesContext;
  }

  private static Params params(Method method) {
    Parameter[] ps = method.getParameters();
    String[] names = new String[ps.length];
    Type[] types = new Type[ps.length];
    boolean[] context = new boolean[ps.length];
    boolean any = false;
    boolean passes = false;
    for (int i = 0; i < ps.length; i++) {
      // Spring 1.1 passes the context where the parameter's type is a supertype of ToolContext
      context[i] = ps[i].getType().isAssignableFrom(ToolContext.class);
      passes |= context[i];
      names[i] = ps[i].getName();
      types[i] = ps[i].getParameterizedType();
    }
    for (Class<?> t : method.getParameterTypes()) {
      any |= ToolContext.class.isAssignableFrom(t);
    }
    return new Params(names, types, context, any, passes, Modifier.isPublic(method.getModifiers()));
  }

  /**
   * Runs the method with {@code arguments} (the validated JSON value; null or not an object binds no argument) and
   * {@code context}, and returns the callback's text for the model.
   *
   * @throws ToolExecutionException as the callback throws it: a value that does not convert, or the method threw
   * @throws IllegalArgumentException if the method takes a tool context and none (or an empty one) is given
   */
  String call(JsonNode arguments, ToolContext context) {
    if (params.takesContext && (context == null || context.getContext() == null || context.getContext().isEmpty())) {
      throw new IllegalArgumentException("ToolContext is required by the method as an argument");
    }
    String[] names = params.names;
    Object[] values = new Object[names.length];
    for (int i = 0; i < names.length; i++) {
      if (params.context[i]) {
        values[i] = context;
        continue;
      }
      JsonNode v = arguments == null || !arguments.isObject() ? null : arguments.get(names[i]);
      values[i] = typed(plain(v), params.types[i]);
    }
    Object result = invoke(values);
    return converter.convert(result, method.getGenericReturnType());
  }

  private Object typed(Object value, Type type) {
    if (value == null) {
      return null;
    }
    try {
      if (type instanceof Class<?> c) {
        return JsonParser.toTypedObject(value, c);
      }
      return JsonParser.fromJson(JsonParser.toJson(value), type);
    } catch (Exception ex) {
      Throwable cause = ex.getCause() instanceof JsonProcessingException ? ex.getCause() : ex;
      throw new ToolExecutionException(callback.getToolDefinition(), cause);
    }
  }

  private Object invoke(Object[] values) {
    if (!params.accessible || (target != null && !Modifier.isPublic(target.getClass().getModifiers()))) {
      method.setAccessible(true);
    }
    try {
      return method.invoke(target, values);
    } catch (IllegalAccessException ex) {
      throw new IllegalStateException("Could not access method: " + ex.getMessage(), ex);
    } catch (InvocationTargetException ex) {
      throw new ToolExecutionException(callback.getToolDefinition(), ex.getCause());
    }
  }

  /**
   * The plain Java value Spring's parse of the same JSON into a {@code Map<String, Object>} holds: Jackson's untyped
   * values (an int-sized integer as {@code Integer}, then {@code Long}, then {@code BigInteger}; any other number
   * as {@code Double}, as the library read it).
   */
  static Object plain(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return null;
    }
    switch (n.getNodeType()) {
      case STRING:
        return n.textValue();
      case BOOLEAN:
        return n.booleanValue();
      case NUMBER:
        if (n.isInt()) {
          return n.intValue();
        }
        if (n.isLong()) {
          return n.longValue();
        }
        if (n.isBigInteger()) {
          BigInteger b = n.bigIntegerValue();
          return b;
        }
        return n.doubleValue();
      case ARRAY: {
        List<Object> list = new ArrayList<>(n.size());
        for (JsonNode e : n) {
          list.add(plain(e));
        }
        return list;
      }
      case OBJECT: {
        Map<String, Object> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          map.put(e.getKey(), plain(e.getValue()));
        }
        return map;
      }
      default:
        return n.asText();
    }
  }
}
