/**
 * LangChain4j adapters, on the optional {@code dev.langchain4j:langchain4j-core} and {@code dev.langchain4j:langchain4j}
 * dependencies: {@link dev.toolcall.langchain4j.LangChain4jToolProvider} (a runtime's tools as an {@code AiServices}
 * tool provider, so an AI service's tool calls run under the lifecycle), {@link dev.toolcall.langchain4j.LangChain4jModels}
 * (a {@code ChatModel} or {@code StreamingChatModel} as a {@link dev.toolcall.conversation.ModelClient}), {@link dev.toolcall.langchain4j.LangChain4jTools}
 * ({@code @Tool} beans and {@code ToolSpecification} + {@code ToolExecutor} pairs as {@link dev.toolcall.tool.Tool}s)
 * and {@link dev.toolcall.langchain4j.LangChain4jSchemas} (JSON Schema both ways).
 *
 * <p>Every public type here is stateless and thread-safe. What a model or a tool does wrong never throws into
 * LangChain4j or the agent: a tool call ends with a result the model reads ({@code isError} included), a model
 * request with a {@link dev.toolcall.conversation.ModelException} whose kind says whether the turn retries. Only
 * programming errors (a null argument, a bean without {@code @Tool} methods, a schema that is not an object) throw.
 * Each type says what maps and what does not; docs/integrations.md has the tables. The core never imports this
 * package.
 */
package dev.toolcall.langchain4j;
