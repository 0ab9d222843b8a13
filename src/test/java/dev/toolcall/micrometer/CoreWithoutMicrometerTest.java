package dev.toolcall.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.otel.CoreOnlyRun;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/** The core runs a call and an agent turn in a class loader that has no Micrometer jar. */
class CoreWithoutMicrometerTest {

  @Test
  void aRuntimeRunsWithoutMicrometerOnTheClassPath() throws Exception {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator)) {
      if (!entry.isEmpty() && !entry.contains("micrometer")) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]),
        ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("io.micrometer.observation.Observation", false, loader))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Callable<String> run = (Callable<String>) loader.loadClass(CoreOnlyRun.class.getName())
          .getDeclaredConstructor().newInstance();
      assertThat(run.call()).isEqualTo("echo ok | ANSWERED: done");
      assertThatThrownBy(() -> loader.loadClass(ToolCallObservationContext.class.getName()))
          .isInstanceOf(NoClassDefFoundError.class); // it extends Micrometer's class: it cannot even load
      java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
