/**
 * OpenTelemetry for tool calls, approval waits and agent turns, on the optional {@code io.opentelemetry:opentelemetry-api}
 * dependency: {@link dev.toolcall.otel.ToolCallTelemetry}, installed with
 * {@code ToolCallRuntime.builder().instrumentation(ToolCallTelemetry.create(openTelemetry))}. It follows the GenAI
 * semantic conventions where they speak ({@code execute_tool}, {@code invoke_agent}, {@code gen_ai.*}) and names the
 * rest under {@code toolcall.}; docs/observability.md lists every span, attribute and instrument.
 *
 * <p>It only listens: it never changes a call, and a failure inside it is logged by the event bus and skipped. The
 * core never imports this package, and a runtime without it does not load OpenTelemetry.
 */
package dev.toolcall.otel;
