package dev.toolcall.runtime;

import dev.toolcall.execution.ExecutionScope;

/**
 * A seam for tracing, metrics and logging libraries that the core does not depend on (the OpenTelemetry adapter in
 * {@code dev.toolcall.otel} implements it). Install one with {@link ToolCallRuntime.Builder#instrumentation}.
 *
 * <ul>
 *   <li>{@link #attach} runs once, at the end of the runtime's construction, before any call exists: subscribe to
 *       {@link ToolCallRuntime#events()} there. Events arrive per call in order; an inline listener runs on the
 *       thread that made the change, so it must be quick and must not block.</li>
 *   <li>{@link #enterTool} (from {@link ExecutionScope}) runs on the thread that runs a tool's body, right before the body; the returned scope is
 *       closed on the same thread right after the body returns or throws (for an asynchronous tool, after
 *       {@code execute} returns its stage). It is where a tracing context is made current, so the tool's own spans
 *       nest under its call's.</li>
 *   <li>{@link #close} runs at the end of {@link ToolCallRuntime#close()}, after every call was cancelled and its
 *       terminal event published: end whatever is still open.</li>
 * </ul>
 * An instrumentation that throws from {@code enterTool} or from the scope's {@code close} does not fail the call: the
 * error is logged and the tool runs without the scope.
 */
public interface Instrumentation extends ExecutionScope {

  /** Subscribes to the runtime (called once, before any call). */
  void attach(ToolCallRuntime runtime);

  /** The runtime has closed. */
  default void close() {}
}
