/**
 * Spring AI adapters, on the optional {@code org.springframework.ai:spring-ai-model} dependency; one jar runs on
 * Spring AI 1.1.x and 2.0.x: {@link dev.toolcall.springai.SpringAiToolCallingManager} (a drop-in
 * {@code ToolCallingManager} backed by a runtime), {@link dev.toolcall.springai.SpringAiConversationAdvisor} (the chat
 * memory's conversation id as the session of a request's calls, on {@code spring-ai-client-chat}),
 * {@link dev.toolcall.springai.SpringAiTools} ({@code ToolCallback}s as tools) and
 * {@link dev.toolcall.springai.SpringAiModels} (a {@code ChatModel} as a {@link dev.toolcall.conversation.ModelClient}).
 * The core never imports this package.
 */
package dev.toolcall.springai;
