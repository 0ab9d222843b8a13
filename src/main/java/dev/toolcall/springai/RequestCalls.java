package dev.toolcall.springai;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;

/**
 * What each call scheduled by a {@link SpringAiToolCallingManager} runs: the {@code ToolCallback} its request offered
 * and the {@code ToolContext} Spring passes with it, keyed by the call's id inside the library. That id is minted per
 * call ({@code spring-}, a random UUID drawn once per process and a counter), so one map serves every manager and
 * runtime in the process. A tool made by {@link SpringAiTools} looks its call up here and runs the request's callback
 * when there is one. The manager binds before it schedules and unbinds once the batch has ended (retries of a call
 * find the same binding). Thread safe: a concurrent map, each key written by one manager call.
 */
final class RequestCalls {

  /** The callback and context of one call. */
  record Bound(ToolCallback callback, ToolContext context) {}

  private static final Map<String, Bound> BY_CALL = new ConcurrentHashMap<>();

  private RequestCalls() {}

  static void bind(String callId, ToolCallback callback, ToolContext context) {
    BY_CALL.put(callId, new Bound(callback, context));
  }

  static Bound find(String callId) {
    return BY_CALL.get(callId);
  }

  static void unbind(String callId) {
    BY_CALL.remove(callId);
  }

  /** How many calls are bound now (tests: nothing is left behind). */
  static int size() {
    return BY_CALL.size();
  }
}
