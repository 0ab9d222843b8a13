/**
 * The conversation lifecycle: the conversation state machine ({@link dev.toolcall.ConversationState},
 * {@link dev.toolcall.conversation.Conversation}), the seam to the model
 * ({@link dev.toolcall.conversation.ModelClient}, messages, deltas, errors), and the turn's guards
 * ({@link dev.toolcall.conversation.TurnLimits}, {@link dev.toolcall.conversation.TurnGuards}). See {@code docs/conversation.md}.
 */
package dev.toolcall.conversation;
