package dev.toolcall.execution;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The texts a {@link ToolScheduler} gives for failures: durations as a model reads them, the default error text. */
final class ErrorText {

  private ErrorText() {}

  static String describe(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms % 1000 == 0) {
      return (ms / 1000) + " s";
    }
    return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The default text for an unexpected exception: its type and message, never a stack trace or its causes. */
  static String defaultErrorText(Throwable t) {
    String msg = t.getMessage();
    return t.getClass().getSimpleName() + (msg == null || msg.isBlank() ? "" : ": " + msg);
  }
}
