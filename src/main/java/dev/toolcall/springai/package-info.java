/**
 * Spring AI adapters, on the optional {@code org.springframework.ai:spring-ai-model} dependency; one jar runs on
 * Spring AI 1.1.x and 2.0.x: {@link dev.toolcall.springai.SpringAiToolCallingManager} (a drop-in
 * {@code ToolCallingManager} backed by a runtime), {@link dev.toolcall.springai.SpringAiConversationAdvisor} (the chat
 * memory's conversation id as the session of a request's calls, on {@code spring-ai-client-chat}),
 * {@link dev.toolcall.springai.SpringAiTools} ({@code ToolCallback}s as tools),
 * {@link dev.toolcall.springai.SpringAiModels} (a {@code ChatModel} as a {@link dev.toolcall.conversation.ModelClient})
 * and {@link dev.toolcall.springai.ToolCallAutoConfiguration} (the manager as a Spring Boot auto-configuration, off
 * until {@code toolcall.spring-ai.enabled=true}).
 *
 * <p>Every public type here is thread-safe once built. What a model or a tool does wrong never throws into Spring
 * AI's loop: it becomes the call's answer for the model, or a {@link dev.toolcall.conversation.ModelException} for
 * the agent. Each type says what maps and what does not; docs/integrations.md has the tables and how each Spring AI
 * line is tested. The core never imports this package.
 */
package dev.toolcall.springai;
