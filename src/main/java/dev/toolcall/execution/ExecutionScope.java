package dev.toolcall.execution;

import dev.toolcall.ToolCallSnapshot;

/**
 * A scope the scheduler opens around each run of a tool's body: where a tracing context is made current, so the
 * tool's own spans nest under its call's, or a logging context is set. {@code dev.toolcall.runtime.Instrumentation}
 * extends it; a {@link ToolScheduler} built on its own takes one through {@link ToolScheduler.Builder#instrumentation}.
 *
 * <p>{@link #enterTool} runs on the thread that runs the body, right before it; the returned scope is closed once, on
 * the same thread, right after the body returns or throws (for an asynchronous tool, after {@code execute} returns its
 * stage). A scope that throws from {@code enterTool} or from {@code close} does not fail the call: the error is
 * logged and the tool runs without the scope. Implementations must be thread-safe: tools run on many threads at once.
 */
public interface ExecutionScope {

  /** Opens a scope around one run of a tool's body, on the thread that runs it; {@link Scope#NONE} by default. */
  default Scope enterTool(ToolCallSnapshot call) {
    return Scope.NONE;
  }

  /** What {@link #enterTool} opened; closed once, on the same thread. */
  @FunctionalInterface
  interface Scope extends AutoCloseable {
    /** Nothing to close. */
    Scope NONE = () -> {};

    @Override
    void close();
  }
}
