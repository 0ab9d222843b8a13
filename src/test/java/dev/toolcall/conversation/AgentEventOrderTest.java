package dev.toolcall.conversation;

import dev.toolcall.ConversationState;
import static dev.toolcall.conversation.ScriptedStream.args;
import static dev.toolcall.conversation.ScriptedStream.completed;
import static dev.toolcall.conversation.ScriptedStream.end;
import static dev.toolcall.conversation.ScriptedStream.started;
import static dev.toolcall.conversation.ScriptedStream.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolcall.Reason;
import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.event.ConversationEvent;
import dev.toolcall.event.Event;
import dev.toolcall.event.EventListener;
import dev.toolcall.event.ToolCallEvent;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.permission.PermissionService;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The order in which subscribers see a conversation's events and its tool calls' events, on real threads: the model
 * streams on its own thread, tools run on the scheduler's executor, a person answers permission requests from a
 * thread of their own, and three subscribers record what they see: an inline listener subscribed before the agent
 * exists, a listener with its own executor, and an inline listener subscribed after the agent was built.
 *
 * <p>What it proves, for every subscriber and every event (see {@link Agent}, "Events of one conversation"): a call
 * is created while the conversation awaits the model; no tool starts before the conversation's
 * {@code executing_tools}; {@code awaiting_tool_approval -> executing_tools} comes after every decision it waited
 * for; every call's terminal event comes before {@code processing_tool_results}; and per source the versions come in
 * order, each once.
 */
class AgentEventOrderTest {

  private static final int TURNS = 25;

  /** Records every event of the conversation's session, in the order it was delivered. */
  private static final class Recorder implements EventListener {
    private final List<Event> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onEvent(Event event) {
      if ("conv-o".equals(event.sessionId())) {
        events.add(event);
      }
    }

    List<Event> events() {
      synchronized (events) {
        return List.copyOf(events);
      }
    }
  }

