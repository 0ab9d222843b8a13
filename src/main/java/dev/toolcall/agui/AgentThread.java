package dev.toolcall.agui;

import dev.toolcall.ConversationState;
import dev.toolcall.ToolCallSnapshot;
import dev.toolcall.conversation.Agent;
import dev.toolcall.conversation.TurnResult;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One AG-UI thread of an {@link AguiEndpoint} (a session): its agent, the events of its calls not yet streamed,
 * what was streamed.
 */
final class AgentThread {
  final String id;
  final Agent agent;
  final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
  final AtomicBoolean streaming = new AtomicBoolean();
  // Touched only by the streaming run (one at a time, ordered by the streaming flag's CAS).
  final Set<String> seenMessages = new HashSet<>();
  final Map<String, ToolCallSnapshot> calls = new LinkedHashMap<>();
  final Set<String> started = new HashSet<>();
  final Set<String> argsSent = new HashSet<>();
  final Set<String> ended = new HashSet<>();
  // The ids of the permission requests this thread's calls made (a resume may cancel one that already ended).
  final Set<String> requests = new HashSet<>();
  // The conversation's state as its events arrived on this queue, in order with the calls' events.
  ConversationState conversation;
  // The turn this thread drives (the future its TurnEnd carries); null when none.
  volatile CompletableFuture<TurnResult> turn;

  AgentThread(String id, Agent agent) {
    this.id = id;
    this.agent = Objects.requireNonNull(agent, "agents returned null for thread " + id);
    this.conversation = agent.conversation().state();
  }
}
