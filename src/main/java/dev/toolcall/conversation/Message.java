package dev.toolcall.conversation;

/**
 * One message of a conversation, as the model sees it: a {@link UserMessage}, an {@link AssistantMessage} (text and
 * tool calls), or a {@link ToolResultMessage} (one per tool call of the assistant message before it, in request
 * order). Messages are immutable values; a model client maps them to its provider's wire format.
 */
public sealed interface Message permits UserMessage, AssistantMessage, ToolResultMessage {}
