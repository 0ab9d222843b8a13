package dev.toolcall.langchain4j;

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
 * The core needs nothing of LangChain4j: a class loader over the test class path with every LangChain4j jar left
 * out runs a tool call and an agent turn ({@link CoreOnlyRun}), and the adapter there fails to link.
 */
class CoreWithoutLangChain4jTest {

  @Test
  void aRuntimeRunsWithoutLangChain4jOnTheClassPath() throws Exception {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator)) {
      if (!entry.isEmpty() && !entry.contains("langchain4j")) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]),
        ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("dev.langchain4j.model.chat.ChatModel", false, loader))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Callable<String> run = (Callable<String>) loader.loadClass(CoreOnlyRun.class.getName())
          .getDeclaredConstructor().newInstance();
      assertThat(run.call()).isEqualTo("echo ok | ANSWERED: done");
      Class<?> adapter = loader.loadClass(LangChain4jModels.class.getName());
      assertThatThrownBy(adapter::getMethods).isInstanceOf(NoClassDefFoundError.class);
      // tasks the run left on the common pool (executor listeners) finish before the loader closes under them
      java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
