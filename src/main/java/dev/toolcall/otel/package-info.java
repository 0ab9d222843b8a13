/**
 * OpenTelemetry for tool calls, approval waits and agent turns, on the optional {@code io.opentelemetry:opentelemetry-api}
 * dependency: {@link dev.toolcall.otel.ToolCallTelemetry}. The core never imports this package.
 */
package dev.toolcall.otel;
