/**
 * Spring AI adapters, on the optional {@code org.springframework.ai:spring-ai-model} dependency (1.1.x):
 * {@link dev.toolcall.springai.SpringAiToolCallingManager} (a drop-in {@code ToolCallingManager} backed by a
 * runtime), {@link dev.toolcall.springai.SpringAiTools} ({@code ToolCallback}s as tools) and
 * {@link dev.toolcall.springai.SpringAiModels} (a {@code ChatModel} as a {@link dev.toolcall.conversation.ModelClient}).
 * The core never imports this package.
 */
package dev.toolcall.springai;
