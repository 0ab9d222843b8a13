/**
 * The runtime that wires the parts together: {@link dev.toolcall.runtime.ToolCallRuntime} (the entry point: a
 * registry, a permission service, a scheduler and one event bus, one deadline timer), and durability of the whole:
 * {@link dev.toolcall.runtime.RuntimeSnapshot} and its restore, the link to a {@link dev.toolcall.SharedCallStore},
 * and {@link dev.toolcall.runtime.Instrumentation} for tracing and metrics.
 *
 * <p>It sits above {@code tool}, {@code event}, {@code permission} and {@code execution}, and below the conversation
 * ({@code dev.toolcall.conversation}), whose {@code Agent} is built on a runtime (see {@code docs/architecture.md}).
 */
package dev.toolcall.runtime;
