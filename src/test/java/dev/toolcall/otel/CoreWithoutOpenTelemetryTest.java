package dev.toolcall.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The core needs nothing of OpenTelemetry: a class loader over the test class path with every OpenTelemetry jar
 * left out runs a tool call and an agent turn ({@link CoreOnlyRun}), and the telemetry class there fails to link,
 * so the jars really were absent.
 */
class CoreWithoutOpenTelemetryTest {

  static URLClassLoader withoutOpenTelemetry() throws Exception {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator)) {
      if (!entry.isEmpty() && !entry.contains("opentelemetry")) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
  }

  @Test
  void aRuntimeRunsWithoutOpenTelemetryOnTheClassPath() throws Exception {
    try (URLClassLoader loader = withoutOpenTelemetry()) {
      assertThatThrownBy(() -> Class.forName("io.opentelemetry.api.OpenTelemetry", false, loader))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Callable<String> run = (Callable<String>) loader.loadClass(CoreOnlyRun.class.getName())
          .getDeclaredConstructor().newInstance();
      assertThat(run.call()).isEqualTo("echo ok | ANSWERED: done");
      Class<?> telemetry = loader.loadClass(ToolCallTelemetry.class.getName());
      assertThatThrownBy(() -> telemetry.getMethods()).isInstanceOf(NoClassDefFoundError.class);
      // tasks the run left on the common pool (executor listeners) finish before the loader closes under them
      java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
