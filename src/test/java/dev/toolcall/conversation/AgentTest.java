package dev.toolcall.conversation;

import dev.toolcall.ConversationReasons;
import dev.toolcall.StateDetail;
import dev.toolcall.ConversationSnapshot;
import dev.toolcall.ConversationState;
import static dev.toolcall.testing.ScriptedModel.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolcall.runtime.ToolCallRuntime;
import dev.toolcall.ToolCallState;
import dev.toolcall.execution.CallRequest;
import dev.toolcall.execution.CallResult;
import dev.toolcall.execution.ExecutionOrder;
import dev.toolcall.permission.ApprovalMode;
import dev.toolcall.permission.Decision;
import dev.toolcall.permission.PermissionRequest;
import dev.toolcall.testing.ScriptedModel;
import dev.toolcall.tool.RetryPolicy;
import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolDefinition;
import dev.toolcall.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AgentTest {

  private static final RetryPolicy FAST_RETRY = new RetryPolicy(3, Duration.ofMillis(1), 1.0, Duration.ofMillis(1),
      0);

  private final AtomicInteger echoRuns = new AtomicInteger();
  private final CountDownLatch blockEntered = new CountDownLatch(1);
  private final CountDownLatch blockRelease = new CountDownLatch(1);
  private final AtomicInteger blockInterrupted = new AtomicInteger();
  private ToolCallRuntime runtime;

  @AfterEach
  void close() {
    blockRelease.countDown();
    if (runtime != null) {
      runtime.close();
    }
  }

  private ToolCallRuntime runtime(ApprovalMode mode) {
    return runtime(mode, ExecutionOrder.PARALLEL);
  }

  private ToolCallRuntime runtime(ApprovalMode mode, ExecutionOrder order) {
    Tool echo = Tool.of(ToolDefinition.builder("echo").description("echoes").readOnly(true).requiresApproval(false)
        .build(), inv -> {
          echoRuns.incrementAndGet();
          return ToolResult.of("echo " + inv.arguments().raw());
        });
    Tool lookup = Tool.of(ToolDefinition.builder("lookup").description("final lookup").requiresApproval(false)
        .returnDirect(true).build(), inv -> ToolResult.of("the answer is 42"));
    Tool block = Tool.of(ToolDefinition.builder("block").description("blocks").requiresApproval(false).build(),
        inv -> {
          blockEntered.countDown();
          try {
            blockRelease.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            blockInterrupted.incrementAndGet();
            throw e;
          }
          return ToolResult.of("released");
        });
    Tool gated = Tool.of(ToolDefinition.builder("gated").description("needs approval").build(),
        inv -> ToolResult.of("gated ran"));
    runtime = ToolCallRuntime.builder().tools(echo, lookup, block, gated)
        .permissions(p -> p.approvalMode(mode)).scheduler(s -> s.executionOrder(order)).build();
    return runtime;
  }

  private Agent agent(ScriptedModel model, TurnLimits limits) {
    return Agent.builder(model, runtime(ApprovalMode.ALLOW_ALL)).conversationId("conv-1").limits(limits).build();
  }

  private static TurnResult await(CompletionStage<TurnResult> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static List<ConversationState> path(Agent agent) {
    return agent.conversation().snapshot().versions().stream().map(ConversationSnapshot::state)
        .collect(Collectors.toList());
  }

  private static List<ToolResultMessage> results(Agent agent) {
    return agent.messages().stream().filter(m -> m instanceof ToolResultMessage).map(m -> (ToolResultMessage) m)
        .collect(Collectors.toList());
  }

  @Test
  void aFullTurnRunsTheToolsAndAnswersWithOneResultPerCallInRequestOrder() throws Exception {
    ScriptedModel model = new ScriptedModel()
        .thenCalls(call("c1", "echo", "{\"x\":\"a\"}"), call("c2", "nope", "{}"), call("c3", "echo", "{\"x\":\"b\"}"))
        .thenText("done");
    Agent agent = agent(model, TurnLimits.defaults());

    TurnResult r = await(agent.send("hello"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.text()).isEqualTo("done");
    List<Message> m = agent.messages();
    assertThat(m).hasSize(6);
    assertThat(m.get(0)).isEqualTo(new UserMessage("hello"));
    assertThat(((AssistantMessage) m.get(1)).toolCalls()).extracting(ToolCallRequest::id)
        .containsExactly("c1", "c2", "c3");
    assertThat(m.subList(2, 5)).extracting(x -> ((ToolResultMessage) x).callId()).containsExactly("c1", "c2", "c3");
    assertThat((ToolResultMessage) m.get(2)).extracting(ToolResultMessage::isError).isEqualTo(false);
    assertThat(((ToolResultMessage) m.get(2)).content()).contains("echo");
    assertThat(((ToolResultMessage) m.get(3)).isError()).isTrue();
    assertThat(m.get(5)).isEqualTo(new AssistantMessage("done", List.of()));
    assertThat(r.toolResults()).extracting(ToolResultMessage::callId).containsExactly("c1", "c2", "c3");
    assertThat(r.calls()).extracting(c -> c.snapshot().state())
        .containsExactly(ToolCallState.COMPLETED, ToolCallState.FAILED, ToolCallState.COMPLETED);
    assertThat(echoRuns).hasValue(2);
    assertThat(model.requests()).hasSize(2);
    assertThat(model.requests().get(0).tools()).extracting(ToolDefinition::name)
        .contains("echo", "lookup", "block", "gated");
    assertThat(model.requests().get(1).messages()).isEqualTo(m.subList(0, 5));
    assertThat(path(agent)).containsExactly(ConversationState.IDLE, ConversationState.PROCESSING_USER_MESSAGE,
        ConversationState.AWAITING_LLM_RESPONSE, ConversationState.PROCESSING_LLM_RESPONSE,
        ConversationState.EXECUTING_TOOLS, ConversationState.PROCESSING_TOOL_RESULTS,
        ConversationState.GENERATING_RESPONSE, ConversationState.AWAITING_LLM_RESPONSE,
        ConversationState.PROCESSING_LLM_RESPONSE, ConversationState.IDLE);
    assertThat(agent.conversation().snapshot().reason()).isEqualTo(ConversationReasons.FINAL_ANSWER);
    assertThat(agent.conversation().snapshot().roundTrips()).isEqualTo(2);
  }

  /** A sub-agent built with a parent call id nests every call it schedules, streamed or from a user command. */
  @Test
  void aSubAgentNestsItsCallsInItsParentCall() throws Exception {
    ScriptedModel model = new ScriptedModel()
        .thenCalls(call("s1", "echo", "{\"x\":\"a\"}"), call("s2", "echo", "{\"x\":\"b\"}"))
        .thenText("found it");
    Agent sub = Agent.builder(model, runtime(ApprovalMode.ALLOW_ALL)).conversationId("sub-1")
        .parentCallId("task_7").build();

    TurnResult r = await(sub.send("look"));
    TurnResult cmd = await(sub.runCommand(CallRequest.of("u1", "echo", "{\"x\":\"c\"}")));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.calls()).extracting(c -> c.snapshot().identity().parentCallId()).containsExactly("task_7", "task_7");
    assertThat(cmd.calls()).extracting(c -> c.snapshot().identity().parentCallId()).containsExactly("task_7");
    assertThat(r.calls()).allMatch(c -> c.snapshot().state() == ToolCallState.COMPLETED);
    Agent top = agent(new ScriptedModel().thenCalls(call("t1", "echo", "{\"x\":\"d\"}")).thenText("ok"),
        TurnLimits.defaults());
    assertThat(await(top.send("hi")).calls()).extracting(c -> c.snapshot().identity().parentCallId())
        .as("without a parent the calls are top-level").containsExactly((String) null);
    assertThatThrownBy(() -> Agent.builder(model, runtime(ApprovalMode.ALLOW_ALL)).parentCallId(" "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("parentCallId");
  }

  @Test
  void aTransientModelErrorIsRetriedThenSucceeds() throws Exception {
    ScriptedModel model = new ScriptedModel().thenFail(ModelException.Kind.NETWORK).thenText("ok");
    Agent agent = agent(model, TurnLimits.builder().modelRetry(FAST_RETRY).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(r.text()).isEqualTo("ok");
    assertThat(model.requests()).hasSize(2);
    assertThat(path(agent)).containsSubsequence(ConversationState.AWAITING_LLM_RESPONSE,
        ConversationState.TRANSIENT_FAILURE, ConversationState.AWAITING_LLM_RESPONSE, ConversationState.IDLE);
    assertThat(agent.conversation().snapshot().versions()).filteredOn(s -> s.state()
        == ConversationState.TRANSIENT_FAILURE).extracting(ConversationSnapshot::retryCount).containsExactly(1);
    assertThat(agent.conversation().snapshot().roundTrips()).as("a retry is not a round trip").isEqualTo(1);
  }

  @Test
  void transientErrorsPastTheRetryLimitFailTheTurnAndANewMessageLeavesFailed() throws Exception {
    ScriptedModel model = new ScriptedModel().thenFail(ModelException.Kind.RATE_LIMITED)
        .thenFail(ModelException.Kind.SERVER_ERROR).thenFail(ModelException.Kind.TIMEOUT).thenText("back");
    Agent agent = agent(model, TurnLimits.builder().modelRetry(FAST_RETRY).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).contains("3 times").contains("scripted TIMEOUT");
    assertThat(model.requests()).as("3 attempts").hasSize(3);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.FAILED);
    assertThat(agent.conversation().snapshot().error()).hasValueSatisfying(e -> assertThat(e).contains("3 times"));
    assertThat(agent.conversation().snapshot().previous().retryCount()).isEqualTo(3);

    TurnResult again = await(agent.send("again"));
    assertThat(again.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(again.text()).isEqualTo("back");
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
    assertThat(agent.conversation().snapshot().turn()).isEqualTo(2);
  }

  @Test
  void aFatalModelErrorFailsAtOnceAndANewMessageStartsAgain() throws Exception {
    ScriptedModel model = new ScriptedModel().thenFail(ModelException.Kind.AUTHENTICATION).thenText("fine");
    Agent agent = agent(model, TurnLimits.builder().modelRetry(FAST_RETRY).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).contains("scripted AUTHENTICATION");
    assertThat(model.requests()).hasSize(1);
    assertThat(path(agent)).endsWith(ConversationState.AWAITING_LLM_RESPONSE, ConversationState.FAILED);

    assertThat(await(agent.send("again")).ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(agent.messages()).containsExactly(new UserMessage("hi"), new UserMessage("again"),
        new AssistantMessage("fine", List.of()));
  }

  @Test
  void aModelSwitchStopsTheTurnAndHandsBackToTheUser() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{}"))
        .thenFail(ModelException.Kind.MODEL_SWITCHED);
    Agent agent = agent(model, TurnLimits.builder().modelRetry(FAST_RETRY).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.MODEL_SWITCHED);
    assertThat(r.text()).contains("cannot continue").contains("scripted MODEL_SWITCHED");
    assertThat(model.requests()).as("nothing retried or continued").hasSize(2);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
    assertThat(agent.conversation().snapshot().reason()).isEqualTo(ConversationReasons.MODEL_SWITCHED);
    assertThat(results(agent)).extracting(ToolResultMessage::callId).containsExactly("c1");
  }

  @Test
  void theSameCallRepeatedStopsTheTurnAsALoop() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{\"x\":1,\"y\":2}"))
        .thenCalls(call("c2", "echo", "{ \"y\" : 2, \"x\" : 1 }")).thenText("never");
    Agent agent = agent(model, TurnLimits.builder().loopThreshold(2).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.LOOP_DETECTED);
    assertThat(r.text()).contains("2 times in a row");
    assertThat(echoRuns).as("the repeated call does not run").hasValue(1);
    assertThat(model.requests()).hasSize(2);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
    assertThat(agent.conversation().snapshot().reason()).isEqualTo(ConversationReasons.LOOP_DETECTED);
    List<ToolResultMessage> results = results(agent);
    assertThat(results).extracting(ToolResultMessage::callId).containsExactly("c1", "c2");
    assertThat(results.get(1).isError()).isTrue();
    assertThat(results.get(1).content()).isEqualTo(r.text());
  }

  @Test
  void aCallOverThePerToolLimitFailsWithAMessageAndTheTurnGoesOn() throws Exception {
    ScriptedModel model = new ScriptedModel()
        .thenCalls(call("c1", "echo", "{\"x\":1}"), call("c2", "echo", "{\"x\":2}"), call("c3", "echo", "{\"x\":3}"))
        .thenText("done");
    Agent agent = agent(model, TurnLimits.builder().maxCallsOf("echo", 2).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(echoRuns).hasValue(2);
    List<ToolResultMessage> results = results(agent);
    assertThat(results).extracting(ToolResultMessage::callId).containsExactly("c1", "c2", "c3");
    assertThat(results).extracting(ToolResultMessage::isError).containsExactly(false, false, true);
    assertThat(results.get(2).content()).contains("'echo'").contains("limit is 2");
    assertThat(r.calls()).as("the refused call was created (the stream announced it) and failed without running")
        .extracting(c -> c.snapshot().state())
        .containsExactly(ToolCallState.COMPLETED, ToolCallState.COMPLETED, ToolCallState.FAILED);
    assertThat(r.calls().get(2).outcome()).isEqualTo(new dev.toolcall.Outcome.Failed(
        dev.toolcall.FailureKind.LIMIT_EXCEEDED, results.get(2).content()));
  }

  @Test
  void aResponseWhoseCallsAreAllRefusedGoesThroughHandlingToolError() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{\"x\":1}"))
        .thenCalls(call("c2", "echo", "{\"x\":2}")).thenText("done");
    Agent agent = agent(model, TurnLimits.builder().maxCallsOf("echo", 1).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(echoRuns).hasValue(1);
    assertThat(path(agent)).containsSubsequence(ConversationState.PROCESSING_LLM_RESPONSE,
        ConversationState.HANDLING_TOOL_ERROR, ConversationState.GENERATING_RESPONSE,
        ConversationState.AWAITING_LLM_RESPONSE);
    assertThat(agent.conversation().snapshot().versions()).filteredOn(s -> s.state()
        == ConversationState.HANDLING_TOOL_ERROR).singleElement()
        .satisfies(s -> assertThat(s.detail()).isInstanceOfSatisfying(StateDetail.ToolError.class,
            d -> assertThat(d.toolName()).isEqualTo("echo")));
    assertThat(results(agent)).extracting(ToolResultMessage::isError).containsExactly(false, true);
  }

  @Test
  void theRoundTripLimitStopsTheTurn() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{\"x\":1}"))
        .thenCalls(call("c2", "echo", "{\"x\":2}")).thenText("never");
    Agent agent = agent(model, TurnLimits.builder().maxRoundTrips(2).build());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ROUND_TRIP_LIMIT);
    assertThat(r.text()).contains("limit of 2 model requests");
    assertThat(model.requests()).hasSize(2);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
    assertThat(agent.conversation().snapshot().previousState()).isEqualTo(ConversationState.GENERATING_RESPONSE);
    assertThat(results(agent)).extracting(ToolResultMessage::callId).containsExactly("c1", "c2");
  }

  @Test
  void aReturnDirectToolEndsTheTurnWithItsResult() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{}"), call("c2", "lookup", "{}"))
        .thenText("never");
    Agent agent = agent(model, TurnLimits.defaults());

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.RETURN_DIRECT);
    assertThat(r.text()).isEqualTo("the answer is 42");
    assertThat(model.requests()).hasSize(1);
    assertThat(results(agent)).extracting(ToolResultMessage::callId).containsExactly("c1", "c2");
    assertThat(agent.conversation().snapshot().previousState())
        .isEqualTo(ConversationState.PROCESSING_TOOL_RESULTS);
  }

  @Test
  void abortDuringARunningToolCancelsEveryCallAndLeavesTheConversationIdle() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{}"), call("c2", "block", "{}"),
        call("c3", "echo", "{\"x\":3}")).thenText("after");
    // sequential, so c3 is still waiting for c2 when the turn is aborted
    Agent agent = Agent.builder(model, runtime(ApprovalMode.ALLOW_ALL, ExecutionOrder.SEQUENTIAL))
        .conversationId("conv-1").build();

    CompletionStage<TurnResult> stage = agent.send("hi");
    assertThat(blockEntered.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.EXECUTING_TOOLS);
    agent.abort();

    assertThat(stage.toCompletableFuture().isDone()).as("the abort completes the turn before it returns").isTrue();
    TurnResult r = await(stage);
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ABORTED);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
    assertThat(agent.conversation().snapshot().reason()).isEqualTo(ConversationReasons.ABORTED);
    assertThat(r.calls()).extracting(CallResult::callId).containsExactly("c1", "c2", "c3");
    assertThat(r.calls()).allSatisfy(c -> assertThat(c.snapshot().isTerminal()).isTrue());
    assertThat(r.calls()).extracting(c -> c.snapshot().state()).containsExactly(ToolCallState.COMPLETED,
        ToolCallState.CANCELLED, ToolCallState.CANCELLED);
    List<ToolResultMessage> results = results(agent);
    assertThat(results).extracting(ToolResultMessage::callId).containsExactly("c1", "c2", "c3");
    assertThat(results).extracting(ToolResultMessage::isError).containsExactly(false, true, true);
    assertThat(echoRuns).as("the waiting call never ran").hasValue(1);
    assertThat(model.requests()).as("nothing went back to the model").hasSize(1);

    // the conversation is usable again
    assertThat(await(agent.send("next")).text()).isEqualTo("after");
  }

  @Test
  void abortWhileTheModelIsAskedIgnoresTheLateResponse() throws Exception {
    ScriptedModel model = new ScriptedModel();
    CompletableFuture<ModelResponse> held = model.thenHold();
    Agent agent = agent(model, TurnLimits.defaults());

    CompletionStage<TurnResult> stage = agent.send("hi");
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.AWAITING_LLM_RESPONSE);
    agent.abort();
    assertThat(await(stage).ending()).isEqualTo(TurnResult.Ending.ABORTED);

    held.complete(ModelResponse.toolCalls("", List.of(call("late", "echo", "{}"))));
    assertThat(agent.messages()).containsExactly(new UserMessage("hi"));
    assertThat(echoRuns).hasValue(0);
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.IDLE);
  }

  @Test
  void noNewTurnWhileOneIsResponding() throws Exception {
    ScriptedModel model = new ScriptedModel();
    CompletableFuture<ModelResponse> held = model.thenHold();
    model.thenText("second");
    Agent agent = agent(model, TurnLimits.defaults());

    CompletionStage<TurnResult> first = agent.send("one");
    assertThat(agent.isResponding()).isTrue();
    CompletionStage<TurnResult> refused = agent.send("two");
    assertThatThrownBy(() -> refused.toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already responding");
    assertThatThrownBy(() -> agent.runCommand(CallRequest.of("u1", "echo", "{}")).toCompletableFuture()
        .get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
    assertThat(agent.messages()).containsExactly(new UserMessage("one"));
    assertThat(agent.conversation().snapshot().turn()).isEqualTo(1);

    held.complete(ModelResponse.text("first"));
    assertThat(await(first).text()).isEqualTo("first");
    assertThat(agent.isResponding()).isFalse();
    assertThat(await(agent.send("two")).text()).isEqualTo("second");
  }

  @Test
  void ofTwoRacingMessagesExactlyOneStartsATurn() throws Exception {
    ScriptedModel model = new ScriptedModel();
    CompletableFuture<ModelResponse> held = model.thenHold();
    Agent agent = agent(model, TurnLimits.defaults());
    CountDownLatch start = new CountDownLatch(1);
    List<CompletionStage<TurnResult>> stages = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String text = "m" + i;
      Thread th = new Thread(() -> {
        try {
          start.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        stages.add(agent.send(text));
      });
      th.start();
      threads.add(th);
    }
    start.countDown();
    for (Thread th : threads) {
      th.join(10_000);
    }
    assertThat(stages).hasSize(2);
    assertThat(stages).filteredOn(s -> s.toCompletableFuture().isCompletedExceptionally()).hasSize(1);
    assertThat(agent.messages()).hasSize(1);
    held.complete(ModelResponse.text("ok"));
    assertThat(agent.messages()).hasSize(2);
  }

  @Test
  void aUserCommandRunsThroughTheSchedulerWithoutTheModel() throws Exception {
    ScriptedModel model = new ScriptedModel();
    Agent agent = agent(model, TurnLimits.defaults());

    TurnResult r = await(agent.runCommand(CallRequest.of("cmd-1", "echo", "{\"x\":\"ls\"}")));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.COMMAND);
    assertThat(r.text()).contains("echo").contains("ls");
    assertThat(r.calls()).singleElement().extracting(c -> c.snapshot().identity().sessionId()).isEqualTo("conv-1");
    assertThat(r.toolResults()).extracting(ToolResultMessage::callId).containsExactly("cmd-1");
    assertThat(model.requests()).isEmpty();
    assertThat(agent.messages()).isEmpty();
    assertThat(path(agent)).containsExactly(ConversationState.IDLE, ConversationState.PROCESSING_USER_MESSAGE,
        ConversationState.IDLE);
  }

  @Test
  void aCallThatAsksAPersonPassesThroughAwaitingToolApproval() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "gated", "{}")).thenText("done");
    Agent agent = Agent.builder(model, runtime(ApprovalMode.ASK)).conversationId("conv-1").build();

    CompletionStage<TurnResult> stage = agent.send("hi");
    PermissionRequest ask = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.AWAITING_TOOL_APPROVAL);
    runtime.permissions().decide(ask.requestId(), Decision.approveOnce(ask));

    TurnResult r = await(stage);
    assertThat(r.ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(results(agent)).singleElement().extracting(ToolResultMessage::content).isEqualTo("gated ran");
    assertThat(path(agent)).containsSubsequence(ConversationState.PROCESSING_LLM_RESPONSE,
        ConversationState.AWAITING_TOOL_APPROVAL, ConversationState.EXECUTING_TOOLS,
        ConversationState.PROCESSING_TOOL_RESULTS);
  }

  @Test
  void aDeniedCallTellsTheModelTheReason() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "gated", "{}")).thenText("ok");
    Agent agent = Agent.builder(model, runtime(ApprovalMode.ASK)).conversationId("conv-1").build();

    CompletionStage<TurnResult> stage = agent.send("hi");
    PermissionRequest ask = runtime.permissions().awaitNext(Duration.ofSeconds(10)).orElseThrow();
    runtime.permissions().decide(ask.requestId(), Decision.deny(ask, "not on prod"));

    assertThat(await(stage).ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    ToolResultMessage m = results(agent).get(0);
    assertThat(m.isError()).isTrue();
    assertThat(m.content()).contains("not on prod");
  }

  @Test
  void deltasAreStreamedToTheListener() throws Exception {
    ScriptedModel model = new ScriptedModel().thenText("streamed text");
    List<ModelDelta> deltas = new CopyOnWriteArrayList<>();
    Agent agent = Agent.builder(model, runtime(ApprovalMode.ALLOW_ALL)).onDelta(deltas::add).build();

    assertThat(await(agent.send("hi")).text()).isEqualTo("streamed text");
    assertThat(deltas).first().isEqualTo(new ModelDelta.Text("streamed text"));
    assertThat(deltas).last().isInstanceOf(ModelDelta.ResponseCompleted.class);
  }

  @Test
  void aModelClientThatThrowsFailsTheTurnInsteadOfThrowing() throws Exception {
    ModelClient broken = request -> {
      throw new IllegalStateException("boom");
    };
    Agent agent = Agent.builder(broken, runtime(ApprovalMode.ALLOW_ALL)).build();

    TurnResult r = await(agent.send("hi"));

    assertThat(r.ending()).isEqualTo(TurnResult.Ending.FAILED);
    assertThat(r.text()).contains("boom");
    assertThat(agent.conversation().state()).isEqualTo(ConversationState.FAILED);
  }

  @Test
  void anIdRepeatedInTheNextResponseIsANewCallAnsweredUnderItsId() throws Exception {
    ScriptedModel model = new ScriptedModel().thenCalls(call("c1", "echo", "{\"x\":1}"))
        .thenCalls(call("c1", "echo", "{\"x\":2}")).thenText("done");
    Agent agent = agent(model, TurnLimits.defaults());

    assertThat(await(agent.send("hi")).ending()).isEqualTo(TurnResult.Ending.ANSWERED);
    assertThat(results(agent)).extracting(ToolResultMessage::callId).as("each call of each response is answered")
        .containsExactly("c1", "c1");
    assertThat(results(agent)).extracting(ToolResultMessage::isError).containsExactly(false, false);
    assertThat(echoRuns).as("providers number calls per response: the second c1 is a call of its own").hasValue(2);
  }

  @Test
  void builderChecksItsArguments() {
    assertThatThrownBy(() -> Agent.builder(null, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("model");
    ToolCallRuntime rt = runtime(ApprovalMode.ALLOW_ALL);
    assertThatThrownBy(() -> Agent.builder(new ScriptedModel(), rt).conversationId(" "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("conversationId");
    Agent agent = Agent.builder(new ScriptedModel(), rt).build();
    assertThatThrownBy(() -> agent.send(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("userText");
  }
}
