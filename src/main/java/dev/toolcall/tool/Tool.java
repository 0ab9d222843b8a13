package dev.toolcall.tool;

import dev.toolcall.ToolResult;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A tool the model can call: its {@link ToolDefinition} and how to run it.
 *
 * <p>Write a blocking tool with {@link #of(ToolDefinition, Blocking)} (it runs on the scheduler's executor and is
 * interrupted on cancel), or implement {@link #execute} to return a {@link CompletionStage} for asynchronous work.
 * To fail with a message for the model, throw (or complete exceptionally with) a {@link dev.toolcall.ToolException}; a
 * {@link dev.toolcall.TransientToolException} may be retried. Implementations must be thread-safe: calls may run in parallel.
 */
public interface Tool {

  /** What the model is told about this tool, and how the runtime treats it. */
  ToolDefinition definition();

  /**
   * Runs one attempt. May complete on any thread. Called only with arguments that passed the definition's schema
   * and were approved.
   */
  CompletionStage<ToolResult> execute(ToolInvocation invocation);

  /** The tool's name (its definition's). */
  default String name() {
    return definition().name();
  }

  /** A blocking tool body. */
  @FunctionalInterface
  interface Blocking {
    /** Runs one attempt on the caller's thread; may throw to fail the attempt. */
    ToolResult run(ToolInvocation invocation) throws Exception;
  }

  /**
   * A tool whose body blocks. The scheduler runs it on its executor's thread, so it must not be executed inline
   * by anyone else: {@link #execute} runs the body on the calling thread and returns a completed stage.
   */
  static Tool of(ToolDefinition definition, Blocking body) {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(body, "body");
    return new BlockingTool(definition, body);
  }

  /** The implementation of {@link Tool#of}; the scheduler recognises it to run the body on its own thread. */
  final class BlockingTool implements Tool {
    private final ToolDefinition definition;
    private final Blocking body;

    BlockingTool(ToolDefinition definition, Blocking body) {
      this.definition = definition;
      this.body = body;
    }

    @Override
    public ToolDefinition definition() {
      return definition;
    }

    /** The blocking body. */
    public Blocking body() {
      return body;
    }

    @Override
    public CompletionStage<ToolResult> execute(ToolInvocation invocation) {
      try {
        return CompletableFuture.completedFuture(body.run(invocation));
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    @Override
    public String toString() {
      return "Tool[" + definition.name() + "]";
    }
  }
}
