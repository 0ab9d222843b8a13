package dev.toolcall.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The terminal the demo reads keys from, without a native library: {@code stty} run with the JVM's own standard
 * input (so it acts on that terminal, and fails when standard input is not one).
 *
 * <p>{@link #open()} saves the terminal's settings ({@code stty -g}) and switches to key-at-a-time input without
 * echo ({@code stty -icanon -echo min 1}); Ctrl-C still sends SIGINT (the demo cancels the turn from a shutdown
 * hook). {@link #restore()} puts the saved settings back, once; the demo calls it in a {@code finally} and from its
 * shutdown hook. Where {@code stty} fails (standard input is a pipe or a file, or there is no {@code stty}) the demo
 * stays in line mode: the terminal, if any, echoes and delivers a line at a time.
 */
final class Tty {

  private final String saved;
  private final AtomicBoolean restored = new AtomicBoolean();

  private Tty(String saved) {
    this.saved = saved;
  }

  /** Key-at-a-time mode when standard input is a terminal, else line mode. */
  static Tty open() {
    String saved = stty("-g");
    if (saved == null || saved.isBlank()) {
      return new Tty(null);
    }
    Tty t = new Tty(saved.strip());
    if (stty("-icanon", "-echo", "min", "1") == null) {
      t.restore();
      return new Tty(null);
    }
    return t;
  }

  /** Line mode, for tests and pipes. */
  static Tty lineMode() {
    return new Tty(null);
  }

  /** Whether keys arrive one at a time, unechoed. */
  boolean raw() {
    return saved != null;
  }

  /** {@code {rows, columns}} of the terminal on standard input, or null when unknown. */
  static int[] size() {
    String s = stty("size");
    if (s == null) {
      return null;
    }
    String[] parts = s.strip().split("\\s+");
    try {
      int rows = Integer.parseInt(parts[0]);
      int cols = Integer.parseInt(parts[1]);
      return rows > 0 && cols > 0 ? new int[] {rows, cols} : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Puts the saved settings back; does nothing the second time or in line mode. */
  void restore() {
    if (saved != null && restored.compareAndSet(false, true)) {
      stty(saved);
    }
  }

  /** Runs {@code stty args} on the JVM's standard input; its output, or null when it failed. */
  private static String stty(String... args) {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add("stty");
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.INHERIT)
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out;
      try (InputStream in = p.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? out : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
