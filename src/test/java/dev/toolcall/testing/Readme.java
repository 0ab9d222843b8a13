package dev.toolcall.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** Keeps the README's code true: the code between a test's README markers is what the README shows. */
public final class Readme {
  private Readme() {}

  /**
   * Asserts that README.md contains the code between {@code // README:begin} and {@code // README:end} in the test
   * source {@code testSource} (a path from the project's root), dedented by the snippet's own indentation (that of
   * its least indented line).
   */
  public static void assertShows(String testSource) throws IOException {
    assertShows(testSource, "");
  }

  /** As {@link #assertShows(String)}, for the code between {@code // README:begin name} and {@code // README:end name}. */
  public static void assertShows(String testSource, String name) throws IOException {
    String source = Files.readString(Path.of(testSource));
    String begin = "// README:begin" + (name.isEmpty() ? "" : " " + name);
    String end = "// README:end" + (name.isEmpty() ? "" : " " + name);
    String snippet = source.substring(source.indexOf(begin) + begin.length(), source.indexOf(end));
    int indent = snippet.lines().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    String dedented = snippet.lines().map(l -> l.length() >= indent ? l.substring(indent) : l.strip())
        .collect(Collectors.joining("\n")).strip();
    assertThat(Files.readString(Path.of("README.md"))).as("README shows the code of %s", testSource)
        .contains(dedented);
  }
}
