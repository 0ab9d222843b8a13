package dev.toolcall.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.ToolMemoryId;
import dev.langchain4j.service.MemoryId;
import dev.toolcall.Outcome;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.tool.Tool;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code LangChain4jTools.tools(bean)} names a {@code @Tool} method's parameters. The project compiles its own
 * sources with {@code -parameters}; a user's build often does not, so the beans of the first tests are compiled here,
 * at test time, by the JDK's compiler without that flag, as such a build would.
 */
class LangChain4jParameterNamesTest {

  @TempDir
  Path dir;

  /** The source of one class {@code demo.Weather}, compiled without {@code -parameters}, and an instance of it. */
  private Object compiledWithoutParameters(String body) throws Exception {
    Path source = dir.resolve("src/demo/Weather.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, """
        package demo;

        import dev.langchain4j.agent.tool.P;
        import dev.langchain4j.agent.tool.Tool;
        import dev.langchain4j.agent.tool.ToolMemoryId;

        public class Weather {
        %s
        }
        """.formatted(body), StandardCharsets.UTF_8);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    java.io.ByteArrayOutputStream diagnostics = new java.io.ByteArrayOutputStream();
    int status = javac.run(null, diagnostics, diagnostics, "--release", "17", "-proc:none",
        "-classpath", jarOf(P.class), "-d", classes.toString(), source.toString());
    assertThat(status).as(diagnostics.toString(StandardCharsets.UTF_8)).isZero();
    URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
    Class<?> type = loader.loadClass("demo.Weather");
    return type.getConstructor().newInstance();
  }

  private static String jarOf(Class<?> type) throws URISyntaxException {
    return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  private static CallResult run(Tool tool, String session, String arguments) throws Exception {
    try (ToolCallRuntime rt = ToolCallRuntime.builder().tools(tool).build()) {
      return rt.schedule(session, List.of(CallRequest.of("c1", tool.name(), arguments))).whenDone()
          .toCompletableFuture().get(10, TimeUnit.SECONDS).get(0);
    }
  }

  private static String text(CallResult r) {
    assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
    return ((Outcome.Completed) r.outcome()).result().content();
  }

  @Test
  void theBeanReallyHasNoParameterNames() throws Exception {
    Object bean = compiledWithoutParameters("""
          @Tool("Current temperature in a city")
          public String temperature(String city) { return "21 in " + city; }
        """);
    Method m = bean.getClass().getMethod("temperature", String.class);
    assertThat(m.getParameters()[0].isNamePresent()).isFalse();
    assertThat(m.getParameters()[0].getName()).isEqualTo("arg0");
  }

  /**
   * Without {@code -parameters} and without {@code @P(name = ...)}, the model would be offered a property
   * {@code arg0}: registering the bean fails at once, naming the method, the parameter and both remedies.
   */
  @Test
  void parametersWithoutNamesFailAtRegistrationNamingTheCompilerFlagAndP() throws Exception {
    Object bean = compiledWithoutParameters("""
          @Tool("Current temperature in a city")
          public String temperature(@P("the city") String city, int days) { return "21 in " + city; }

          @Tool("Named")
          public String named(@P(name = "city") String city) { return city; }
        """);
    assertThatThrownBy(() -> LangChain4jTools.tools(bean))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("demo.Weather.temperature")
        .hasMessageContaining("arg0").hasMessageContaining("arg1")
        .hasMessageContaining("-parameters")
        .hasMessageContaining("<parameters>true</parameters>")
        .hasMessageContaining("@P(name = \"...\")")
        .hasMessageNotContaining("named");
  }

  /**
   * {@code @P(name = ...)} names a parameter without {@code -parameters}: the schema and the call use that name, and
   * a {@code @ToolMemoryId} parameter (never offered to the model) needs no name.
   */
  @Test
  void namesFromPWorkWithoutTheCompilerFlag() throws Exception {
    Object bean = compiledWithoutParameters("""
          @Tool("Current temperature in a city")
          public String temperature(@P(name = "city", value = "the city") String c, @ToolMemoryId String user) {
            return "21 in " + c + " for " + user;
          }
        """);
    Tool tool = LangChain4jTools.tools(bean, (name, b) -> b.requiresApproval(false)).get(0);
    assertThat(tool.definition().parameters().path("properties").fieldNames()).toIterable()
        .containsExactly("city");
    assertThat(text(run(tool, "alice", "{\"city\":\"Oslo\"}"))).isEqualTo("21 in Oslo for alice");
  }

  /** Tools for the session tests, compiled with the project's {@code -parameters}. */
  public static final class Sessions {
    @dev.langchain4j.agent.tool.Tool("Books a trip")
    public String book(@P("the city") String city, @ToolMemoryId String session) {
      return "booked " + city + " for " + session;
    }
  }

  /** A {@code @ToolMemoryId} parameter receives the call's session and is not one of the tool's parameters. */
  @Test
  void aToolMemoryIdParameterReceivesTheSession() throws Exception {
    Tool tool = LangChain4jTools.tools(new Sessions(), (name, b) -> b.requiresApproval(false)).get(0);
    assertThat(tool.definition().parameters().path("properties").fieldNames()).toIterable()
        .containsExactly("city");
    assertThat(text(run(tool, "alice", "{\"city\":\"Oslo\"}"))).isEqualTo("booked Oslo for alice");
    assertThat(text(run(tool, "bob", "{\"city\":\"Rome\"}"))).isEqualTo("booked Rome for bob");
  }

  /** The AI service's {@code @MemoryId} by mistake on a tool parameter. */
  public static final class WrongMemoryId {
    @dev.langchain4j.agent.tool.Tool("Books a trip")
    public String book(@P("the city") String city, @MemoryId String session) {
      return "booked " + city + " for " + session;
    }
  }

  /**
   * LangChain4j takes a {@code @MemoryId} tool parameter for one the model must fill, so every call would be refused
   * for a missing {@code session}: registering fails at once and names {@code @ToolMemoryId}.
   */
  @Test
  void theServicesMemoryIdOnAToolParameterFailsAtRegistrationNamingToolMemoryId() {
    assertThatThrownBy(() -> LangChain4jTools.tools(new WrongMemoryId()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WrongMemoryId.book").hasMessageContaining("session")
        .hasMessageContaining("@ToolMemoryId").hasMessageContaining("dev.langchain4j.agent.tool.ToolMemoryId");
  }
}
