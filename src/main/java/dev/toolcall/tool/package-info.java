/**
 * Tools and their calls' arguments: {@link dev.toolcall.tool.Tool} and {@link dev.toolcall.tool.ToolDefinition},
 * the argument forms ({@link dev.toolcall.ToolArguments}) read from a model's text under
 * {@link dev.toolcall.tool.ArgumentLimits}, the {@link dev.toolcall.tool.ToolRegistry}, and the
 * {@link dev.toolcall.tool.ToolCallValidator} that checks a call before anything runs. Nothing a model sends makes
 * these types throw: failures are values with a message written for the model.
 */
package dev.toolcall.tool;
