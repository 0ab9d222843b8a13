/**
 * What everything else builds on: the {@link dev.toolcall.ToolCall} aggregate (one call's compare-and-set state
 * machine) and its values ({@link dev.toolcall.ToolCallState}, {@link dev.toolcall.ToolCallSnapshot},
 * {@link dev.toolcall.Change}, {@link dev.toolcall.Outcome}, {@link dev.toolcall.Reason},
 * {@link dev.toolcall.ToolArguments}, {@link dev.toolcall.ToolResult}), the conversation's values
 * ({@link dev.toolcall.ConversationState}, {@link dev.toolcall.ConversationSnapshot}), the exceptions a tool throws,
 * the durable record of a call ({@link dev.toolcall.CallRecord}) and the seams a call writes through
 * ({@link dev.toolcall.CallStore}, {@link dev.toolcall.ToolCallPublisher}, {@link dev.toolcall.Ticker},
 * {@link dev.toolcall.DeadlineTimer}).
 *
 * <p>This package refers to {@code dev.toolcall.fsm} only; every other package of the library is above it (see
 * {@code docs/architecture.md}). To run calls, start from {@link dev.toolcall.runtime.ToolCallRuntime}.
 */
package dev.toolcall;
