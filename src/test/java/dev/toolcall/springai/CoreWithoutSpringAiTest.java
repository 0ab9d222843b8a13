package dev.toolcall.springai;

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

/**
 * The core needs nothing of Spring: a class loader over the test class path with every Spring jar left out runs a
 * tool call and an agent turn ({@link CoreOnlyRun}), and the adapter there fails to link.
 */
class CoreWithoutSpringAiTest {

  @Test
  void aRuntimeRunsWithoutSpringOnTheClassPath() throws Exception {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator)) {
      if (!entry.isEmpty() && !entry.contains("springframework") && !entry.contains("projectreactor")) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]),
        ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("org.springframework.ai.chat.model.ChatModel", false, loader))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Callable<String> run = (Callable<String>) loader.loadClass(CoreOnlyRun.class.getName())
          .getDeclaredConstructor().newInstance();
      assertThat(run.call()).isEqualTo("echo ok | ANSWERED: done");
      assertThatThrownBy(() -> loader.loadClass(SpringAiToolCallingManager.class.getName()))
          .isInstanceOf(NoClassDefFoundError.class); // it implements Spring's interface: it cannot even load
      // tasks the run left on the common pool (executor listeners) finish before the loader closes under them
      java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