  @Test
  void everySubscriberSeesConversationAndToolCallEventsInCausalOrder() throws Exception {
    Tool read = Tool.of(ToolDefinition.builder("read").description("reads").readOnly(true).requiresApproval(false)
        .build(), inv -> ToolResult.of("read " + inv.arguments().raw()));
    Tool write = Tool.of(ToolDefinition.builder("write").description("writes").requiresApproval(false).build(),
        inv -> ToolResult.of("wrote"));
    Tool gated = Tool.of(ToolDefinition.builder("gated").description("asks first").build(),
        inv -> ToolResult.of("gated ran"));
    ScriptedStream model = new ScriptedStream();
    for (int k = 0; k < TURNS; k++) {
      List<Object> steps = new ArrayList<>();
      String[] tools = k % 2 == 0 ? new String[] {"read", "gated", "write", "nope", "read", "gated"}
          : new String[] {"read", "write", "read"};
      for (int i = 0; i < tools.length; i++) {
        String id = "t" + k + "c" + i;
        steps.add(started(id, tools[i]));
        steps.add(args(id, "{\"n\":"));
        steps.add(args(id, i + "}"));
        steps.add(completed(id));
      }
      steps.add(end(StopReason.TOOL_CALLS));
      model.then(steps.toArray());
      model.then(text("turn " + k + " done"), end(StopReason.END_TURN));
    }

    Recorder before = new Recorder();
    Recorder onExecutor = new Recorder();
    Recorder after = new Recorder();
    ExecutorService uiThread = Executors.newSingleThreadExecutor();
    CompletableFuture<Void> stop = new CompletableFuture<>();
    Thread person = null;
    try (ToolCallRuntime runtime = ToolCallRuntime.builder().tools(read, write, gated)
        .permissions(p -> p.approvalMode(ApprovalMode.ASK)).build()) {
      runtime.events().subscribe(before);
      runtime.events().subscribe(onExecutor, uiThread);
      Agent agent = Agent.builder(ModelClient.streaming(model), runtime).conversationId("conv-o").build();
      runtime.events().subscribe(after);
      person = answerer(runtime.permissions(), stop);
      person.start();

      for (int k = 0; k < TURNS; k++) {
        TurnResult r = agent.send("turn " + k).toCompletableFuture().get(20, TimeUnit.SECONDS);
        assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
      }
    } finally {
      stop.complete(null);
      if (person != null) {
        person.join(10_000);
      }
      model.close();
      uiThread.shutdown();
      assertThat(uiThread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    List<Event> seen = before.events();
    assertThat(seen.stream().filter(e -> e instanceof ConversationEvent c && !c.isCreation()
        && c.to() == ConversationState.IDLE))
        .hasSize(TURNS);
    assertThat(seen.stream().filter(e -> e instanceof ConversationEvent c
        && c.to() == ConversationState.AWAITING_TOOL_APPROVAL)).as("the approval phase was exercised").isNotEmpty();
    assertCausalOrder("inline, subscribed before the agent", seen);
    assertCausalOrder("with its own executor", onExecutor.events());
    assertThat(onExecutor.events()).hasSameSizeAs(seen);
    // subscribed after the agent's creation: it misses the conversation's version 0 only
    List<Event> late = after.events();
    assertThat(late).hasSize(seen.size() - 1);
    assertCausalOrder("inline, subscribed after the agent", late);
  }

  /** A person on a thread of their own: approves or denies each request at random until {@code stop}. */
  private static Thread answerer(PermissionService permissions, CompletableFuture<Void> stop) {
    Thread t = new Thread(() -> {
      Random random = new Random(7);
      while (!stop.isDone()) {
        CompletableFuture<PermissionRequest> next = permissions.nextRequest().toCompletableFuture();
        try {
          CompletableFuture.anyOf(next, stop).get(20, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          continue;
        } catch (Exception e) {
          return;
        }
        if (stop.isDone()) {
          return;
        }
        PermissionRequest r = next.join();
        permissions.decide(r.requestId(), random.nextBoolean() ? Decision.approveOnce(r)
            : Decision.deny(r, "not now"));
      }
    }, "person");
    t.setDaemon(true);
    return t;
  }

  private static void assertCausalOrder(String who, List<Event> events) {
    ConversationState conversation = null;
    Map<String, ToolCallState> calls = new HashMap<>();
    Map<String, Long> versions = new HashMap<>();
    int toolStarts = 0;
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      String at = who + ", event " + i + " " + e;
      Long last = versions.put(e.sourceId(), e.version());
      if (last != null) {
        assertThat(e.version()).as("version order: %s", at).isEqualTo(last + 1);
      }
      if (e instanceof ConversationEvent c) {
        if (c.to() == ConversationState.EXECUTING_TOOLS && c.from() == ConversationState.AWAITING_TOOL_APPROVAL) {
          assertThat(calls).as("no decision pending at %s", at).doesNotContainValue(ToolCallState.PERMISSION_PENDING);
        }
        if (c.to() == ConversationState.PROCESSING_TOOL_RESULTS) {
          assertThat(calls.values()).as("every call ended before %s", at).allMatch(ToolCallState::isTerminal);
        }
        conversation = c.to();
        continue;
      }
      ToolCallEvent t = (ToolCallEvent) e;
      if (t instanceof ToolCallEvent.CallCreated) {
        assertThat(conversation).as("a call is created while the model streams: %s", at)
            .isEqualTo(ConversationState.AWAITING_LLM_RESPONSE);
      }
      if (t instanceof ToolCallEvent.StateChanged s && s.to() == ToolCallState.RUNNING
          && s.snapshot().change() instanceof Reason r
          && (r.code().equals(Reason.STARTED.code()) || r.code().equals(Reason.NO_PERMISSION_NEEDED.code()))) {
        toolStarts++;
        assertThat(conversation).as("a tool starts only in executing_tools: %s", at)
            .isEqualTo(ConversationState.EXECUTING_TOOLS);
      }
      calls.put(t.callId(), t.state());
    }
    assertThat(toolStarts).as("%s saw tools start", who).isGreaterThan(TURNS);
    assertThat(conversation).isEqualTo(ConversationState.IDLE);
    assertThat(calls.values()).allMatch(ToolCallState::isTerminal);
  }
}
