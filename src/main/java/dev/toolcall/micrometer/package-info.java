/**
 * Micrometer Observations of tool calls and approval waits, on the optional {@code io.micrometer:micrometer-observation}
 * dependency: {@link dev.toolcall.micrometer.ToolCallObservations} (an
 * {@link dev.toolcall.runtime.Instrumentation} for one runtime) and
 * {@link dev.toolcall.micrometer.ToolCallObservationAutoConfiguration} (the same in Spring Boot, when an
 * {@code ObservationRegistry} bean exists). Names and keys follow the GenAI semantic conventions that
 * {@code dev.toolcall.otel} follows, in the way Spring AI names its own observations; docs/observability.md lists
 * them. The core never imports this package.
 */
package dev.toolcall.micrometer;
