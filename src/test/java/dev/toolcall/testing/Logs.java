package dev.toolcall.testing;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.event.Level;

/**
 * What the library logged during the running test, so that a test of a failure path captures the WARN and ERROR lines
 * it causes and asserts on them, and a green {@code mvn verify} prints no stack trace.
 *
 * <p>The tests' SLF4J provider ({@link TestLogProvider}) records every WARN and ERROR here instead of printing it.
 * This JUnit extension (registered for every Jupiter test through {@code junit-platform.properties}) looks at the
 * records of each test when it ends: a failed test prints all of them with their stack traces; a passed test prints
 * one line for each record of a logger it did not {@link #expect}, so an unexpected warning stays visible without
 * drowning the summary. Records made by background threads after their test ended count for the next test.
 */
public final class Logs implements BeforeEachCallback, AfterEachCallback {

  /** One log record. */
  public record Entry(long seq, Level level, String logger, String thread, String message, Throwable error) {
    /** The message and, if any, the error's class and message, on one line. */
    public String line() {
      return level + " " + logger + " [" + thread + "] " + message
          + (error == null ? "" : " (" + error.getClass().getSimpleName() + ": " + error.getMessage() + ")");
    }
  }

  private static final List<Entry> entries = new ArrayList<>(); // guarded by itself
  private static final Set<String> expected = ConcurrentHashMap.newKeySet();
  private static volatile long testStart;
  private static long seq; // guarded by entries
  private static final int MAX = 20_000;

  /** The extension's constructor, for JUnit. */
  public Logs() {}

  static void record(Level level, String logger, String message, Throwable error) {
    synchronized (entries) {
      if (entries.size() >= MAX) {
        entries.subList(0, MAX / 2).clear();
      }
      entries.add(new Entry(seq++, level, logger, Thread.currentThread().getName(), message, error));
    }
  }

  /**
   * Every record kept so far, oldest first, with its stack trace if any (for a process the tests start, which writes
   * them to its own log file for the test to read).
   */
  public static List<Entry> all() {
    synchronized (entries) {
      return new ArrayList<>(entries);
    }
  }

  /** Marks the WARN and ERROR records of {@code logger}'s class in the running test as expected. */
  public static void expect(Class<?> logger) {
    expected.add(logger.getName());
  }

  /** Marks the WARN and ERROR records of the logger named {@code logger} in the running test as expected. */
  public static void expect(String logger) {
    expected.add(logger);
  }

  /** The records of {@code logger}'s class in the running test so far (and marks them expected). */
  public static List<Entry> of(Class<?> logger) {
    expect(logger);
    List<Entry> out = new ArrayList<>();
    for (Entry e : sinceStart()) {
      if (e.logger().equals(logger.getName())) {
        out.add(e);
      }
    }
    return out;
  }

  private static List<Entry> sinceStart() {
    long from = testStart;
    synchronized (entries) {
      List<Entry> out = new ArrayList<>();
      for (Entry e : entries) {
        if (e.seq() >= from) {
          out.add(e);
        }
      }
      return out;
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    expected.clear();
    synchronized (entries) {
      testStart = seq;
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<Entry> mine = sinceStart();
    PrintStream err = System.err;
    String test = context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName();
    if (context.getExecutionException().isPresent()) {
      for (Entry e : mine) {
        err.println("[log of failed test " + test + "] " + e.line());
        if (e.error() != null) {
          StringWriter w = new StringWriter();
          e.error().printStackTrace(new PrintWriter(w));
          err.print(w);
        }
      }
    } else {
      for (Entry e : mine) {
        if (!expected.contains(e.logger())) {
          err.println("[unexpected log in " + test + "] " + e.line());
        }
      }
    }
    expected.clear();
  }
}
